# Operator libraries (TORCH_LIBRARY shared libraries, tsb_library_load): a
# fixture library registering tsbfixture::twice, and the loader's tests.
add_library(fixture_oplib MODULE ${CMAKE_CURRENT_LIST_DIR}/fixtures/fixture_oplib.cc)
target_link_libraries(fixture_oplib PRIVATE torch)
set_target_properties(fixture_oplib PROPERTIES
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fixtures/oplib)

add_executable(tsbridge_library_tests ${CMAKE_CURRENT_LIST_DIR}/library_loader_test.cc
               ${PROJECT_SOURCE_DIR}/tests/testing/abi_test.cc)
tsb_build_paths(tsbridge_library_tests
  TSB_OPLIB_FIXTURE "$<TARGET_FILE:fixture_oplib>"
  TSB_NOT_A_LIBRARY "${CMAKE_CURRENT_BINARY_DIR}/fixtures/not_a_library/libfixture_not_a_library.so"
  TSB_SPARSE_PLUGIN "$<TARGET_FILE:tsbridge_plugin_sparse>")
target_link_libraries(tsbridge_library_tests PRIVATE tsbridge_internal tsb_test_main)
add_dependencies(tsbridge_library_tests fixture_oplib tsbridge_plugin_sparse)
tsb_add_gtest(tsbridge_library_tests PROCESS_PER_TEST)
