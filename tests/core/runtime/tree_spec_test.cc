// Pytree specs (core/runtime/tree_spec.h) on every release: parsing each
// node type treespec_dumps writes, the types they become, flattening with
// path errors, rebuilding; malformed specs refused.
#include "core/runtime/tree_spec.h"

#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/core/function_schema.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tsbridge/plugin/errors.hpp"
#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"

namespace tsb::runtime {
namespace {

using ::testing::HasSubstr;

// Spec JSON as treespec_dumps writes it (protocol 1).
std::string Leaf() { return R"({"type": null, "context": null, "children_spec": []})"; }
std::string Node(const std::string& type, const std::string& context,
                 const std::vector<std::string>& children) {
  std::string out = "{\"type\": " + type + ", \"context\": " + context + ", \"children_spec\": [";
  for (size_t i = 0; i < children.size(); ++i) out += (i ? ", " : "") + children[i];
  return out + "]}";
}
std::string Dumps(const std::string& node) { return "[1, " + node + "]"; }

TreeSpec Parse(const std::string& json) {
  absl::StatusOr<TreeSpec> spec = ParseTreeSpec(json);
  EXPECT_TRUE(spec.ok()) << spec.status();
  return spec.ok() ? *spec : TreeSpec{};
}

std::string TypeString(TreeSpec& spec) {
  std::vector<c10::TypePtr> leaves(spec.num_leaves, c10::TensorType::get());
  return AssignSpecTypes(spec, leaves)->annotation_str();
}

TEST(TreeSpecTest, EachNodeTypeBecomesATorchScriptType) {
  TreeSpec tuple = Parse(Dumps(Node("\"builtins.tuple\"", "\"null\"", {Leaf(), Leaf()})));
  EXPECT_EQ(TypeString(tuple), "Tuple[Tensor, Tensor]");
  TreeSpec list = Parse(Dumps(Node("\"builtins.list\"", "\"null\"", {Leaf(), Leaf(), Leaf()})));
  EXPECT_EQ(TypeString(list), "List[Tensor]");
  EXPECT_EQ(list.num_leaves, 3u);
  TreeSpec deque = Parse(Dumps(Node("\"collections.deque\"", "\"null\"", {Leaf()})));
  EXPECT_EQ(TypeString(deque), "List[Tensor]");
  TreeSpec dict =
      Parse(Dumps(Node("\"builtins.dict\"", R"("[\"a\", \"b\"]")", {Leaf(), Leaf()})));
  EXPECT_EQ(TypeString(dict), "Dict[str, Tensor]");
  TreeSpec int_dict = Parse(Dumps(Node("\"collections.OrderedDict\"", R"("[3, 1]")", {Leaf(), Leaf()})));
  EXPECT_EQ(TypeString(int_dict), "Dict[int, Tensor]");
  EXPECT_EQ(int_dict.keys[0].toInt(), 3);
  TreeSpec defaultdict = Parse(Dumps(Node(
      "\"collections.defaultdict\"",
      R"({"default_factory_module": "builtins", "default_factory_name": "list", "dict_context": ["k"]})",
      {Leaf()})));
  EXPECT_EQ(TypeString(defaultdict), "Dict[str, Tensor]");
  TreeSpec named = Parse(Dumps(Node("\"collections.namedtuple\"", "\"nobody.Unregistered\"",
                                    {Leaf(), Leaf()})));
  EXPECT_EQ(named.type_name, "nobody.Unregistered");
  EXPECT_EQ(TypeString(named), "Tuple[Tensor, Tensor]");  // no registration: a Tuple
  TreeSpec custom = Parse(Dumps(Node("\"mymodule.Point\"", "\"[]\"", {Leaf()})));
  EXPECT_EQ(custom.kind, TreeSpec::Kind::kNamed);
  EXPECT_EQ(custom.type_name, "mymodule.Point");
}

TEST(TreeSpecTest, MixedChildrenMakeAnyAndRegisteredNamesMakeNamedTuples) {
  TreeSpec dict = Parse(Dumps(Node("\"builtins.dict\"", R"("[\"t\", \"l\"]")",
                                   {Leaf(), Node("\"builtins.list\"", "\"null\"", {Leaf()})})));
  EXPECT_EQ(TypeString(dict), "Dict[str, Any]");
  EXPECT_EQ(dict.children[1].type->annotation_str(), "List[Tensor]");
  // A record a plugin registered (the bundled tuple plugin's tensor_pair)
  // gives the node its NamedTuple type and field names.
  Status loaded(tsb_plugin_load_bundled());
  ASSERT_EQ(loaded.get(), nullptr) << tsb_status_get_message(loaded.get());
  TreeSpec pair = Parse(Dumps(Node("\"collections.namedtuple\"", "\"tsbridge.tensor_pair\"",
                                   {Leaf(), Leaf()})));
  TypeString(pair);
  auto tuple = pair.type->cast<c10::TupleType>();
  ASSERT_NE(tuple, nullptr);
  ASSERT_NE(tuple->schema(), nullptr);
  EXPECT_EQ(tuple->schema()->arguments()[1].name(), "second");
  // With another number of fields it stays a Tuple.
  TreeSpec triple = Parse(Dumps(Node("\"collections.namedtuple\"", "\"tsbridge.tensor_pair\"",
                                     {Leaf(), Leaf(), Leaf()})));
  EXPECT_EQ(TypeString(triple), "Tuple[Tensor, Tensor, Tensor]");
  TreeSpec empty = Parse(Dumps(Node("\"builtins.list\"", "\"null\"", {})));
  EXPECT_EQ(TypeString(empty), "List[Any]");
}

TEST(TreeSpecTest, MalformedSpecsAreRefusedWithThePlace) {
  auto error = [](const std::string& json) {
    absl::StatusOr<TreeSpec> spec = ParseTreeSpec(json);
    EXPECT_FALSE(spec.ok()) << json;
    return spec.ok() ? std::string() : std::string(spec.status().message());
  };
  EXPECT_THAT(error("not json"), HasSubstr("not JSON"));
  EXPECT_THAT(error("[2, {}]"), HasSubstr("protocol 2"));
  EXPECT_THAT(error("[1]"), HasSubstr("expected [protocol, spec]"));
  EXPECT_THAT(error(Dumps(Node("\"builtins.tuple\"", "\"null\"", {"{}"}))),
              HasSubstr("at children_spec[0]: expected an object with type, context and children_spec"));
  EXPECT_THAT(error(Dumps(Node("\"builtins.dict\"", R"("[\"a\"]")", {Leaf(), Leaf()}))),
              HasSubstr("a dict with 1 keys and 2 children"));
  EXPECT_THAT(error(Dumps(Node("\"builtins.dict\"", R"("[\"a\", 1]")", {Leaf(), Leaf()}))),
              HasSubstr("both str and int keys"));
  EXPECT_THAT(error(Dumps(Node("\"builtins.dict\"", R"("[1.5]")", {Leaf()}))),
              HasSubstr("expected a str or int dict key, got 1.5"));
  EXPECT_THAT(error(Dumps(Node("\"collections.namedtuple\"", "null", {Leaf()}))),
              HasSubstr("expected a namedtuple's registered name, got null"));
  EXPECT_THAT(error(Dumps(Node("null", "null", {Leaf()}))), HasSubstr("a leaf with children"));
  std::string deep = Leaf();
  for (int i = 0; i < 600; ++i) deep = Node("\"builtins.tuple\"", "\"null\"", {deep});
  EXPECT_THAT(error(Dumps(deep)), HasSubstr("nested deeper than 512"));
}

class FlattenTest : public ::testing::Test {
 protected:
  // (Tensor, {"a": Tensor, "b": [Tensor, Tensor]}, None-leaf)
  void SetUp() override {
    spec_ = Parse(Dumps(Node(
        "\"builtins.tuple\"", "\"null\"",
        {Leaf(),
         Node("\"builtins.dict\"", R"("[\"a\", \"b\"]")",
              {Leaf(), Node("\"builtins.list\"", "\"null\"", {Leaf(), Leaf()})}),
         Leaf()})));
    uses_ = {LeafUse::kTensor, LeafUse::kTensor, LeafUse::kTensor, LeafUse::kTensor,
             LeafUse::kSkip};
    std::vector<c10::TypePtr> types(4, c10::TensorType::get());
    types.push_back(c10::AnyType::get());
    AssignSpecTypes(spec_, types);
  }

  c10::IValue Value(size_t list_length, bool extra_key, bool drop_b) {
    c10::impl::GenericList list(c10::TensorType::get());
    for (size_t i = 0; i < list_length; ++i) list.push_back(at::full({1}, double(i)));
    c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
    dict.insert("a", at::ones({1}));
    if (!drop_b) dict.insert("b", list);
    if (extra_key) dict.insert("c", at::ones({1}));
    return c10::ivalue::Tuple::create({at::zeros({1}), dict, c10::IValue(int64_t{7})});
  }

  std::string Error(const c10::IValue& value) {
    std::vector<at::Tensor> flat;
    absl::Status s = FlattenBySpec(spec_, value, uses_, 0, &flat);
    EXPECT_FALSE(s.ok());
    return ToString(s);
  }
  static std::string ToString(const absl::Status& s) {
    std::string path = PathOf(s);
    return path.empty() ? std::string(s.message()) : path + ": " + std::string(s.message());
  }

  TreeSpec spec_;
  std::vector<LeafUse> uses_;
};

TEST_F(FlattenTest, LeavesComeOutInOrderAndSpecialisedOnesAreSkipped) {
  std::vector<at::Tensor> flat;
  absl::Status s = FlattenBySpec(spec_, Value(2, false, false), uses_, 0, &flat);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(flat.size(), 4u);  // the int 7 at a skipped leaf is not taken
  EXPECT_EQ(flat[0].item<double>(), 0.0);
  EXPECT_EQ(flat[1].item<double>(), 1.0);
  EXPECT_EQ(flat[3].item<double>(), 1.0);
}

TEST_F(FlattenTest, LeavesOfUnknownUseAreTakenWhenTheyAreTensors) {
  std::vector<LeafUse> unknown(5, LeafUse::kIfTensor);
  std::vector<at::Tensor> flat;
  absl::Status s = FlattenBySpec(spec_, Value(2, false, false), unknown, 0, &flat);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(flat.size(), 4u);  // the int 7 is passed over, as PyTorch's caller does
}

TEST_F(FlattenTest, WrongShapesSayWhereAndWhat) {
  EXPECT_EQ(Error(Value(3, false, false)),
            "[1] → key \"b\": expected a list of 2 items (the length it was exported with), got 3");
  EXPECT_EQ(Error(Value(2, false, true)), "[1] → key \"b\": missing");
  EXPECT_EQ(Error(Value(2, true, false)),
            "[1] → key \"c\": not a key the program was exported with");
  c10::IValue wrong = c10::ivalue::Tuple::create({int64_t{3}, c10::IValue(), c10::IValue()});
  EXPECT_EQ(Error(wrong), "[0]: expected Tensor, got int 3");
}

TEST_F(FlattenTest, UnflattenRebuildsTheShapeAndUndefinedTensorsAreNone) {
  TreeSpec out = Parse(Dumps(Node("\"builtins.dict\"", R"("[\"x\", \"none\"]")",
                                  {Node("\"builtins.tuple\"", "\"null\"", {Leaf(), Leaf()}), Leaf()})));
  std::vector<c10::TypePtr> types(3, c10::OptionalType::create(c10::TensorType::get()));
  AssignSpecTypes(out, types);
  std::vector<at::Tensor> flat = {at::ones({1}), at::zeros({2}), at::Tensor()};
  size_t next = 0;
  c10::IValue value = UnflattenBySpec(out, flat, &next);
  EXPECT_EQ(next, 3u);
  ASSERT_TRUE(value.isGenericDict());
  c10::Dict<c10::IValue, c10::IValue> dict = value.toGenericDict();
  EXPECT_TRUE(dict.at("none").isNone());
  ASSERT_TRUE(dict.at("x").isTuple());
  EXPECT_EQ(dict.at("x").toTupleRef().elements()[1].toTensor().numel(), 2);
  EXPECT_EQ(*value.type(), *out.type);
}

}  // namespace
}  // namespace tsb::runtime
