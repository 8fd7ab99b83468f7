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
