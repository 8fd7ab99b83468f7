// The record a namedtuple was registered with in PyTorch
// (_register_namedtuple(Box, serialized_type_name="tsbtest.Box"), in
// make_pt2_fixtures.py): one line gives a package's "tsbtest.Box" nodes
// their field names in every host (docs/export.md).
#include <tuple>

#include "tsbridge/plugin/codecs/tensor.hpp"
#include "tsbridge/plugin/codecs/tuple.hpp"
#include "tsbridge/plugin/plugin.hpp"

TSB_PLUGIN("tsbtest", "1.0") {
  r.type<std::tuple<at::Tensor, at::Tensor>>("tsbtest.Box", {"lo", "hi"});
}
