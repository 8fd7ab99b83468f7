# The registries and the runtime under ThreadSanitizer: a TSan copy of the
# core, copies of the bundled and fixture plugins linked to it, the registry
# test and the concurrency soak. LibTorch itself is not instrumented; the
# tests exercise tsbridge's own synchronisation.
option(TSB_TSAN_TESTS "Build the ThreadSanitizer tests" ON)
if(TSB_TSAN_TESTS)
  set(tsan_flags -fsanitize=thread -O1 -g1)
  set(tsan_dir ${CMAKE_BINARY_DIR}/tsan)
  tsbridge_core_library(tsbridge_tsan)
  target_compile_options(tsbridge_tsan PRIVATE ${tsan_flags})
  target_link_options(tsbridge_tsan PRIVATE -fsanitize=thread)
  set_target_properties(tsbridge_tsan PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${tsan_dir})

  # A plugin linked to the TSan core (a plugin linked to libtsbridge.so would
  # bring a second core into the process).
  function(tsbridge_tsan_plugin target)
    cmake_parse_arguments(PARSE_ARGV 1 ARG "" "OUTPUT_NAME;DIRECTORY" "SOURCES;DEFINES")
    add_library(${target} MODULE ${ARG_SOURCES})
    target_compile_definitions(${target} PRIVATE ${ARG_DEFINES})
    target_compile_options(${target} PRIVATE ${tsan_flags})
    target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
    target_link_libraries(${target} PRIVATE tsbridge_tsan torch Boost::headers absl::status
                          absl::statusor absl::strings absl::flat_hash_map)
    target_link_options(${target} PRIVATE -fsanitize=thread)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ARG_DIRECTORY}
      CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
    if(ARG_OUTPUT_NAME)
      set_target_properties(${target} PROPERTIES PREFIX "" OUTPUT_NAME ${ARG_OUTPUT_NAME})
    endif()
  endfunction()

  # The bundled plugins, where tsb_plugin_load_bundled looks next to the
  # TSan core (tsan/tsbridge/plugins/), from the bundled targets' sources.
  set(tsan_plugins)
  foreach(name tuple optional)
    get_target_property(sources tsbridge_plugin_${name} SOURCES)
    get_target_property(source_dir tsbridge_plugin_${name} SOURCE_DIR)
    list(TRANSFORM sources PREPEND ${source_dir}/)
    tsbridge_tsan_plugin(tsan_plugin_${name} OUTPUT_NAME ${name}
      DIRECTORY ${tsan_dir}/tsbridge/plugins SOURCES ${sources})
    list(APPEND tsan_plugins tsan_plugin_${name})
  endforeach()
  # Fixtures: one that loads, three that must fail every time.
  foreach(fixture good register_throws fails_halfway invalid_type)
    string(TOUPPER ${fixture} define)
    tsbridge_tsan_plugin(fixture_${fixture}_tsan
      DIRECTORY ${tsan_dir}/fixtures/${fixture}
      SOURCES core/plugins/fixtures/fixture_plugin.cc
      DEFINES FIXTURE_${define} FIXTURE_NAME="${fixture}")
    list(APPEND tsan_plugins fixture_${fixture}_tsan)
  endforeach()

  add_executable(tsbridge_tsan_tests concurrency/registry_tsan_test.cc
                 concurrency/soak_tsan_test.cc)
  target_compile_options(tsbridge_tsan_tests PRIVATE ${tsan_flags})
  tsb_build_paths(tsbridge_tsan_tests
    TSB_TSAN_FIXTURE "$<TARGET_FILE:fixture_good_tsan>"
    TSB_SOAK_FIXTURES "${tsan_dir}/fixtures"
    TSB_SOAK_MODULE "${TSB_RUNTIME_FIXTURES}/calls.pt")
  target_include_directories(tsbridge_tsan_tests PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(tsbridge_tsan_tests PRIVATE tsbridge_tsan torch absl::status
                        absl::statusor nlohmann_json::nlohmann_json tsb_test_main)
  target_link_options(tsbridge_tsan_tests PRIVATE -fsanitize=thread)
  add_dependencies(tsbridge_tsan_tests ${tsan_plugins} tsbridge_runtime_fixtures)
  set(tsan_env "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1")
  add_test(NAME registry_tsan
    COMMAND tsbridge_tsan_tests --gtest_filter=RegistryConcurrencyTest.*)
  add_test(NAME concurrency_soak_tsan
    COMMAND tsbridge_tsan_tests --gtest_filter=ConcurrencySoak.*)
  set_tests_properties(registry_tsan concurrency_soak_tsan PROPERTIES ENVIRONMENT ${tsan_env})
  set_tests_properties(concurrency_soak_tsan PROPERTIES TIMEOUT 600)
endif()
