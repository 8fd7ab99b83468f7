/* tsbridge plugin ABI, in C99.
 *
 * A plugin is a shared library that exports one C symbol, `tsb_plugin_v1`,
 * returning a descriptor. The loader checks the descriptor (ABI version,
 * platform tag) before it calls anything else in the plugin, then calls
 * `register_plugin` with a registrar table. Everything a plugin registers is
 * staged and published together when `register_plugin` returns NULL; on any
 * failure nothing is published and the library is closed.
 *
 * Plugin authors normally do not touch this header: tsbridge/plugin/plugin.hpp
 * (C++) writes the descriptor for them with TSB_PLUGIN(name, version).
 */
#ifndef TSBRIDGE_PLUGIN_H_
#define TSBRIDGE_PLUGIN_H_

/* A plugin built for another ABI major is refused; one built for a newer
 * minor than the core's is refused (it may use slots the core lacks). */
#define TSB_PLUGIN_ABI_MAJOR 1
#define TSB_PLUGIN_ABI_MINOR 1 /* 1: slot 3, functions with defaults */

#include <stddef.h>
#include <stdint.h>

#include "tsbridge/tsbridge.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A registered function: pops its arguments from `stack` (a
 * torch::jit::Stack*, already converted to the types of its schema) and
 * pushes its result. Returns NULL or a status made with tsb_status_new. */
typedef tsb_status* (*tsb_plugin_function)(void* data, void* stack);

/* One argument of a function registered through slot 3. */
typedef struct tsb_plugin_argument {
  const char* name; /* "by" */
  const char* type; /* its TorchScript type, e.g. "float", "List[geom.box]" */
  /* Its default, a `const c10::IValue*` (C++, valid during the call; the
   * core copies it and converts it to `type`), or NULL when the argument is
   * required. */
  const void* default_value;
  int32_t kwarg_only; /* nonzero: keyword only (after every positional one) */
  int32_t reserved;
} tsb_plugin_argument;

/* The registrar table. Append-only: a later ABI minor adds slots at the end
 * and raises num_slots; a plugin uses only slots below num_slots. */
typedef struct tsb_registrar {
  uint32_t abi_major;
  uint32_t abi_minor;
  uint32_t num_slots;
  uint32_t reserved;
  void* txn; /* the loader's staging area: pass it back to every slot */

  /* slot 0: a codec for one LibTorch TypeKind. `kind_codec` is a
   * tsb::KindCodec* allocated with new (C++, see tsbridge/plugin/kind_codec.hpp);
   * ownership passes to tsbridge, on success and on failure. */
  tsb_status* (*add_kind_codec)(void* txn, void* kind_codec);

  /* slot 1: a named record type, e.g. name "torchsparse.tensor_pair",
   * annotation "Tuple[Tensor, Tensor]", fields {"first", "second"}. It
   * becomes a NamedTuple with that qualified name. */
  tsb_status* (*add_type)(void* txn, const char* name, const char* annotation,
                          const char* const* field_names, size_t num_fields);

  /* slot 2: a function callable by name, e.g. "torchsparse::relabel", with
   * argument names and TorchScript types and a return type. `data` is passed
   * to `fn` on every call; `free_data` (may be NULL) releases it when the
   * registration fails. */
  tsb_status* (*add_function)(void* txn, const char* name,
                              const char* const* arg_names,
                              const char* const* arg_types, size_t num_args,
                              const char* return_type, tsb_plugin_function fn,
                              void* data, void (*free_data)(void*));

  /* slot 3 (ABI 1.1): the same with each argument described whole, so it
   * may have a default and be keyword only; a host calls it as it calls an
   * operator (keywords, defaults, tsb_function_get_schema). `return_type`
   * may name a registered record ("torchsparse.tensor_pair"). */
  tsb_status* (*add_function_with_arguments)(void* txn, const char* name,
                                             const tsb_plugin_argument* args,
                                             size_t num_args,
                                             const char* return_type,
                                             tsb_plugin_function fn, void* data,
                                             void (*free_data)(void*));
} tsb_registrar;

#define TSB_REGISTRAR_NUM_SLOTS 4u

typedef struct tsb_plugin_descriptor {
  uint32_t abi_major; /* TSB_PLUGIN_ABI_MAJOR the plugin was built with */
  uint32_t abi_minor;
  /* Where C++ objects may cross: e.g.
   * "gnu/libstdc++/cxx11abi=1/torch=1.13". Must equal the core's. */
  const char* platform_tag;
  const char* name;    /* e.g. "tuple", "torchsparse" */
  const char* version; /* the plugin's own version, free form */
  /* Registers everything; returns NULL or a status made with
   * tsb_status_new. Must not let an exception escape (plugin.hpp's
   * TSB_PLUGIN catches them). */
  tsb_status* (*register_plugin)(const tsb_registrar* registrar);
} tsb_plugin_descriptor;

/* The one symbol a plugin exports. */
typedef const tsb_plugin_descriptor* (*tsb_plugin_entry_v1)(void);
#define TSB_PLUGIN_ENTRY_SYMBOL "tsb_plugin_v1"

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TSBRIDGE_PLUGIN_H_ */
