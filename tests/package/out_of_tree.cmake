# cmake -P script: installs the build tree into a fresh prefix, configures
# and builds examples/plugin against it out of tree, and runs its host; then
# compiles examples/demo.c as docs/hosts.md says, against the install (with
# pkg-config) and against the build tree, and runs both.
# Inputs: BUILD_DIR, SOURCE_DIR, WORK_DIR, C_COMPILER, LIBDIR (CMAKE_INSTALL_LIBDIR:
# lib, or lib/x86_64-linux-gnu in a Debian package build).
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

# A C host, as docs/hosts.md compiles one.
set(demo ${SOURCE_DIR}/examples/demo.c)
run("pkg-config" ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${WORK_DIR}/prefix/${LIBDIR}/pkgconfig
    pkg-config --cflags --libs tsbridge)
separate_arguments(pc_flags UNIX_COMMAND "${last_output}")
run("demo.c against the install" ${C_COMPILER} -std=c99 ${demo} ${pc_flags}
    -Wl,-rpath,${WORK_DIR}/prefix/${LIBDIR} -o ${WORK_DIR}/demo_installed)
run("demo.c against the build tree" ${C_COMPILER} -std=c99 ${demo} -I${SOURCE_DIR}/sdk/include
    -L${BUILD_DIR}/lib -ltsbridge -Wl,-rpath,${BUILD_DIR}/lib -o ${WORK_DIR}/demo_build_tree)
foreach(demo_binary demo_installed demo_build_tree)
  run("run ${demo_binary}" ${WORK_DIR}/${demo_binary})
  string(FIND "${last_output}" "weights share the host buffer (zero copy): yes" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${demo_binary} printed:\n${last_output}")
  endif()
endforeach()
