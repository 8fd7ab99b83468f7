// The bundled "tuple" plugin: Tuple and NamedTuple, and the record types
// torchsparse's operators return (hand-written glue in its bindings
// before; docs/plugins.md). tensor_triple's third field needs the optional plugin; the
// loader resolves kinds lazily, so either plugin may load first.
#include <memory>

#include "plugins/tuple/tuple_codec.h"
#include "tsbridge/plugin/plugin.hpp"

TSB_PLUGIN("tuple", "0.1") {
  r.kind_codec(std::make_unique<tsb::TupleCodec>());
  r.type("tsbridge.tensor_pair", "Tuple[Tensor, Tensor]", {"first", "second"});
  r.type("tsbridge.tensor_triple", "Tuple[Tensor, Tensor, Optional[Tensor]]",
         {"first", "second", "third"});
}
