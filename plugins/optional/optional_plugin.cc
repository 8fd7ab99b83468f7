// The bundled "optional" plugin: the abstract kinds Optional[T] and Union.
#include <memory>

#include "plugins/optional/optional_codecs.h"
#include "tsbridge/plugin/plugin.hpp"

TSB_PLUGIN("optional", "0.1") {
  r.kind_codec(std::make_unique<tsb::OptionalCodec>());
  r.kind_codec(std::make_unique<tsb::UnionCodec>());
}
