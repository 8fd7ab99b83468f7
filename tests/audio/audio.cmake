# torchaudio's operator library loaded by name from every host (docs/vision.md,
# "The operator-library API"): a module calling torchaudio::_lfilter, scripted
# at build time by PyTorch with python3-torchaudio, run by tsb, Python, R,
# Rust and C in processes that never import torchaudio, each result checked
# against PyTorch's. Skipped where torchaudio is not installed (Debian ships
# python3-torchaudio for its own LibTorch on 12 and 13: scripts/common.sh).
if(TSB_SANITIZE OR NOT TARGET tsb)
  return()
endif()
tsb_python_imports(torchaudio python3-torchaudio has_torchaudio)
if(NOT has_torchaudio)
  return()
endif()

set(TSB_AUDIO_MODELS ${CMAKE_CURRENT_BINARY_DIR}/audio/models)
add_custom_command(
  OUTPUT ${TSB_AUDIO_MODELS}/lfilter.pt
  COMMAND ${TSB_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/make_audio_models.py ${TSB_AUDIO_MODELS}
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/make_audio_models.py
  COMMENT "Scripting torchaudio's lfilter with ${TSB_PYTHON3}"
  VERBATIM)
add_custom_target(tsbridge_audio_fixtures ALL DEPENDS ${TSB_AUDIO_MODELS}/lfilter.pt)

# C: tsb_library_load("torchaudio", NULL), then the module.
add_executable(tsb_audio_c ${CMAKE_CURRENT_LIST_DIR}/audio_c.c)
target_link_libraries(tsb_audio_c PRIVATE tsbridge)

add_test(NAME audio_hosts
  COMMAND ${TSB_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/audio_hosts_test.py
          --models ${TSB_AUDIO_MODELS} --tsb $<TARGET_FILE:tsb> --c $<TARGET_FILE:tsb_audio_c>
          --python-dir ${TSB_PYTHON_DIR} --rscript "${TSB_RSCRIPT}" --r-lib ${TSB_R_LIB}
          --r-script ${CMAKE_CURRENT_LIST_DIR}/audio.R)
set_tests_properties(audio_hosts PROPERTIES TIMEOUT 600)
if(TSB_RSCRIPT)
  set_tests_properties(audio_hosts PROPERTIES FIXTURES_REQUIRED tsb_r_lib)
endif()
# The Rust host's test (hosts/rust/tests/audio.rs) reads the same files.
if(TEST rust_host)
  set_property(TEST rust_host APPEND PROPERTY ENVIRONMENT "TSB_AUDIO_MODELS=${TSB_AUDIO_MODELS}")
endif()
