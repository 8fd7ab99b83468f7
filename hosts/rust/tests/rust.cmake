# The Rust host (hosts/rust, docs/rust.md): its declarations checked
# against tsbridge.h, its structs against the C compiler's layout, and its
# `cargo test` against PyTorch's outputs. Included from tests/CMakeLists.txt;
# skipped only when cargo is absent (scripts/common.sh installs Debian's).
# Debian's own cargo and rustc first: the oldest release's (1.63) is the
# one the crate supports.
find_program(TSB_CARGO cargo PATHS /usr/bin NO_DEFAULT_PATH)
find_program(TSB_CARGO cargo)
if(NOT TSB_CARGO)
  message(STATUS "tsbridge: cargo not found, the Rust host's tests are skipped")
  return()
endif()
# A sanitized libtsbridge needs the sanitizer runtimes linked into the test
# programs, which stable rustc does not do: the Rust host is tested in the
# main stage of every release, not in the sanitizer stage.
if(TSB_SANITIZE)
  message(STATUS "tsbridge: the Rust host's tests run in the main stage, not under TSB_SANITIZE")
  return()
endif()
get_filename_component(tsb_cargo_dir ${TSB_CARGO} DIRECTORY)
find_program(TSB_RUSTC rustc HINTS ${tsb_cargo_dir} NO_DEFAULT_PATH)
find_program(TSB_RUSTC rustc)
# The doctests (src/lib.rs: what the types rule out) need rustc's own
# rustdoc: another release's cannot read the crate rustc compiled.
get_filename_component(tsb_rustc_dir ${TSB_RUSTC} DIRECTORY)
find_program(TSB_RUSTDOC rustdoc HINTS ${tsb_rustc_dir} NO_DEFAULT_PATH)
find_program(TSB_RUSTDOC rustdoc)

# The tests' cargo builds start from an empty target directory each time:
# no debug info (the link is most of a test program's build with Debian's
# toolchain) and no incremental cache nobody reads.
set(TSB_CARGO_TEST_ENV CARGO_PROFILE_DEV_DEBUG=0 CARGO_PROFILE_TEST_DEBUG=0 CARGO_INCREMENTAL=0)

set(TSB_RUST_DIR ${PROJECT_SOURCE_DIR}/hosts/rust)
set(TSB_RUST_WORK ${CMAKE_CURRENT_BINARY_DIR}/rust)
set(TSB_RUST_FIXTURES ${TSB_RUST_WORK}/fixtures)

# Every TSB_API function declared in sys.rs, with the types the header says.
add_test(NAME rust_declarations
  COMMAND ${TSB_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/check_declarations.py
          ${PROJECT_SOURCE_DIR}/sdk/include/tsbridge/tsbridge.h ${TSB_RUST_DIR}/src/sys.rs)
# The checker can fail: a copy of sys.rs missing one declaration must fail it.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${TSB_RUST_DIR}/src/sys.rs)
file(READ ${TSB_RUST_DIR}/src/sys.rs tsb_sys_rs)
string(REGEX REPLACE "pub fn tsb_list_get_strs[^;]*;" "" tsb_sys_rs "${tsb_sys_rs}")
file(WRITE ${TSB_RUST_WORK}/sys_missing_one.rs "${tsb_sys_rs}")
add_test(NAME rust_declarations_catch_a_missing_one
  COMMAND ${TSB_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/check_declarations.py
          ${PROJECT_SOURCE_DIR}/sdk/include/tsbridge/tsbridge.h ${TSB_RUST_WORK}/sys_missing_one.rs)
set_tests_properties(rust_declarations_catch_a_missing_one PROPERTIES WILL_FAIL TRUE)

# The C compiler's layout of the structs sys.rs declares, for tests/layout.rs.
add_executable(tsbridge_rust_layout ${CMAKE_CURRENT_LIST_DIR}/layout.c)
target_include_directories(tsbridge_rust_layout PRIVATE ${PROJECT_SOURCE_DIR}/sdk/include)
add_custom_command(
  OUTPUT ${TSB_RUST_WORK}/layout.txt
  COMMAND tsbridge_rust_layout > ${TSB_RUST_WORK}/layout.txt
  DEPENDS tsbridge_rust_layout
  VERBATIM)

# Every unsafe block and unsafe impl has its `// SAFETY:` comment
# (docs/rust.md, "Unsafe code"); the checker's self-test, and a copy of
# value.rs without its SAFETY comments, show it can fail.
add_test(NAME rust_safety_comments
  COMMAND ${TSB_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/check_safety.py
          ${TSB_RUST_DIR}/src ${TSB_RUST_DIR}/tests ${TSB_RUST_DIR}/examples ${TSB_RUST_DIR}/build.rs
          ${PROJECT_SOURCE_DIR}/bench/rust_host_bench.rs)
add_test(NAME rust_safety_comments_self_test
  COMMAND ${TSB_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/check_safety.py --self-test)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${TSB_RUST_DIR}/src/value.rs)
file(READ ${TSB_RUST_DIR}/src/value.rs tsb_value_rs)
string(REGEX REPLACE "// SAFETY:" "// Why:" tsb_value_rs "${tsb_value_rs}")
file(WRITE ${TSB_RUST_WORK}/value_without_safety.rs "${tsb_value_rs}")
add_test(NAME rust_safety_comments_catch_a_missing_one
  COMMAND ${TSB_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/check_safety.py ${TSB_RUST_WORK}/value_without_safety.rs)
set_tests_properties(rust_safety_comments_catch_a_missing_one PROPERTIES WILL_FAIL TRUE)

# The modules and PyTorch's outputs the tests compare against.
add_custom_command(
  OUTPUT ${TSB_RUST_FIXTURES}/kinds.pt
  COMMAND ${TSB_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/make_fixtures.py ${TSB_RUST_FIXTURES}
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/make_fixtures.py ${TSB_TEST_FIXTURES_PY}
  COMMENT "Scripting the Rust host's test modules with ${TSB_PYTHON3}"
  VERBATIM)
add_custom_target(tsbridge_rust_fixtures ALL
  DEPENDS ${TSB_RUST_FIXTURES}/kinds.pt ${TSB_RUST_WORK}/layout.txt)
add_dependencies(tsbridge_rust_fixtures tsbridge_export_fixtures tsbridge_version_fixtures fixture_oplib
                 tsbridge_export_box_plugin tsbridge_plugin_tuple tsbridge_plugin_optional
                 tsbridge_plugin_sparse)

add_test(NAME rust_host
  COMMAND ${TSB_CARGO} test --offline --manifest-path ${TSB_RUST_DIR}/Cargo.toml)
set_tests_properties(rust_host PROPERTIES TIMEOUT 900 ENVIRONMENT
  "${TSB_CARGO_TEST_ENV};RUSTC=${TSB_RUSTC};RUSTDOC=${TSB_RUSTDOC};CARGO_TARGET_DIR=${TSB_RUST_WORK}/target;TSBRIDGE_LIB_DIR=$<TARGET_FILE_DIR:tsbridge>;TSB_RUST_FIXTURES=${TSB_RUST_FIXTURES};TSB_RUST_C_LAYOUT=${TSB_RUST_WORK}/layout.txt;TSB_EXPORT_FIXTURES=${TSB_EXPORT_FIXTURES};TSB_EXPORT_BOX_PLUGIN=$<TARGET_FILE:tsbridge_export_box_plugin>;TSB_OPLIB_FIXTURE=$<TARGET_FILE:fixture_oplib>;TSB_VERSION_FIXTURES=${TSB_VERSION_FIXTURES};TSB_OTHER_TORCH_PLUGIN=${TSB_OTHER_TORCH_PLUGIN}")
