# The R host (hosts/r, docs/r.md) and the R package on the sparse plugin
# (examples/r-torchsparse): each installed into a build-local library with
# R CMD INSTALL -l, then its testthat suite; R CMD check of hosts/r.
# Included from tests/CMakeLists.txt; skipped when R is not installed
# (scripts/common.sh installs r-base-dev and the packages the tests use).
# In the sanitizer build (TSB_R_UNDER_ASAN, on by default): the package is
# installed without R's test load (a fresh R without the ASan runtime cannot
# load the instrumented library) and its tests and a short soak run in
# Debian's R with the runtime preloaded, memory errors and undefined
# behaviour fatal, and LeakSanitizer's check made before R exits
# (tests/reliability/sanitizers/r/Rprofile.R; docs/reliability.md, "The R host").
option(TSB_R_UNDER_ASAN "Run the R host's tests in the sanitizer build" ON)
if(TSB_SANITIZE AND NOT (TSB_R_UNDER_ASAN AND TSB_SANITIZER_PY_ENV))
  return()
endif()
find_program(TSB_R R)
find_program(TSB_RSCRIPT Rscript)
if(NOT TSB_R OR NOT TSB_RSCRIPT)
  message(STATUS "tsbridge: R not found, the R host's tests are skipped")
  return()
endif()

set(TSB_R_LIB ${CMAKE_CURRENT_BINARY_DIR}/r-lib)
set(TSB_R_WORK ${CMAKE_CURRENT_BINARY_DIR}/r-work)
set(TSB_R_ENV "TSB_BUILD_DIR=${PROJECT_BINARY_DIR}" "R_LIBS=${TSB_R_LIB}"
    "TSB_SOURCE_DIR=${PROJECT_SOURCE_DIR}" "TSB_PYTHON3=${TSB_PYTHON3}"
    "TSB_R_TEST_WORK=${TSB_R_WORK}/tests" "TSB_EXPORT_FIXTURES=${TSB_EXPORT_FIXTURES}"
    "TSB_VERSION_FIXTURES=${TSB_VERSION_FIXTURES}" "TSB_OTHER_TORCH_PLUGIN=${TSB_OTHER_TORCH_PLUGIN}"
    "TSB_TORCH_VERSION=${Torch_VERSION}")
# R CMD INSTALL compiles through ccache where the build does (R_MAKEVARS_USER
# puts it, with the build's ccache settings, before R's own C++17
# compiler): every test and the package build that installs the R host
# (debian/rules) compile the same sources.
if(TSB_CCACHE_ENV)
  execute_process(COMMAND ${TSB_R} CMD config CXX17 OUTPUT_VARIABLE tsb_r_cxx17
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE tsb_r_config_failed)
  if(NOT tsb_r_config_failed AND tsb_r_cxx17)
    set(TSB_R_CCACHE_MAKEVARS ${PROJECT_BINARY_DIR}/r-ccache.Makevars)
    list(JOIN TSB_CCACHE_SETTINGS " " tsb_settings)
    file(WRITE ${TSB_R_CCACHE_MAKEVARS}
         "CXX17 = env ${tsb_settings} ${CCACHE_PROGRAM} ${tsb_r_cxx17}\n")
    list(APPEND TSB_R_ENV "R_MAKEVARS_USER=${TSB_R_CCACHE_MAKEVARS}")
  endif()
endif()

# Its sources include tsbridge.h (and host/tsbridge.hpp, host/kit.hpp, host/call_plan.hpp,
# dlpack.h, R, cpp11), never
# LibTorch or the core.
add_test(NAME r_includes
  COMMAND ${TSB_PYTHON3} ${PROJECT_SOURCE_DIR}/hosts/python/tests/check_includes.py
          ${PROJECT_SOURCE_DIR}/hosts/r/src
          --allow cpp11.hpp R.h Rinternals.h Rversion.h R_ext/Rdynload.h R_ext/Altrep.h entry.h calls.h
                  tsbridge/host/kit.hpp tsbridge/host/call_plan.hpp)

add_test(NAME r_install
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/install_package.sh ${PROJECT_SOURCE_DIR}/hosts/r
          ${TSB_R_WORK}/install ${TSB_R_LIB})
set_tests_properties(r_install PROPERTIES FIXTURES_SETUP tsb_r_lib
  ENVIRONMENT "${TSB_R_ENV}" TIMEOUT 600)

add_test(NAME r_host
  COMMAND ${TSB_RSCRIPT} ${CMAKE_CURRENT_LIST_DIR}/run_tests.R tsbridge
          ${PROJECT_SOURCE_DIR}/hosts/r/tests/testthat)
set_tests_properties(r_host PROPERTIES FIXTURES_REQUIRED tsb_r_lib
  ENVIRONMENT "${TSB_R_ENV}" TIMEOUT 600)

# The conversion tests under gctorture(TRUE) (testthat/test-gctorture.R,
# docs/r.md "Memory safety"): every kind both ways and ALTREP arguments,
# with a collection at every allocation.
add_test(NAME r_host_gctorture
  COMMAND ${TSB_RSCRIPT} ${CMAKE_CURRENT_LIST_DIR}/run_tests.R tsbridge
          ${PROJECT_SOURCE_DIR}/hosts/r/tests/testthat gctorture)
set_tests_properties(r_host_gctorture PROPERTIES FIXTURES_REQUIRED tsb_r_lib
  ENVIRONMENT "${TSB_R_ENV};TSB_R_GCTORTURE=1" TIMEOUT 900)

# The R host soak (tests/reliability/r/soak.R, docs/reliability.md, "The R
# host soak"): module calls and conversions in a loop while plugins and
# operator libraries load; RSS bounded after warm-up, no handle left alive.
# Under ASan, whose quarantine holds freed memory, RSS is no measure: a
# short run with the bound off, LeakSanitizer checking instead.
set(TSB_R_SOAK_OPS 20000 CACHE STRING "operations of the R soak in ctest (1M by hand)")
set(tsb_r_soak_bound --ops ${TSB_R_SOAK_OPS} --tolerance 0.05)
if(TSB_SANITIZE)
  set(tsb_r_soak_bound --ops 2000 --tolerance 100)
endif()
add_test(NAME r_soak
  COMMAND ${TSB_RSCRIPT} ${PROJECT_SOURCE_DIR}/tests/reliability/r/soak.R
          ${tsb_r_soak_bound} ${TSB_SOAK_LOADS})
set_tests_properties(r_soak PROPERTIES FIXTURES_REQUIRED tsb_r_lib
  ENVIRONMENT "${TSB_R_ENV}" TIMEOUT 600)

if(TSB_SANITIZE)
  set_property(TEST r_install APPEND PROPERTY ENVIRONMENT "TSB_R_INSTALL_FLAGS=--no-test-load")
  # Rscript is a shell script: the preload reaches sed and uname too, so the
  # check at exit is off (their own reports would fail the test) and R's
  # profile runs it before R exits instead.
  foreach(test r_host r_host_gctorture r_soak)
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT "LD_PRELOAD=${TSB_ASAN_RUNTIME}"
      "TSB_LSAN_RUNTIME=${TSB_ASAN_RUNTIME}" "TSB_LSAN_BEFORE_EXIT=1"
      "R_PROFILE_USER=${PROJECT_SOURCE_DIR}/tests/reliability/sanitizers/r/Rprofile.R")
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT_MODIFICATION
      ${TSB_SANITIZER_HOST_ASAN} ${TSB_SANITIZER_LSAN_r})
  endforeach()
  return()  # R CMD check and the example package: main stage only
endif()

add_test(NAME r_check
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/check_package.sh ${PROJECT_SOURCE_DIR}/hosts/r
          ${TSB_R_WORK}/check ${TSB_R_LIB} ${TSB_R_WORK}/install/tsbridge.install.log)
set_tests_properties(r_check PROPERTIES ENVIRONMENT "${TSB_R_ENV}" TIMEOUT 900
  FIXTURES_REQUIRED tsb_r_lib)

if(EXISTS ${PROJECT_SOURCE_DIR}/examples/r-torchsparse/DESCRIPTION)
  add_test(NAME r_torchsparse_install
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/install_package.sh
            ${PROJECT_SOURCE_DIR}/examples/r-torchsparse ${TSB_R_WORK}/install ${TSB_R_LIB})
  set_tests_properties(r_torchsparse_install PROPERTIES FIXTURES_SETUP tsb_r_sparse
    FIXTURES_REQUIRED tsb_r_lib ENVIRONMENT "${TSB_R_ENV}" TIMEOUT 300)
  add_test(NAME r_torchsparse
    COMMAND ${TSB_RSCRIPT} ${CMAKE_CURRENT_LIST_DIR}/run_tests.R torchsparse
            ${PROJECT_SOURCE_DIR}/examples/r-torchsparse/tests/testthat)
  set_tests_properties(r_torchsparse PROPERTIES FIXTURES_REQUIRED tsb_r_sparse
    ENVIRONMENT "${TSB_R_ENV}" TIMEOUT 600)
endif()

# Train in R, deploy anywhere (docs/autograd.md): examples/train_deploy/train.R
# trains an MLP through the ABI's autograd, traces it in eval mode and saves
# it; PyTorch loads it and predicts what R predicted.
add_test(NAME train_deploy_r_to_pytorch
  COMMAND ${TSB_PYTHON3} ${PROJECT_SOURCE_DIR}/tests/core/runtime/check_deploy.py
          ${TSB_RSCRIPT} ${PROJECT_SOURCE_DIR}/examples/train_deploy/train.R
          ${TSB_R_WORK}/train_deploy)
set_tests_properties(train_deploy_r_to_pytorch PROPERTIES FIXTURES_REQUIRED tsb_r_lib
  ENVIRONMENT "${TSB_R_ENV}" TIMEOUT 300)
