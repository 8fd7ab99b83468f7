# tsbridge_add_plugin(<name> SOURCES <file>... [LIBRARIES <lib>...])
#
# Builds a tsbridge plugin: a MODULE library, file <name>.so, that exports
# only tsb_plugin_v1 (hidden visibility plus a version script), so the
# LibTorch and Abseil code it instantiates cannot interpose on the core's.
# Every symbol must resolve at link time (-z defs), not at dlopen.
# Used in-tree for the bundled plugins and, installed, by find_package(tsbridge).
set(TSBRIDGE_PLUGIN_EXPORTS ${CMAKE_CURRENT_LIST_DIR}/tsbridge_plugin_exports.map)

function(tsbridge_add_plugin NAME)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES;LIBRARIES")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "tsbridge_add_plugin(${NAME}): SOURCES is required")
  endif()
  add_library(${NAME} MODULE ${ARG_SOURCES})
  target_link_libraries(${NAME} PRIVATE
    tsbridge::tsbridge torch Boost::headers absl::status absl::statusor absl::strings
    absl::flat_hash_map ${ARG_LIBRARIES})
  target_compile_features(${NAME} PRIVATE cxx_std_20)
  target_link_options(${NAME} PRIVATE "LINKER:--version-script=${TSBRIDGE_PLUGIN_EXPORTS}")
  # A sanitizer build leaves the runtime's symbols to the executable.
  if(NOT TSB_SANITIZE)
    target_link_options(${NAME} PRIVATE "LINKER:-z,defs")
  endif()
  set_target_properties(${NAME} PROPERTIES
    PREFIX ""
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LINK_DEPENDS ${TSBRIDGE_PLUGIN_EXPORTS})
endfunction()
