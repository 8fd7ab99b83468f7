# The no-escape guarantee from the sources: every exported tsb_* function is
# declared in tsbridge.h and runs inside tsb::abi::Guard (or is listed, with
# its reason, as unable to throw). The plugin side is ThrowingPluginTest.
add_test(NAME no_escape
  COMMAND ${TSB_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/no_escape_check.py
          ${PROJECT_SOURCE_DIR}/sdk/include/tsbridge/tsbridge.h $<TARGET_FILE:tsbridge>
          ${PROJECT_SOURCE_DIR}/core)
