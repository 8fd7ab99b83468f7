// The library's start: the one place where libtsbridge.so sets up its
// layers, run once while the library loads, before any exported function,
// plugin or test can call in. It sits in the top layer because only the top
// may reach every layer: the registry (core/types) is filled with the
// builtin codecs (core/codecs) from here, never by a lower layer reaching up
// or by a static initializer of its own (docs/architecture.md, "Start").
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "core/codecs/builtin_codecs.h"
#include "core/types/type_registry.h"

namespace tsb::abi {
namespace {

// LibTorch's types, which the builtins intern, are ready: a library's
// dependencies are initialised before it.
__attribute__((constructor)) void StartLibrary() {
  try {
    RegisterBuiltinCodecs(TypeRegistry::Global());
  } catch (const std::exception& e) {
    // Only a broken build gets here; no caller exists yet to return it to.
    std::fprintf(stderr, "tsbridge: the library could not start: %s\n", e.what());
    std::abort();
  }
}

}  // namespace
}  // namespace tsb::abi
