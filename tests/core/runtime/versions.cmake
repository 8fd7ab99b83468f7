# Versions that clash (docs/install.md, "When versions clash"): archives and
# a .pt2 package whose records say another PyTorch wrote them, made at build
# time from files this PyTorch writes (make_version_fixtures.py), and the
# other_torch fixture plugin (tests/core/plugins/loader.cmake), with old_sdk
# beside it (another tsbridge SDK ABI). Every host's
# tests load them: C here, tsb, Python, R and Rust in their own suites.
# Included from tests/CMakeLists.txt after export.cmake and loader.cmake.
set(TSB_VERSION_FIXTURES ${CMAKE_CURRENT_BINARY_DIR}/version_fixtures)
set(TSB_OTHER_TORCH_PLUGIN ${TSB_FIXTURE_DIR}/other_torch/libfixture_other_torch.so)
add_custom_command(
  OUTPUT ${TSB_VERSION_FIXTURES}/versions.json
  COMMAND ${TSB_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/make_version_fixtures.py
          ${TSB_VERSION_FIXTURES} ${TSB_EXPORT_FIXTURES}
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/make_version_fixtures.py ${TSB_EXPORT_FIXTURES}/stamp
  COMMENT "Writing the archives whose versions clash with ${TSB_PYTHON}"
  VERBATIM)
add_custom_target(tsbridge_version_fixtures DEPENDS ${TSB_VERSION_FIXTURES}/versions.json)
add_dependencies(tsbridge_version_fixtures fixture_other_torch fixture_old_sdk)

add_executable(tsbridge_versions_tests ${CMAKE_CURRENT_LIST_DIR}/versions_test.cc
               ${PROJECT_SOURCE_DIR}/tests/testing/abi_test.cc)
target_link_libraries(tsbridge_versions_tests PRIVATE tsbridge_internal GTest::gmock
                      tsb_test_main)
tsb_build_paths(tsbridge_versions_tests TSB_VERSION_FIXTURES "${TSB_VERSION_FIXTURES}"
  TSB_CORE_LIBRARY "$<TARGET_FILE:tsbridge>")
add_dependencies(tsbridge_versions_tests tsbridge_version_fixtures)
tsb_add_gtest(tsbridge_versions_tests)
