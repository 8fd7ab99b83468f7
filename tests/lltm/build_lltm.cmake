# cmake -P script: installs the build tree into a fresh prefix, then
# configures and builds examples/lltm against it out of tree, as a plugin
# author would. Inputs: BUILD_DIR, SOURCE_DIR, WORK_DIR.
file(REMOVE_RECURSE ${WORK_DIR})
include(${CMAKE_CURRENT_LIST_DIR}/../package/run_step.cmake)

run("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
run("configure" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/lltm -B ${WORK_DIR}/build
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
run("build" ${CMAKE_COMMAND} --build ${WORK_DIR}/build -j 2)
