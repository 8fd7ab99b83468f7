# The ABI promise checked by tools (docs/install.md, "The ABI check"); not in
# a sanitizer build, whose library is not the one that ships.
#   exports: libtsbridge.so exports what tsbridge.h and the plugin SDK
#     declare, and the internals core/tsbridge.map lists for the tests (nm -D);
#   *_selftest: each check refusing broken copies.
if(TSB_SANITIZE)
  return()
endif()
add_test(NAME exports
  COMMAND ${TSB_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/exports_check.py $<TARGET_FILE:tsbridge>
          ${PROJECT_SOURCE_DIR}/sdk/include ${PROJECT_SOURCE_DIR}/core/tsbridge.map)
add_test(NAME exports_selftest
  COMMAND ${TSB_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/exports_check.py --self-test
          --cxx ${CMAKE_CXX_COMPILER})
