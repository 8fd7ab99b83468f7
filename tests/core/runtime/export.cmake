# torch.export programs (docs/export.md): pytree specs on every release, and
# AOTInductor packages where LibTorch has the loader (2.6). Included from
# tests/CMakeLists.txt; paths are relative to this file.
#
# The packages are exported and compiled at build time by PyTorch itself
# (${TSB_PYTHON}, ~20 s, once per build tree); with a PyTorch without
# AOTInductor (1.13) the script writes only its stamp.
set(TSB_EXPORT_FIXTURES ${CMAKE_CURRENT_BINARY_DIR}/export_fixtures)
add_custom_command(
  OUTPUT ${TSB_EXPORT_FIXTURES}/stamp
  COMMAND ${TSB_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/make_pt2_fixtures.py ${TSB_EXPORT_FIXTURES}
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/make_pt2_fixtures.py
  COMMENT "Exporting and compiling the .pt2 test packages with ${TSB_PYTHON}"
  VERBATIM)
add_custom_target(tsbridge_export_fixtures DEPENDS ${TSB_EXPORT_FIXTURES}/stamp)

# A plugin naming the fixture's namedtuple: tsbtest.Box(lo, hi).
tsbridge_add_plugin(tsbridge_export_box_plugin SOURCES ${CMAKE_CURRENT_LIST_DIR}/box_plugin.cc)

add_executable(tsbridge_export_tests
  ${CMAKE_CURRENT_LIST_DIR}/tree_spec_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/aoti_package_test.cc
  ${PROJECT_SOURCE_DIR}/tests/testing/abi_test.cc
)
target_link_libraries(tsbridge_export_tests PRIVATE tsbridge_internal GTest::gmock tsb_test_main)
tsb_build_paths(tsbridge_export_tests TSB_EXPORT_FIXTURES "${TSB_EXPORT_FIXTURES}"
  TSB_EXPORT_BOX_PLUGIN "$<TARGET_FILE:tsbridge_export_box_plugin>")
add_dependencies(tsbridge_export_tests tsbridge_export_fixtures tsbridge_plugin_tuple
                 tsbridge_export_box_plugin)
# A process per case: one case loads the plugin, which changes the types
# every later load in the process gives the package.
tsb_add_gtest(tsbridge_export_tests PROCESS_PER_TEST)
