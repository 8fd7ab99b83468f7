# libFuzzer targets (TSB_FUZZ, clang; the sanitizer stage builds them with
# address and undefined) and one bounded run of each as a ctest test. The
# seed corpora are written at build time by make_seeds.py.
#
# The ctest runs are deterministic: a fixed seed, a fixed number of runs
# (10-30 s each here) and no address randomization (setarch -R), because
# Abseil's hash tables salt their hashes with addresses: with ASLR, two runs
# of one binary cover different edges and take different paths. So a CI
# failure replays locally, from a checkout at the same path.
# TSB_FUZZ_SECONDS caps a slow machine. Longer, seeded-at-random runs are a
# local job (docs/reliability.md).
set(TSB_FUZZ_SECONDS 60 CACHE STRING "At most this long per fuzz target in ctest")
set(TSB_FUZZ_SEED 1 CACHE STRING "libFuzzer seed of the ctest runs")
set(TSB_FUZZ_LAUNCHER "")
find_program(TSB_SETARCH setarch)
if(TSB_SETARCH)
  execute_process(COMMAND ${TSB_SETARCH} ${CMAKE_HOST_SYSTEM_PROCESSOR} -R true
                  RESULT_VARIABLE setarch_failed OUTPUT_QUIET ERROR_QUIET)
  if(NOT setarch_failed)
    set(TSB_FUZZ_LAUNCHER ${TSB_SETARCH} ${CMAKE_HOST_SYSTEM_PROCESSOR} -R)
  endif()
endif()
if(NOT TSB_FUZZ_LAUNCHER)
  message(STATUS "tsbridge: setarch -R unavailable: fuzz runs in ctest vary with ASLR")
endif()
set(TSB_FUZZ_DIR ${CMAKE_CURRENT_BINARY_DIR}/fuzz)
add_custom_command(
  OUTPUT ${TSB_FUZZ_DIR}/seeds/json/seed00
  COMMAND ${TSB_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/make_seeds.py ${TSB_FUZZ_DIR}/seeds
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/make_seeds.py ${TSB_TEST_FIXTURES_PY}
  COMMENT "Writing the fuzz seed corpora"
  VERBATIM)
add_custom_target(tsb_fuzz_seeds DEPENDS ${TSB_FUZZ_DIR}/seeds/json/seed00)

# tsb_fuzz_target(NAME RUNS): the target tsb_fuzz_NAME from NAME_fuzzer.cc
# and its bounded ctest run fuzz_NAME.
function(tsb_fuzz_target name runs)
  set(target tsb_fuzz_${name})
  add_executable(${target} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${name}_fuzzer.cc)
  # torch: no_backtraces.h sets LibTorch's stack-trace fetcher.
  target_link_libraries(${target} PRIVATE tsbridge torch)
  # The checkout's root: tests/testing/kit_build_access.h (kit_build).
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_options(${target} PRIVATE -fsanitize=fuzzer)
  add_dependencies(${target} tsb_fuzz_seeds tsbridge_plugin_tuple tsbridge_plugin_optional)
  # New inputs go to corpus/<name>; crashes to artifacts/ (each becomes a
  # test in regression_test.cc).
  file(MAKE_DIRECTORY ${TSB_FUZZ_DIR}/corpus/${name} ${TSB_FUZZ_DIR}/artifacts)
  add_test(NAME fuzz_${name}
    COMMAND ${TSB_FUZZ_LAUNCHER} $<TARGET_FILE:${target}> -seed=${TSB_FUZZ_SEED} -runs=${runs} -max_total_time=${TSB_FUZZ_SECONDS}
            -timeout=60 -print_final_stats=1
            -artifact_prefix=${TSB_FUZZ_DIR}/artifacts/${name}-
            ${TSB_FUZZ_DIR}/corpus/${name} ${TSB_FUZZ_DIR}/seeds/${name})
  set_tests_properties(fuzz_${name} PROPERTIES LABELS fuzz
                       TIMEOUT 300)
endfunction()

foreach(spec json:30000 type_string:20000 pickle:10000 abi_sequence:100000
             module_load:2000 host_conversion:30000 kit_build:30000)
  string(REPLACE ":" ";" spec ${spec})
  list(GET spec 0 name)
  list(GET spec 1 runs)
  tsb_fuzz_target(${name} ${runs})
endforeach()
# tsb serve's request reader and its HTTP/1.1 layer, where the server is
# built (with the command line: TSB_BUILD_APPS).
if(TARGET tsbridge_serve)
  tsb_fuzz_target(serve_request 20000)
  target_link_libraries(tsb_fuzz_serve_request PRIVATE tsbridge_serve)
  tsb_fuzz_target(serve_http 20000)
  target_link_libraries(tsb_fuzz_serve_http PRIVATE tsbridge_serve)
endif()
# The pickle target writes archives with LibTorch's own zip writer. LibTorch
# has no frame pointers: only the slow unwinder shows the LibTorch frame
# that lsan.supp names.
set_tests_properties(fuzz_pickle PROPERTIES
  ENVIRONMENT_MODIFICATION "ASAN_OPTIONS=string_append::fast_unwind_on_malloc=0")
# The module target writes archives the same way. Its leaks inside
# LibTorch's importer are deeper than the default 30 frames: lsan.supp
# matches them by torch::jit::load, which only a longer stack shows.
set_tests_properties(fuzz_module_load PROPERTIES
  ENVIRONMENT_MODIFICATION
  "ASAN_OPTIONS=string_append::fast_unwind_on_malloc=0:malloc_context_size=100")
