# The Python host's tests (hosts/python, docs/python.md), run by ctest with
# Debian's python3-pytest on ${TSB_PYTHON}. Included from tests/CMakeLists.txt.
if(NOT TARGET tsbridge_python)
  return()  # not built (no Python headers): hosts/python said why
endif()

# Its sources include tsbridge.h and no LibTorch or core header.
add_test(NAME python_includes
  COMMAND ${TSB_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_includes.py
          ${PROJECT_SOURCE_DIR}/hosts/python/src)

# The corpus against PyTorch, the kinds, the API; -p no:cacheprovider keeps
# pytest from writing into the source tree.
add_test(NAME python_host
  COMMAND ${TSB_PYTHON} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_LIST_DIR})
set_tests_properties(python_host PROPERTIES
  ENVIRONMENT "PYTHONPATH=${TSB_PYTHON_DIR};TSB_PY_TEST_WORK=${CMAKE_CURRENT_BINARY_DIR}/python_work;TSB_EXPORT_FIXTURES=${TSB_EXPORT_FIXTURES};TSB_VERSION_FIXTURES=${TSB_VERSION_FIXTURES};TSB_OTHER_TORCH_PLUGIN=${TSB_OTHER_TORCH_PLUGIN};TSB_SDK_TEST_PLUGIN_PATH=$<TARGET_FILE:tsbridge_sdk_test_plugin>"
  TIMEOUT 600)
tsb_python_sanitizer_env(python_host)

# The same tests with the torch fast path off (docs/python.md): tensors cross
# as DLPack, as they do where the companion tsbridge._torch is not built.
if(TARGET tsbridge_python_torch)
  add_test(NAME python_host_dlpack
    COMMAND ${TSB_PYTHON} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_LIST_DIR})
  set_tests_properties(python_host_dlpack PROPERTIES
    ENVIRONMENT "PYTHONPATH=${TSB_PYTHON_DIR};TSB_PYTHON_NO_TORCH_FASTPATH=1;TSB_PY_TEST_WORK=${CMAKE_CURRENT_BINARY_DIR}/python_work_dlpack;TSB_EXPORT_FIXTURES=${TSB_EXPORT_FIXTURES};TSB_VERSION_FIXTURES=${TSB_VERSION_FIXTURES};TSB_OTHER_TORCH_PLUGIN=${TSB_OTHER_TORCH_PLUGIN};TSB_SDK_TEST_PLUGIN_PATH=$<TARGET_FILE:tsbridge_sdk_test_plugin>"
    TIMEOUT 600)
  tsb_python_sanitizer_env(python_host_dlpack)
endif()

# pip installs the built package into a fresh directory, without network.
add_test(NAME python_install
  COMMAND ${TSB_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/install_check.py ${TSB_PYTHON_DIR}
          ${CMAKE_CURRENT_BINARY_DIR}/python_install)
set_tests_properties(python_install PROPERTIES TIMEOUT 300)
