# run(<what> <command>...): one step of a cmake -P script that builds an
# example out of tree; fails the script with the step's output, and leaves
# its stdout in `last_output`. Included by out_of_tree.cmake and
# tests/lltm/build_lltm.cmake.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${what} failed (${result}):\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok")
  set(last_output "${out}" PARENT_SCOPE)
endfunction()
