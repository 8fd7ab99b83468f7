# cmake -P script: installs the build tree into a fresh prefix, configures
# and builds examples/plugin against it out of tree, and runs its host.
# Inputs: BUILD_DIR, SOURCE_DIR, WORK_DIR.
file(REMOVE_RECURSE ${WORK_DIR})
include(${CMAKE_CURRENT_LIST_DIR}/run_step.cmake)

run("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
run("configure" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/plugin -B ${WORK_DIR}/build
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
run("build" ${CMAKE_COMMAND} --build ${WORK_DIR}/build -j 2)
run("run" ${WORK_DIR}/build/mysparse_host ${WORK_DIR}/build/mysparse.so)
message(STATUS "host printed:\n${last_output}")
foreach(expected "nnz = 4" "row_counts = [2, 0, 1, 1]" "relabelled = [0, 0, 1]"
                 "mysparse::summarize(): argument 'num_rows': expected int, got str \"4\""
                 "mysparse::summarize(): the matrix must not be empty" "ok")
  string(FIND "${last_output}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the host did not print \"${expected}\"")
  endif()
endforeach()
