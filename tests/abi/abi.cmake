# The ABI promise checked by tools (docs/install.md, "The ABI check"); not in
# a sanitizer build, whose library is not the one that ships.
#   exports: libtsbridge.so exports what tsbridge.h and the plugin SDK
#     declare, and the internals core/tsbridge.map lists for the tests (nm -D);
#   abidiff_host, abidiff_plugin: the host ABI (the library and tsbridge.h's
#     types) and the plugin ABI (plugin.h's types) against their baselines in
#     sdk/abi/ (abidw, abidiff; the rule is in abi_check.py);
#   *_selftest: each check refusing broken copies.
if(TSB_SANITIZE)
  return()
endif()
find_program(TSB_ABIDIFF abidiff)
find_program(TSB_ABIDW abidw)
if(NOT TSB_ABIDIFF OR NOT TSB_ABIDW)
  message(STATUS "tsbridge: no abidw/abidiff (abigail-tools): the abidiff_* tests are not registered")
else()
  set(tsb_abi_check ${TSB_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/abi_check.py)
  set(tsb_abi_args --include ${PROJECT_SOURCE_DIR}/sdk/include
      --baselines ${PROJECT_SOURCE_DIR}/sdk/abi --cc ${CMAKE_C_COMPILER})
  add_test(NAME abidiff_host COMMAND ${tsb_abi_check} check tsbridge ${tsb_abi_args}
                                     --library $<TARGET_FILE:tsbridge>)
  add_test(NAME abidiff_plugin COMMAND ${tsb_abi_check} check plugin ${tsb_abi_args})
  add_test(NAME abidiff_selftest COMMAND ${tsb_abi_check} --self-test
           --include ${PROJECT_SOURCE_DIR}/sdk/include --cc ${CMAKE_C_COMPILER})
endif()
add_test(NAME exports
  COMMAND ${TSB_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/exports_check.py $<TARGET_FILE:tsbridge>
          ${PROJECT_SOURCE_DIR}/sdk/include ${PROJECT_SOURCE_DIR}/core/tsbridge.map)
add_test(NAME exports_selftest
  COMMAND ${TSB_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/exports_check.py --self-test
          --cxx ${CMAKE_CXX_COMPILER})
