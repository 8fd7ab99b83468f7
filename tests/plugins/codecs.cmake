# GoogleTest suites for the bundled plugins (plugins/tuple, plugins/optional).
# Included from tests/CMakeLists.txt; paths are relative to this file so it
# works from any including directory. The tests load the real plugin files
# with tsb_plugin_load(), so they depend on the plugin targets.
include(GoogleTest)

add_executable(tsbridge_plugin_tests
  ${CMAKE_CURRENT_LIST_DIR}/tuple_codec_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/named_tuple_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/optional_codec_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/object_optional_test.cc
  ${PROJECT_SOURCE_DIR}/tests/core/abi/items_fast_path_test.cc
  ${PROJECT_SOURCE_DIR}/tests/testing/abi_test.cc
)
target_link_libraries(tsbridge_plugin_tests PRIVATE tsbridge_internal tsb_test_main)
tsb_build_paths(tsbridge_plugin_tests
  TSB_TUPLE_PLUGIN_PATH "$<TARGET_FILE:tsbridge_plugin_tuple>"
  TSB_OPTIONAL_PLUGIN_PATH "$<TARGET_FILE:tsbridge_plugin_optional>"
  TSB_ENUM_OBJECT_FIXTURE "${TSB_ENUM_OBJECT_FIXTURE}")
add_dependencies(tsbridge_plugin_tests tsbridge_plugin_tuple tsbridge_plugin_optional)
# Optional attributes of TorchScript classes (tests/CMakeLists.txt makes it).
add_dependencies(tsbridge_plugin_tests tsbridge_enum_object_fixture)
tsb_add_gtest(tsbridge_plugin_tests)
