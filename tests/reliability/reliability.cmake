# The no-escape guarantee from the sources: every exported tsb_* function is
# declared in tsbridge.h and runs inside tsb::abi::Guard (or is listed, with
# its reason, as unable to throw). The plugin side is ThrowingPluginTest.
add_test(NAME no_escape
  COMMAND ${TSB_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/no_escape_check.py
          ${PROJECT_SOURCE_DIR}/sdk/include/tsbridge/tsbridge.h $<TARGET_FILE:tsbridge>
          ${PROJECT_SOURCE_DIR}/core)
# The folders under core/ are layers, in the order the script lists: an
# include that reaches a folder above its own (an SDK header counts as the
# folder that implements it), a C ABI call from below core/abi, a cycle, a
# load-time initializer outside core/abi/library_start.cc, a namespace that
# is not the folder's, a core file missing from docs/architecture.md's table
# or a path listed there that does not exist fails.
# core_layers_selftest breaks each rule in a small tree and expects a failure.
add_test(NAME core_layers
  COMMAND ${TSB_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/core_layers_check.py
          ${PROJECT_SOURCE_DIR}/core ${PROJECT_SOURCE_DIR}/sdk/include
          ${PROJECT_SOURCE_DIR}/docs/architecture.md)
add_test(NAME core_layers_selftest
  COMMAND ${TSB_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/core_layers_check.py --self-test)
# Every page that states the current host ABI version ("the current ABI
# 1.9", or the version macros quoted) says what tsbridge.h says (the rule is
# in docs/abi.md, "Versions"); abi_version_selftest shows each rule failing.
add_test(NAME abi_version
  COMMAND ${TSB_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/abi_version_check.py
          ${PROJECT_SOURCE_DIR}/sdk/include/tsbridge/tsbridge.h ${PROJECT_SOURCE_DIR})
add_test(NAME abi_version_selftest
  COMMAND ${TSB_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/abi_version_check.py --self-test)

# A Python test in the sanitizer build runs in Debian's uninstrumented
# interpreter with the ASan runtime preloaded (cmake/sanitize.cmake); in
# other builds this does nothing. Used by the python_* and sparse_*_py tests.
function(tsb_python_sanitizer_env)
  if(NOT TSB_SANITIZER_PY_ENV)
    return()
  endif()
  foreach(test ${ARGN})
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT ${TSB_SANITIZER_PY_ENV})
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT_MODIFICATION
                 ${TSB_SANITIZER_PY_OPTIONS})
  endforeach()
endfunction()

# Hostile inputs at the C ABI (hostile/hostile_input_test.cc): module files
# made by make_hostile.py at build time from a module PyTorch saves.
set(TSB_HOSTILE_DIR ${CMAKE_CURRENT_BINARY_DIR}/hostile)
add_custom_command(
  OUTPUT ${TSB_HOSTILE_DIR}/good.pt
  COMMAND ${TSB_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/hostile/make_hostile.py ${TSB_HOSTILE_DIR}
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/hostile/make_hostile.py
  COMMENT "Writing the hostile module files")
add_custom_target(tsb_hostile_files DEPENDS ${TSB_HOSTILE_DIR}/good.pt)
# Hostile operator libraries (hostile/library_hostile_test.cc): malformed
# copies of the loader tests' fixture library, made at test time, and a
# library with an unresolved symbol.
add_library(fixture_unresolved_library MODULE
            ${CMAKE_CURRENT_LIST_DIR}/hostile/unresolved_library.cc)
set_target_properties(fixture_unresolved_library PROPERTIES
  LIBRARY_OUTPUT_DIRECTORY ${TSB_HOSTILE_DIR}/unresolved)
add_executable(tsbridge_hostile_tests ${CMAKE_CURRENT_LIST_DIR}/hostile/hostile_input_test.cc
               ${CMAKE_CURRENT_LIST_DIR}/hostile/library_hostile_test.cc)
target_link_libraries(tsbridge_hostile_tests PRIVATE tsbridge tsb_test_main)
tsb_build_paths(tsbridge_hostile_tests TSB_HOSTILE_DIR "${TSB_HOSTILE_DIR}"
  TSB_OPLIB_FIXTURE "$<TARGET_FILE:fixture_oplib>"
  TSB_UNRESOLVED_LIBRARY "$<TARGET_FILE:fixture_unresolved_library>"
  TSB_PLUGIN_FIXTURE "$<TARGET_FILE:fixture_good>"
  TSB_NOT_A_LIBRARY "${TSB_FIXTURE_DIR}/not_a_library/libfixture_not_a_library.so")
add_dependencies(tsbridge_hostile_tests tsb_hostile_files tsbridge_plugin_tuple
                 tsbridge_plugin_optional fixture_oplib fixture_unresolved_library fixture_good)
tsb_add_gtest(tsbridge_hostile_tests)

# The Python host against PyTorch (python/test_differential.py, hypothesis:
# a fixed seed, TSB_DIFF_EXAMPLES examples per property), its hostile inputs
# (python/test_hostile.py, with the tsb command line when built) and a short
# soak (python/soak.py; TSB_SOAK_OPS operations, 1M by hand).
# What the Python and R soaks load while they run (python/soak.py, r/soak.R):
# the good ones succeed once and are no-ops after; the bad ones must fail
# every time.
set(TSB_SOAK_LOADS
    --plugin $<TARGET_FILE:tsbridge_plugin_sparse>
    --bad-plugin $<TARGET_FILE:fixture_register_throws>
    --bad-plugin $<TARGET_FILE:fixture_fails_halfway>
    --bad-plugin $<TARGET_FILE:fixture_invalid_type>
    --bad-plugin ${TSB_FIXTURE_DIR}/not_a_library/libfixture_not_a_library.so
    --library torchvision --library $<TARGET_FILE:fixture_oplib>
    --bad-library ${TSB_FIXTURE_DIR}/not_a_library/libfixture_not_a_library.so
    --bad-library $<TARGET_FILE:fixture_unresolved_library>
    --bad-library $<TARGET_FILE:fixture_good>)
if(NOT TARGET tsbridge_python)
  return()
endif()
set(TSB_DIFF_EXAMPLES 100 CACHE STRING "hypothesis examples per differential property in ctest")
set(TSB_SOAK_OPS 20000 CACHE STRING "operations of the Python soak in ctest")
set(tsb_py_env "PYTHONPATH=${TSB_PYTHON_DIR}" "TSB_DIFF_EXAMPLES=${TSB_DIFF_EXAMPLES}"
    "TSB_DIFF_WORK=${CMAKE_CURRENT_BINARY_DIR}/differential"
    "TSB_OPLIB_FIXTURE=$<TARGET_FILE:fixture_oplib>")
if(TARGET tsb)
  list(APPEND tsb_py_env "TSB_CLI=$<TARGET_FILE:tsb>")
endif()
foreach(suite differential hostile)
  add_test(NAME python_${suite}
    COMMAND ${TSB_PYTHON} -m pytest -q -p no:cacheprovider -rs
            ${CMAKE_CURRENT_LIST_DIR}/python/test_${suite}.py)
  set_tests_properties(python_${suite} PROPERTIES ENVIRONMENT "${tsb_py_env}" TIMEOUT 600
                       LABELS python)
endforeach()
# Under ASan the quarantine keeps freed memory (up to 256 MB), so the
# resident size says nothing about leaks there: the curve is printed, not
# bounded, and LeakSanitizer checks instead.
set(tsb_soak_bound --tolerance 0.05)
if(TSB_SANITIZE)
  set(tsb_soak_bound --tolerance 100)
endif()
add_test(NAME python_soak
  COMMAND ${TSB_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/python/soak.py --ops ${TSB_SOAK_OPS}
          ${tsb_soak_bound} ${TSB_SOAK_LOADS})
set_tests_properties(python_soak PROPERTIES ENVIRONMENT "${tsb_py_env}" TIMEOUT 600
                     LABELS python)
tsb_python_sanitizer_env(python_differential python_hostile python_soak)
