#include "core/runtime/tree_spec.h"

#include <utility>

#include <ATen/core/Dict.h>
#include <ATen/core/List.h>
#include <ATen/core/function_schema.h>
#include <ATen/core/jit_type.h>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "core/types/type_registry.h"
#include "core/value/convert.h"
#include "core/value/nesting.h"
#include "tsbridge/plugin/errors.hpp"
#include "tsbridge/plugin/kind_codec.hpp"

namespace tsb::runtime {
namespace {

using Json = nlohmann::json;

absl::Status Malformed(absl::string_view where, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed tree spec", where.empty() ? "" : " at ", where, ": ", what));
}

std::string Child(absl::string_view where, size_t i) {
  return absl::StrCat(where, where.empty() ? "" : " → ", "children_spec[", i, "]");
}

// A dict node's keys: its context is a JSON list, written as a string
// (json.dumps) or, for defaultdict, inside an object under "dict_context".
absl::Status ReadKeys(const Json& context, absl::string_view where, TreeSpec* spec) {
  Json keys = context;
  if (context.is_string()) {
    keys = Json::parse(context.get<std::string>(), nullptr, /*allow_exceptions=*/false);
  }
  if (keys.is_object() && keys.contains("dict_context")) keys = keys["dict_context"];
  if (!keys.is_array()) {
    return Malformed(where, absl::StrCat("expected the dict's keys as a list, got ",
                                         context.dump()));
  }
  bool str_keys = false, int_keys = false;
  for (const Json& key : keys) {
    if (key.is_string()) {
      str_keys = true;
      spec->keys.emplace_back(key.get<std::string>());
    } else if (key.is_number_integer()) {
      int_keys = true;
      spec->keys.emplace_back(key.get<int64_t>());
    } else {
      return Malformed(where, absl::StrCat("expected a str or int dict key, got ", key.dump()));
    }
  }
  if (str_keys && int_keys) {
    return Malformed(where, "a dict with both str and int keys has no TorchScript type");
  }
  return absl::OkStatus();
}

absl::Status ReadNode(const Json& node, absl::string_view where, int depth, TreeSpec* spec) {
  if (depth > kMaxValueDepth) {
    return Malformed(where, absl::StrCat("nested deeper than ", kMaxValueDepth));
  }
  if (!node.is_object() || !node.contains("type") || !node.contains("context") ||
      !node.contains("children_spec") || !node["children_spec"].is_array()) {
    return Malformed(where, absl::StrCat("expected an object with type, context and "
                                         "children_spec, got ", node.dump().substr(0, 80)));
  }
  const Json& type = node["type"];
  const Json& context = node["context"];
  const Json& children = node["children_spec"];
  if (type.is_null()) {
    if (!children.empty()) return Malformed(where, "a leaf with children");
    spec->kind = TreeSpec::Kind::kLeaf;
    spec->num_leaves = 1;
    return absl::OkStatus();
  }
  if (!type.is_string()) return Malformed(where, absl::StrCat("type ", type.dump()));
  spec->type_name = type.get<std::string>();
  const std::string& name = spec->type_name;
  if (name == "builtins.tuple") {
    spec->kind = TreeSpec::Kind::kTuple;
  } else if (name == "builtins.list" || name == "collections.deque") {
    spec->kind = TreeSpec::Kind::kList;
  } else if (name == "builtins.dict" || name == "collections.OrderedDict" ||
             name == "collections.defaultdict") {
    spec->kind = TreeSpec::Kind::kDict;
    if (absl::Status keys = ReadKeys(context, where, spec); !keys.ok()) return keys;
    if (spec->keys.size() != children.size()) {
      return Malformed(where, absl::StrCat("a dict with ", spec->keys.size(), " keys and ",
                                           children.size(), " children"));
    }
  } else if (name == "collections.namedtuple") {
    if (!context.is_string()) {
      return Malformed(where, absl::StrCat("expected a namedtuple's registered name, got ",
                                           context.dump()));
    }
    spec->kind = TreeSpec::Kind::kNamed;
    spec->type_name = context.get<std::string>();
  } else {
    // A node registered with register_pytree_node(serialized_type_name=...):
    // its children cross as the fields of the record of that name.
    spec->kind = TreeSpec::Kind::kNamed;
  }
  spec->children.resize(children.size());
  for (size_t i = 0; i < children.size(); ++i) {
    absl::Status s = ReadNode(children[i], Child(where, i), depth + 1, &spec->children[i]);
    if (!s.ok()) return s;
    spec->num_leaves += spec->children[i].num_leaves;
  }
  return absl::OkStatus();
}

// One type for all children, or Any.
c10::TypePtr CommonType(const std::vector<c10::TypePtr>& types) {
  if (types.empty()) return c10::AnyType::get();
  for (const c10::TypePtr& t : types) {
    if (*t != *types.front()) return c10::AnyType::get();
  }
  return types.front();
}

c10::TypePtr NamedType(const TreeSpec& spec, std::vector<c10::TypePtr> types) {
  c10::TypePtr registered = TypeRegistry::Global().FindNamedType(spec.type_name);
  if (registered != nullptr) {
    auto tuple = registered->cast<c10::TupleType>();
    if (tuple != nullptr && tuple->schema() != nullptr &&
        tuple->elements().size() == types.size()) {
      return registered;
    }
  }
  return c10::TupleType::create(std::move(types));
}

c10::TypePtr TypeFrom(TreeSpec& spec, absl::Span<const c10::TypePtr> leaf_types,
                      size_t* next);

c10::TypePtr AssignFrom(TreeSpec& spec, absl::Span<const c10::TypePtr> leaf_types, size_t* next) {
  spec.type = TypeFrom(spec, leaf_types, next);
  return spec.type;
}

c10::TypePtr TypeFrom(TreeSpec& spec, absl::Span<const c10::TypePtr> leaf_types,
                      size_t* next) {
  if (spec.kind == TreeSpec::Kind::kLeaf) return leaf_types[(*next)++];
  std::vector<c10::TypePtr> types;
  types.reserve(spec.children.size());
  for (TreeSpec& child : spec.children) types.push_back(AssignFrom(child, leaf_types, next));
  switch (spec.kind) {
    case TreeSpec::Kind::kTuple:
      return c10::TupleType::create(std::move(types));
    case TreeSpec::Kind::kList:
      return c10::ListType::create(CommonType(types));
    case TreeSpec::Kind::kDict: {
      c10::TypePtr key = !spec.keys.empty() && spec.keys.front().isInt()
                             ? c10::TypePtr(c10::IntType::get())
                             : c10::TypePtr(c10::StringType::get());
      return c10::DictType::create(key, CommonType(types));
    }
    case TreeSpec::Kind::kNamed:
    case TreeSpec::Kind::kLeaf:
      break;
  }
  return NamedType(spec, std::move(types));
}

std::string ItemSegment(const TreeSpec& spec, const c10::IValue& value, size_t i) {
  if (spec.kind == TreeSpec::Kind::kNamed && value.isTuple()) {
    const auto& schema = value.toTupleRef().type()->schema();
    if (schema != nullptr && i < schema->arguments().size()) {
      return FieldSegment(schema->arguments()[i].name());
    }
  }
  return IndexSegment(i);
}

}  // namespace

absl::StatusOr<TreeSpec> ParseTreeSpec(absl::string_view text) {
  Json doc = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Malformed("", "not JSON");
  if (!doc.is_array() || doc.size() != 2 || !doc[0].is_number_integer()) {
    return Malformed("", "expected [protocol, spec]");
  }
  if (doc[0].get<int64_t>() != 1) {
    // Protocol 1 is what torch.utils._pytree writes by default in every
    // release tested (1.13 to 2.14); a package made with another is refused
    // by its number rather than misread.
    return Malformed("", absl::StrCat("protocol ", doc[0].dump(),
                                      " (this library reads treespec_dumps protocol 1, "
                                      "the default of PyTorch 1.13 to 2.14; compile the "
                                      "package with that default)"));
  }
  TreeSpec spec;
  if (absl::Status s = ReadNode(doc[1], "", 0, &spec); !s.ok()) return s;
  return spec;
}

c10::TypePtr AssignSpecTypes(TreeSpec& spec, absl::Span<const c10::TypePtr> leaf_types) {
  size_t next = 0;
  return AssignFrom(spec, leaf_types, &next);
}

absl::Status FlattenBySpec(const TreeSpec& spec, const c10::IValue& value,
                           const std::vector<LeafUse>& leaf_use, size_t first_leaf,
                           std::vector<at::Tensor>* out) {
  size_t n = spec.children.size();
  switch (spec.kind) {
    case TreeSpec::Kind::kLeaf:
      if (leaf_use[first_leaf] == LeafUse::kSkip) return absl::OkStatus();
      if (leaf_use[first_leaf] == LeafUse::kIfTensor && !value.isTensor()) {
        return absl::OkStatus();
      }
      if (!value.isTensor()) {
        return TypeError(absl::StrCat("expected Tensor, got ", DescribeValue(value)));
      }
      out->push_back(value.toTensor());
      return absl::OkStatus();
    case TreeSpec::Kind::kTuple:
    case TreeSpec::Kind::kNamed: {
      if (!value.isTuple() || value.toTupleRef().size() != n) {
        return TypeError(absl::StrCat("expected a tuple of ", n, " items, got ",
                                      DescribeValue(value)));
      }
      const auto& items = value.toTupleRef().elements();
      for (size_t i = 0; i < n; ++i) {
        absl::Status s = FlattenBySpec(spec.children[i], items[i], leaf_use, first_leaf, out);
        if (!s.ok()) return WithPath(std::move(s), ItemSegment(spec, value, i));
        first_leaf += spec.children[i].num_leaves;
      }
      return absl::OkStatus();
    }
    case TreeSpec::Kind::kList: {
      if (!value.isList()) {
        return TypeError(absl::StrCat("expected a list, got ", DescribeValue(value)));
      }
      c10::List<c10::IValue> list = value.toList();
      if (list.size() != n) {
        return TypeError(absl::StrCat("expected a list of ", n, " items (the length it was "
                                      "exported with), got ", list.size()));
      }
      for (size_t i = 0; i < n; ++i) {
        absl::Status s = FlattenBySpec(spec.children[i], list.get(i), leaf_use, first_leaf, out);
        if (!s.ok()) return WithPath(std::move(s), IndexSegment(i));
        first_leaf += spec.children[i].num_leaves;
      }
      return absl::OkStatus();
    }
    case TreeSpec::Kind::kDict: {
      if (!value.isGenericDict()) {
        return TypeError(absl::StrCat("expected a dict, got ", DescribeValue(value)));
      }
      c10::Dict<c10::IValue, c10::IValue> dict = value.toGenericDict();
      for (size_t i = 0; i < n; ++i) {
        auto found = dict.find(spec.keys[i]);
        if (found == dict.end()) {
          return WithPath(TypeError("missing"), KeySegmentOf(spec.keys[i]));
        }
        absl::Status s =
            FlattenBySpec(spec.children[i], found->value(), leaf_use, first_leaf, out);
        if (!s.ok()) return WithPath(std::move(s), KeySegmentOf(spec.keys[i]));
        first_leaf += spec.children[i].num_leaves;
      }
      if (dict.size() != n) {
        for (const auto& entry : dict) {
          bool known = false;
          for (const c10::IValue& key : spec.keys) known = known || key == entry.key();
          if (!known) {
            return WithPath(TypeError("not a key the program was exported with"),
                            KeySegmentOf(entry.key()));
          }
        }
      }
      return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

c10::IValue UnflattenBySpec(const TreeSpec& spec, std::vector<at::Tensor>& flat, size_t* next) {
  if (spec.kind == TreeSpec::Kind::kLeaf) {
    at::Tensor& t = flat[(*next)++];
    return t.defined() ? c10::IValue(std::move(t)) : c10::IValue();
  }
  const c10::TypePtr& type = spec.type;
  if (type->kind() == c10::TypeKind::ListType) {
    c10::impl::GenericList list(type->containedType(0));
    list.reserve(spec.children.size());
    for (const TreeSpec& child : spec.children) list.push_back(UnflattenBySpec(child, flat, next));
    return list;
  }
  if (type->kind() == c10::TypeKind::DictType) {
    c10::impl::GenericDict dict(type->containedType(0), type->containedType(1));
    dict.reserve(spec.children.size());
    for (size_t i = 0; i < spec.children.size(); ++i) {
      dict.insert(spec.keys[i], UnflattenBySpec(spec.children[i], flat, next));
    }
    return dict;
  }
  std::vector<c10::IValue> items;
  items.reserve(spec.children.size());
  for (const TreeSpec& child : spec.children) items.push_back(UnflattenBySpec(child, flat, next));
  return c10::ivalue::Tuple::createNamed(std::move(items), type->expect<c10::TupleType>());
}

}  // namespace tsb::runtime
