# tsbridge_precompile_torch_headers(<target>...)
#
# Gives each target the precompiled torch_pch.h (ATen, IValue, Abseil
# status). A LibTorch translation unit spends most of its ~10 s parsing
# those headers; precompiled, a unit compiles in about 60 % of the time
# (docs/platforms.md). The header costs about one unit's time per target,
# so only targets with several LibTorch units use it. Sources keep their own
# includes: TSB_PRECOMPILE_HEADERS=OFF builds the same code.
option(TSB_PRECOMPILE_HEADERS "Precompile LibTorch's headers for the larger targets" ON)

function(tsbridge_precompile_torch_headers)
  if(NOT TSB_PRECOMPILE_HEADERS)
    return()
  endif()
  foreach(target IN LISTS ARGN)
    target_precompile_headers(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:${PROJECT_SOURCE_DIR}/cmake/torch_pch.h>)
    # A precompiled header that does not match the flags is ignored: say so.
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Winvalid-pch>)
  endforeach()
endfunction()
