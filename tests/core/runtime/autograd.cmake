# The autograd and module-state suites: gradients through the host ABI
# against PyTorch's, train/eval, parameters, attributes. The module and
# PyTorch's expected gradients are written at build time by ${TSB_PYTHON}
# (make_autograd_fixtures.py); without torch the build fails with its message.
include(GoogleTest)

set(TSB_AUTOGRAD_FIXTURES ${CMAKE_CURRENT_BINARY_DIR}/autograd_fixtures)
add_custom_command(
  OUTPUT ${TSB_AUTOGRAD_FIXTURES}/net.pt ${TSB_AUTOGRAD_FIXTURES}/expected.pt
         ${TSB_AUTOGRAD_FIXTURES}/other_state.pt ${TSB_AUTOGRAD_FIXTURES}/state_keys.txt
         ${TSB_AUTOGRAD_FIXTURES}/graph_for.txt
  COMMAND ${TSB_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/make_autograd_fixtures.py ${TSB_AUTOGRAD_FIXTURES}
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/make_autograd_fixtures.py ${TSB_TEST_FIXTURES_PY}
  COMMENT "Scripting the autograd test module and its gradients with ${TSB_PYTHON}"
  VERBATIM)
add_custom_target(tsbridge_autograd_fixtures
                  DEPENDS ${TSB_AUTOGRAD_FIXTURES}/net.pt ${TSB_AUTOGRAD_FIXTURES}/expected.pt)

add_executable(tsbridge_autograd_tests
  ${CMAKE_CURRENT_LIST_DIR}/autograd_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/module_state_test.cc
  ${PROJECT_SOURCE_DIR}/tests/testing/abi_test.cc
)
target_link_libraries(tsbridge_autograd_tests PRIVATE tsbridge_internal tsb_test_main)
tsb_build_paths(tsbridge_autograd_tests
  TSB_AUTOGRAD_FIXTURES "${TSB_AUTOGRAD_FIXTURES}")
add_dependencies(tsbridge_autograd_tests tsbridge_autograd_fixtures tsbridge_plugin_tuple
                 tsbridge_plugin_optional)
tsb_add_gtest(tsbridge_autograd_tests)
