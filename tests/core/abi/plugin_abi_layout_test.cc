// Compile-only: pins the layout of the C structs that cross the boundary
// (x86-64 / LP64), as nanobind's ABI layout test does. A change that moves a
// field or a registrar slot fails the build; append-only growth does not
// touch these offsets.
#include <cstddef>

#include "tsbridge/plugin/kind_codec.hpp"
#include "tsbridge/plugin/internal/platform_tag.hpp"
#include "tsbridge/plugin.h"
#include "tsbridge/tsbridge.h"

static_assert(sizeof(void*) == 8, "the pinned layout is LP64's");

// The value every host reads and writes.
static_assert(sizeof(tsb_any) == 16);
static_assert(offsetof(tsb_any, type_index) == 0);
static_assert(offsetof(tsb_any, flags) == 4);
static_assert(offsetof(tsb_any, u) == 8);

// The plugin descriptor: version first, so any future loader can read it.
static_assert(offsetof(tsb_plugin_descriptor, abi_major) == 0);
static_assert(offsetof(tsb_plugin_descriptor, abi_minor) == 4);
static_assert(offsetof(tsb_plugin_descriptor, platform_tag) == 8);
static_assert(offsetof(tsb_plugin_descriptor, name) == 16);
static_assert(offsetof(tsb_plugin_descriptor, version) == 24);
static_assert(offsetof(tsb_plugin_descriptor, register_plugin) == 32);
static_assert(sizeof(tsb_plugin_descriptor) == 40);

// The registrar table: a header, then the slots in the order they were added.
static_assert(offsetof(tsb_registrar, abi_major) == 0);
static_assert(offsetof(tsb_registrar, abi_minor) == 4);
static_assert(offsetof(tsb_registrar, num_slots) == 8);
static_assert(offsetof(tsb_registrar, txn) == 16);
static_assert(offsetof(tsb_registrar, add_kind_codec) == 24);  // slot 0
static_assert(offsetof(tsb_registrar, add_type) == 32);        // slot 1
static_assert(offsetof(tsb_registrar, add_function) == 40);    // slot 2
static_assert(offsetof(tsb_registrar, add_function_with_arguments) == 48);  // slot 3 (1.1)
static_assert(sizeof(tsb_plugin_argument) == 32);
static_assert(offsetof(tsb_plugin_argument, default_value) == 16);
static_assert(offsetof(tsb_plugin_argument, kwarg_only) == 24);
static_assert(sizeof(tsb_registrar) == 24 + 8 * TSB_REGISTRAR_NUM_SLOTS);

// Info structs start with their size, so they can grow.
static_assert(offsetof(tsb_type_info, struct_size) == 0);
static_assert(offsetof(tsb_type_info, kind) == 8);
static_assert(offsetof(tsb_type_info, annotation) == 16);
static_assert(offsetof(tsb_type_info, provider) == 56);
static_assert(offsetof(tsb_type_info, num_fields) == 64);
static_assert(sizeof(tsb_type_info) == 72);
static_assert(offsetof(tsb_plugin_info, struct_size) == 0);
static_assert(offsetof(tsb_plugin_info, name) == 8);
static_assert(offsetof(tsb_plugin_info, functions) == 80);
static_assert(sizeof(tsb_plugin_info) == 88);

// The C++ types a plugin shares with the core once the platform tag matched
// (tsbridge/plugin/kind_codec.hpp). A change here must bump TSB_SDK_ABI_VERSION
// (tsbridge/plugin/internal/platform_tag.hpp), which makes the loader refuse plugins built
// against the old SDK: update both together. KindCodec's virtual functions
// are pinned by slot in kind_codec_layout_test.cc (a run-time check).
static_assert(TSB_SDK_ABI_VERSION == 3, "pinned below for SDK ABI 3");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"  // TypeInfo is not standard-layout
static_assert(offsetof(tsb::TypeInfo, index) == 0);
static_assert(offsetof(tsb::TypeInfo, kind) == 4);
static_assert(offsetof(tsb::TypeInfo, type) == 8);
static_assert(offsetof(tsb::TypeInfo, annotation) == 24);
static_assert(offsetof(tsb::TypeInfo, name) == 56);
static_assert(offsetof(tsb::TypeInfo, contained) == 88);
static_assert(offsetof(tsb::TypeInfo, field_names) == 112);
static_assert(offsetof(tsb::TypeInfo, field_name_ptrs) == 136);
static_assert(offsetof(tsb::TypeInfo, provider) == 160);
static_assert(offsetof(tsb::TypeInfo, codec) == 192);
static_assert(sizeof(tsb::TypeInfo) == 200);
#pragma GCC diagnostic pop
static_assert(sizeof(tsb::KindCodec) == sizeof(void*), "a vtable pointer and nothing else");
