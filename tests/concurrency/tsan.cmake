# The registries under ThreadSanitizer: a TSan copy of the core, a fixture
# plugin linked to it, and the test. LibTorch itself is not instrumented;
# the test exercises only tsbridge's own synchronisation.
option(TSB_TSAN_TESTS "Build the ThreadSanitizer registry test" ON)
if(TSB_TSAN_TESTS)
  set(tsan_flags -fsanitize=thread -O1 -g)
  tsbridge_core_library(tsbridge_tsan)
  target_compile_options(tsbridge_tsan PRIVATE ${tsan_flags})
  target_link_options(tsbridge_tsan PRIVATE -fsanitize=thread)
  set_target_properties(tsbridge_tsan PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tsan)

  add_library(fixture_good_tsan MODULE plugins/fixtures/fixture_plugin.cc)
  target_compile_definitions(fixture_good_tsan PRIVATE FIXTURE_GOOD FIXTURE_NAME="good")
  target_compile_options(fixture_good_tsan PRIVATE ${tsan_flags})
  target_include_directories(fixture_good_tsan PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(fixture_good_tsan PRIVATE tsbridge_tsan torch absl::status absl::statusor)
  target_link_options(fixture_good_tsan PRIVATE -fsanitize=thread)
  set_target_properties(fixture_good_tsan PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tsan CXX_VISIBILITY_PRESET hidden)

  add_executable(tsbridge_tsan_tests concurrency/registry_tsan_test.cc)
  target_compile_options(tsbridge_tsan_tests PRIVATE ${tsan_flags})
  target_compile_definitions(tsbridge_tsan_tests PRIVATE
    TSB_TSAN_FIXTURE="$<TARGET_FILE:fixture_good_tsan>")
  target_include_directories(tsbridge_tsan_tests PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(tsbridge_tsan_tests PRIVATE tsbridge_tsan torch absl::status
                        absl::statusor GTest::gtest_main)
  target_link_options(tsbridge_tsan_tests PRIVATE -fsanitize=thread)
  add_dependencies(tsbridge_tsan_tests fixture_good_tsan)
  add_test(NAME registry_tsan COMMAND tsbridge_tsan_tests)
  set_tests_properties(registry_tsan PROPERTIES
    ENVIRONMENT "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1")
endif()
