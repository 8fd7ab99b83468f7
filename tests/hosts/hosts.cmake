# Across hosts: the same bad input gives the same message from C, tsb,
# Python and R (same_message_test.py). Included from tests/CMakeLists.txt
# once tsb exists; needs the Python host and the R host's installed package,
# so it is skipped where either is not built, and in the sanitizer build
# (each host's own suite runs there).
if(TSB_SANITIZE OR NOT TARGET tsbridge_python OR NOT TSB_RSCRIPT)
  return()
endif()
add_executable(tsb_call_from_c ${CMAKE_CURRENT_LIST_DIR}/call_from_c.c)
set_target_properties(tsb_call_from_c PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON)
target_link_libraries(tsb_call_from_c PRIVATE tsbridge)
add_test(NAME hosts_same_message
  COMMAND ${TSB_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/same_message_test.py
          $<TARGET_FILE:tsb> $<TARGET_FILE:tsb_call_from_c>
          ${CMAKE_CURRENT_BINARY_DIR}/hosts_work)
set_tests_properties(hosts_same_message PROPERTIES
  ENVIRONMENT "PYTHONPATH=${TSB_PYTHON_DIR};R_LIBS=${TSB_R_LIB};TSB_RSCRIPT=${TSB_RSCRIPT}"
  FIXTURES_REQUIRED tsb_r_lib)

# Seeding from C: aten::manual_seed, then dropout against PyTorch's output.
add_test(NAME hosts_c_seed
  COMMAND ${TSB_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/c_seed_test.py $<TARGET_FILE:tsb_call_from_c>
          ${CMAKE_CURRENT_BINARY_DIR}/c_seed)
