# TSB_SANITIZE=address;undefined (scripts/sanitize.sh): every target of this
# build is instrumented. Included from the top CMakeLists before any target.
list(JOIN TSB_SANITIZE "," tsb_sanitizers)
add_compile_options(-fsanitize=${tsb_sanitizers} -fno-omit-frame-pointer
                    -fno-sanitize-recover=all)
add_link_options(-fsanitize=${tsb_sanitizers})
if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
  # A C program linking the C++ core needs the runtime's C++ handlers too,
  # and they need libstdc++.
  add_link_options($<$<LINK_LANGUAGE:C>:-fsanitize-link-c++-runtime>
                   $<$<LINK_LANGUAGE:C>:-lstdc++>)
endif()
if("undefined" IN_LIST TSB_SANITIZE)
  # Plugins are built with hidden visibility, so a class's type_info is not
  # unique across libraries: the vptr check would flag every such cast.
  add_compile_options(-fno-sanitize=vptr)
endif()
if(TSB_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "TSB_FUZZ needs clang (libFuzzer), not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  # Coverage for libFuzzer in the library the fuzz targets drive; in the
  # other binaries the sanitizer runtime's default callbacks do nothing.
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
# Hosts in an uninstrumented interpreter (Debian's /usr/bin/python3): the
# runtime preloaded, Python's own allocator off so LeakSanitizer sees every
# object, and the leak check run before the interpreter finalizes
# (tests/reliability/sanitizers/python/sitecustomize.py) with the
# suppressions of lsan.supp and python.supp (docs/reliability.md lists each
# line). Tests add TSB_SANITIZER_PY_ENV to their ENVIRONMENT and
# TSB_SANITIZER_PY_OPTIONS to ENVIRONMENT_MODIFICATION.
if("address" IN_LIST TSB_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  execute_process(
    COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libclang_rt.asan-x86_64.so
    OUTPUT_VARIABLE tsb_asan_runtime OUTPUT_STRIP_TRAILING_WHITESPACE)
  # LeakSanitizer reads one suppressions file: lsan.supp, then python.supp.
  set(tsb_supp ${PROJECT_SOURCE_DIR}/tests/reliability/sanitizers)
  # Likewise r_lsan.supp = lsan.supp + r.supp for the R host (hosts/r/tests/ctest/r.cmake).
  file(READ ${tsb_supp}/lsan.supp tsb_supp_core)
  foreach(host python r)
    file(READ ${tsb_supp}/${host}.supp tsb_supp_host)
    file(WRITE ${CMAKE_BINARY_DIR}/${host}_lsan.supp "${tsb_supp_core}${tsb_supp_host}")
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               ${tsb_supp}/lsan.supp ${tsb_supp}/python.supp ${tsb_supp}/r.supp)
  set(TSB_ASAN_RUNTIME ${tsb_asan_runtime})
  set(TSB_SANITIZER_PY_ENV "LD_PRELOAD=${tsb_asan_runtime}" "PYTHONMALLOC=malloc"
      "TSB_LSAN_BEFORE_FINALIZE=1")
  # intercept_tls_get_addr=0: clang 14's runtime misreads the dynamic TLS
  # blocks of glibc 2.36 (LibTorch's, loaded by Python's dlopen) and
  # LeakSanitizer's tracer then faults ("Tracer caught signal 11"). glibc
  # allocates those blocks with malloc and points at them from each thread's
  # DTV, so LeakSanitizer still finds what they point to.
  # The symbolizer the runtime starts inherits LD_PRELOAD, and llvm-symbolizer
  # 14 with the ASan runtime preloaded can hang at exit (glibc's locale lock,
  # in libp11-kit's destructor), keeping the test's output open: ctest then
  # waits until the test's timeout. The runtime starts this wrapper instead,
  # which drops the preload. Its name must start with "llvm-symbolizer".
  # (Without llvm-symbolizer the runtime falls back to addr2line.)
  find_program(TSB_LLVM_SYMBOLIZER NAMES llvm-symbolizer llvm-symbolizer-14)
  set(TSB_SANITIZER_SYMBOLIZER_OPTION "")
  if(TSB_LLVM_SYMBOLIZER)
    set(tsb_symbolizer ${CMAKE_BINARY_DIR}/symbolizer/llvm-symbolizer)
    file(WRITE ${tsb_symbolizer}
         "#!/bin/sh\nunset LD_PRELOAD\nexec ${TSB_LLVM_SYMBOLIZER} \"$@\"\n")
    file(CHMOD ${tsb_symbolizer} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
         GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
    set(TSB_SANITIZER_SYMBOLIZER_OPTION ":external_symbolizer_path=${tsb_symbolizer}")
  endif()
  # What each host in an uninstrumented interpreter adds (Python's tests
  # here, R's in hosts/r/tests/ctest/r.cmake): the runtime options above, and the leak
  # check made before the interpreter exits (not at exit) with that host's
  # suppressions, TSB_SANITIZER_LSAN_python or TSB_SANITIZER_LSAN_r.
  set(TSB_SANITIZER_HOST_ASAN
      "ASAN_OPTIONS=string_append::intercept_tls_get_addr=0${TSB_SANITIZER_SYMBOLIZER_OPTION}")
  foreach(host python r)
    set(TSB_SANITIZER_LSAN_${host} "LSAN_OPTIONS=set:suppressions=${CMAKE_BINARY_DIR}/${host}_lsan.supp:print_suppressions=1:leak_check_at_exit=0")
  endforeach()
  set(TSB_SANITIZER_PY_OPTIONS "PYTHONPATH=path_list_prepend:${tsb_supp}/python"
      ${TSB_SANITIZER_HOST_ASAN} ${TSB_SANITIZER_LSAN_python})
endif()
