# GoogleTest suites for the runtime (core/runtime/): modules, objects,
# operators, tracing, threads. Included from tests/CMakeLists.txt; paths are
# relative to this file.
#
# The modules are scripted at build time by PyTorch itself, with
# ${TSB_PYTHON}; without an importable torch the script exits non-zero and
# the build fails with its message (never a silent skip).
include(GoogleTest)

set(TSB_RUNTIME_FIXTURES ${CMAKE_CURRENT_BINARY_DIR}/runtime_fixtures)
add_custom_command(
  OUTPUT ${TSB_RUNTIME_FIXTURES}/calls.pt
  COMMAND ${TSB_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/make_fixtures.py ${TSB_RUNTIME_FIXTURES}
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/make_fixtures.py ${TSB_TEST_FIXTURES_PY}
  COMMENT "Scripting the runtime test modules with ${TSB_PYTHON}"
  VERBATIM)
add_custom_target(tsbridge_runtime_fixtures DEPENDS ${TSB_RUNTIME_FIXTURES}/calls.pt)

add_executable(tsbridge_runtime_tests
  ${CMAKE_CURRENT_LIST_DIR}/../call/call_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/module_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/module_scan_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/object_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/operators_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/op_cache_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/threads_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/trace_test.cc
  ${PROJECT_SOURCE_DIR}/tests/testing/abi_test.cc
)
target_link_libraries(tsbridge_runtime_tests PRIVATE tsbridge_internal GTest::gmock
                      tsb_test_main)
tsb_build_paths(tsbridge_runtime_tests
  TSB_RUNTIME_FIXTURES "${TSB_RUNTIME_FIXTURES}"
  TSB_PYTHON "${TSB_PYTHON}")
add_dependencies(tsbridge_runtime_tests tsbridge_runtime_fixtures
                 tsbridge_plugin_tuple tsbridge_plugin_optional)
tsb_add_gtest(tsbridge_runtime_tests)
