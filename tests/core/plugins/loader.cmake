# Fixture plugins for loader_test.cc: one source, one define per fixture,
# each library in its own directory (so a directory load sees only it).
set(TSB_FIXTURE_DIR ${CMAKE_CURRENT_BINARY_DIR}/fixtures)
set(TSB_FIXTURES good register_throws fails_halfway duplicate_in_plugin
    duplicate_across invalid_type no_entry abi_major abi_minor platform old_sdk other_torch env_dir throwing)
set(tsb_fixture_targets)
foreach(fixture ${TSB_FIXTURES})
  add_library(fixture_${fixture} MODULE ${CMAKE_CURRENT_LIST_DIR}/fixtures/fixture_plugin.cc)
  string(TOUPPER ${fixture} define)
  target_compile_definitions(fixture_${fixture} PRIVATE
    FIXTURE_${define} FIXTURE_NAME="${fixture}")
  target_link_libraries(fixture_${fixture} PRIVATE tsbridge_internal)
  set_target_properties(fixture_${fixture} PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY ${TSB_FIXTURE_DIR}/${fixture}
    CXX_VISIBILITY_PRESET hidden)
  list(APPEND tsb_fixture_targets fixture_${fixture})
endforeach()
# Not a shared library at all.
file(MAKE_DIRECTORY ${TSB_FIXTURE_DIR}/not_a_library)
file(WRITE ${TSB_FIXTURE_DIR}/not_a_library/libfixture_not_a_library.so
     "This is a text file, not an ELF shared object. It is long enough that the\ndynamic loader reads its header and rejects it for what it is.\n")

add_executable(tsbridge_loader_tests ${CMAKE_CURRENT_LIST_DIR}/loader_test.cc
               ${PROJECT_SOURCE_DIR}/tests/testing/abi_test.cc)
tsb_build_paths(tsbridge_loader_tests TSB_FIXTURE_DIR "${TSB_FIXTURE_DIR}"
  TSB_SPARSE_PLUGIN "$<TARGET_FILE:tsbridge_plugin_sparse>")
target_link_libraries(tsbridge_loader_tests PRIVATE tsbridge_internal tsb_test_main)
add_dependencies(tsbridge_loader_tests ${tsb_fixture_targets} tsbridge_plugin_sparse)
tsb_add_gtest(tsbridge_loader_tests PROCESS_PER_TEST)

# tsb_plugin_defer_bundled (deferred_test.cc): each test a new process, with
# the bundled plugins and their index built.
add_executable(tsbridge_deferred_plugin_tests ${CMAKE_CURRENT_LIST_DIR}/deferred_test.cc
               ${PROJECT_SOURCE_DIR}/tests/testing/abi_test.cc)
target_link_libraries(tsbridge_deferred_plugin_tests PRIVATE tsbridge_internal tsb_test_main)
add_dependencies(tsbridge_deferred_plugin_tests tsbridge_plugin_index_json)
add_dependencies(tsbridge_loader_tests tsbridge_plugin_index_json)
tsb_add_gtest(tsbridge_deferred_plugin_tests PROCESS_PER_TEST)
