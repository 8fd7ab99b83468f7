# The order ctest -j starts the tests in: the costliest first. A build tree
# that has not run ctest yet (every CI stage's) has no timings of its own, so
# ctest would start the tests in the order they were defined, and the last
# defined could start last and run alone on one core at the end (the
# sanitizer stage's serve_grpc ran its 85 s after everything else). These
# costs seed the tree's Testing/Temporary/CTestCostData.txt, ctest's own
# record, which its runs then keep up to date. Seconds of the longest of
# the Debian 12 main and sanitizer stages (docs/platforms.md, "Build cost");
# the fixtures' setups first, since their tests wait for them. A test not
# listed costs nothing; a name no longer defined is ignored.
set(tsb_test_costs
  serve_models 100 r_install 100 r_torchsparse_install 100 vision_models 100
  source_install_prefix 100 lltm_build 100
  serve_grpc 85 r_host 70 serve_load 51 python_hostile 49 fuzz_module_load 37
  r_host_gctorture 36 vision_cli 31 python_differential 31 rust_host 27
  serve_repository 25 r_check 24 fuzz_pickle 23 python_host 23
  tsbridge_text_tests 22 python_host_dlpack 22 python_source_install 22
  concurrency_soak_tsan 21 fuzz_kit_build 20 cli_inputs 19 hosts_same_message 17
  cli_messages 16 serve_bench_wrk_smoke 15 serve_protocol 14 vision_example 14
  fuzz_abi_sequence 14 fuzz_json 13 cli 12 pytorch_corpus 11 fuzz_serve_request 10)

set(tsb_cost_data ${CMAKE_BINARY_DIR}/Testing/Temporary/CTestCostData.txt)
if(NOT EXISTS ${tsb_cost_data})
  set(tsb_text "")
  list(LENGTH tsb_test_costs tsb_count)
  math(EXPR tsb_last "${tsb_count} - 1")
  foreach(i RANGE 0 ${tsb_last} 2)
    math(EXPR j "${i} + 1")
    list(GET tsb_test_costs ${i} tsb_name)
    list(GET tsb_test_costs ${j} tsb_cost)
    string(APPEND tsb_text "${tsb_name} 1 ${tsb_cost}\n")  # name, runs, seconds
  endforeach()
  file(WRITE ${tsb_cost_data} "${tsb_text}---\n")
endif()
