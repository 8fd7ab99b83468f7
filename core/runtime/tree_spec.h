// Pytree specs: how a torch.export program's nested arguments flatten into
// the flat list of tensors its compiled code takes, and how its flat outputs
// rebuild (docs/export.md). The spec is a type: each node becomes the
// TorchScript type hosts already walk and build (a dict a Dict, a namedtuple
// a NamedTuple a plugin registered, else a Tuple), so a host converts these
// values with the code it has. Needs no AOTInductor: builds on every release.
#ifndef TSBRIDGE_CORE_RUNTIME_TREE_SPEC_H_
#define TSBRIDGE_CORE_RUNTIME_TREE_SPEC_H_

#include <cstdint>
#include <string>
#include <vector>

#include <ATen/core/ivalue.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace tsb::runtime {

// How compiled code takes a leaf of its input spec.
enum class LeafUse : uint8_t {
  kSkip,      // specialised at export: whatever the host passes is ignored
  kTensor,    // a tensor input
  kIfTensor,  // unknown: taken if it is a tensor (PyTorch's own caller's rule)
};

struct TreeSpec {
  enum class Kind {
    kLeaf,   // one flat value
    kTuple,  // builtins.tuple
    kList,   // builtins.list, collections.deque
    kDict,   // builtins.dict, collections.OrderedDict, collections.defaultdict
    kNamed,  // collections.namedtuple, or a node registered with a serialized name
  };
  Kind kind = Kind::kLeaf;
  // The serialized type ("builtins.dict"); for kNamed the record's name
  // (a namedtuple's registered name, "mymodels.Box", or a custom node's).
  std::string type_name;
  std::vector<c10::IValue> keys;  // kDict: the keys in order (str or int)
  std::vector<TreeSpec> children;
  size_t num_leaves = 0;
  c10::TypePtr type;  // set by AssignSpecTypes
};

// Parses the JSON that torch.utils._pytree.treespec_dumps writes (protocol
// 1). A malformed spec, or a node type outside the list above, is an error
// naming the node's place ("children_spec[1] → children_spec[0]").
absl::StatusOr<TreeSpec> ParseTreeSpec(absl::string_view json);

// Sets the `type` of every node: values of the node's shape whose leaves
// have `leaf_types` (in flattening order; one per leaf). Children of one
// type make a List[T] or Dict[K, T], else List[Any] or Dict[K, Any]; a
// kNamed node is the NamedTuple registered under its name with as many
// fields, else a Tuple. Returns the root's.
c10::TypePtr AssignSpecTypes(TreeSpec& spec, absl::Span<const c10::TypePtr> leaf_types);

// Appends the leaves of `value` (already coerced to spec.type) to *out, in
// flattening order, as `leaf_use` (indexed from `first_leaf`) says.
// Lengths and keys are checked against the spec, with paths ("key \"b\":
// missing", "[2]: ...").
absl::Status FlattenBySpec(const TreeSpec& spec, const c10::IValue& value,
                           const std::vector<LeafUse>& leaf_use, size_t first_leaf,
                           std::vector<at::Tensor>* out);

// Rebuilds a value of spec.type from `flat`, taking spec.num_leaves of them
// from *next on; an undefined tensor becomes None.
c10::IValue UnflattenBySpec(const TreeSpec& spec, std::vector<at::Tensor>& flat, size_t* next);

}  // namespace tsb::runtime

#endif  // TSBRIDGE_CORE_RUNTIME_TREE_SPEC_H_
