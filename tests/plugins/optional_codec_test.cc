// plugins/optional through the C ABI: Optional[T] and Union[...] are
// abstract (a value crosses as its own type) and coercion to them is
// type-directed.
#include <utility>

#include <ATen/ATen.h>

#include "tests/plugins/plugin_testing.h"

namespace tsb::testing {
namespace {

using OptionalTest = PluginTest;
using UnionTest = PluginTest;

// The value a coercion produced, which must succeed.
Value Coerced(const tsb_any& value, const char* type) {
  Value out;
  Status s(tsb_any_coerce(&value, TypeOf(type), out.out()));
  EXPECT_EQ(s.get(), nullptr) << type << ": " << tsb_status_get_message(s.get());
  return out;
}

TEST_F(OptionalTest, TypeInfo) {
  const int32_t type = TypeOf("Optional[int]");
  tsb_type_info info = InfoOf(type);
  EXPECT_EQ(info.kind, TSB_KIND_OPTIONAL);
  EXPECT_STREQ(info.annotation, "Optional[int]");
  EXPECT_STREQ(info.provider, "optional");
  EXPECT_EQ(ContainedOf(type), std::vector<int32_t>{TSB_TYPE_INT});
  // LibTorch spells a two-member Union with None as Optional.
  EXPECT_EQ(TypeOf("Union[int, None]"), type);
  EXPECT_EQ(TypeOf("int?"), type);
  EXPECT_EQ(TypeOf("Optional[Optional[int]]"), type);
}

TEST_F(OptionalTest, NoneAndAValue) {
  Value none = Coerced(tsb_any_none(), "Optional[int]");
  EXPECT_EQ(none.get().type_index, TSB_TYPE_NONE);
  Value three = Coerced(tsb_any_int(3), "Optional[int]");
  EXPECT_EQ(three.get().type_index, TSB_TYPE_INT);
  EXPECT_EQ(three.get().u.i, 3);
  Value widened = Coerced(tsb_any_int(3), "Optional[float]");
  EXPECT_EQ(widened.get().type_index, TSB_TYPE_FLOAT);
  EXPECT_EQ(widened.get().u.d, 3.0);
}

TEST_F(OptionalTest, ErrorsNameTheOptional) {
  ExpectCoerceError(tsb_any_borrowed_str("x"), TypeOf("Optional[int]"), "",
                    "expected Optional[int], got str \"x\"");
  // What the inner codec adds after "got ..." is kept.
  ExpectCoerceError(tsb_any_borrowed_str("gpu"), TypeOf("Optional[Device]"), "",
                    "expected Optional[Device], got str \"gpu\", which does not name a device");
  // An error inside the value keeps its own path and message.
  Value x(Str("x"));
  Value list = AnyList({tsb_any_int(1), x.get()});
  ExpectCoerceError(list.get(), TypeOf("Optional[List[int]]"), "[1]", "expected int, got str \"x\"");
  ExpectCoerceError(list.get(), TypeOf("List[Optional[int]]"), "[1]",
                    "expected Optional[int], got str \"x\"");
}

TEST_F(OptionalTest, ListOfOptionalTensorElementsCrossAsTheirOwnTypes) {
  at::Tensor t = at::ones({2});
  c10::List<c10::optional<at::Tensor>> list({t, c10::nullopt});
  Value v(Boundary(list));
  EXPECT_EQ(v.get().type_index, TypeOf("List[Optional[Tensor]]"));
  Value first, second;
  TSB_ASSERT_OK(tsb_list_get(&v.get(), 0, first.out()));
  TSB_ASSERT_OK(tsb_list_get(&v.get(), 1, second.out()));
  EXPECT_EQ(first.get().type_index, TSB_TYPE_TENSOR);
  EXPECT_TRUE(FromBoundary(first.get()).toTensor().is_same(t));
  EXPECT_EQ(second.get().type_index, TSB_TYPE_NONE);

  // Host-built: untyped, then coerced; and typed from the start.
  Value h(Boundary(t));
  tsb_any items[] = {h.get(), tsb_any_none()};
  Value untyped;
  TSB_ASSERT_OK(tsb_list_new(TSB_TYPE_ANY, items, 2, untyped.out()));
  Value typed = Coerced(untyped.get(), "List[Optional[Tensor]]");
  EXPECT_EQ(typed.get().type_index, TypeOf("List[Optional[Tensor]]"));
  c10::impl::GenericList got = FromBoundary(typed.get()).toList();
  EXPECT_EQ(got.elementType()->annotation_str(), "Optional[Tensor]");
  EXPECT_TRUE(got.get(0).toTensor().is_same(t));
  EXPECT_TRUE(got.get(1).isNone());
  Value direct;
  TSB_ASSERT_OK(tsb_list_new(TypeOf("Optional[Tensor]"), items, 2, direct.out()));
  EXPECT_EQ(direct.get().type_index, TypeOf("List[Optional[Tensor]]"));
}

TEST_F(OptionalTest, DictOfListsOfOptionalTensors) {
  at::Tensor t = at::ones({2});
  const int32_t type = TypeOf("Dict[str, List[Optional[Tensor]]]");
  c10::impl::GenericDict dict(c10::StringType::get(),
                              c10::ListType::create(c10::OptionalType::ofTensor()));
  dict.insert(std::string("a"), c10::List<c10::optional<at::Tensor>>({c10::nullopt, t}));
  Value v(Boundary(dict));
  EXPECT_EQ(v.get().type_index, type);
  Value list, none, tensor;
  tsb_any key = tsb_any_borrowed_str("a");
  TSB_ASSERT_OK(tsb_dict_get(&v.get(), &key, list.out()));
  EXPECT_EQ(list.get().type_index, TypeOf("List[Optional[Tensor]]"));
  TSB_ASSERT_OK(tsb_list_get(&list.get(), 0, none.out()));
  TSB_ASSERT_OK(tsb_list_get(&list.get(), 1, tensor.out()));
  EXPECT_EQ(none.get().type_index, TSB_TYPE_NONE);
  EXPECT_EQ(tensor.get().type_index, TSB_TYPE_TENSOR);

  // Host-built from untyped lists.
  Value h(Boundary(t));
  tsb_any items[] = {tsb_any_none(), h.get()};
  Value untyped_list, untyped_dict;
  TSB_ASSERT_OK(tsb_list_new(TSB_TYPE_ANY, items, 2, untyped_list.out()));
  TSB_ASSERT_OK(tsb_dict_new(TSB_TYPE_STR, TSB_TYPE_ANY, &key, &untyped_list.get(), 1,
                             untyped_dict.out()));
  Value typed = Coerced(untyped_dict.get(), "Dict[str, List[Optional[Tensor]]]");
  EXPECT_EQ(typed.get().type_index, type);
  c10::impl::GenericDict got = FromBoundary(typed.get()).toGenericDict();
  EXPECT_EQ(got.valueType()->annotation_str(), "List[Optional[Tensor]]");
  EXPECT_TRUE(got.at(std::string("a")).toList().get(1).toTensor().is_same(t));
}

TEST_F(UnionTest, TypeInfoUsesLibTorchsCanonicalOrder) {
  const int32_t type = TypeOf("Union[str, int]");
  EXPECT_EQ(TypeOf("Union[int, str]"), type);
  tsb_type_info info = InfoOf(type);
  EXPECT_EQ(info.kind, TSB_KIND_UNION);
  EXPECT_STREQ(info.annotation, "Union[int, str]");
  EXPECT_STREQ(info.provider, "optional");
  EXPECT_EQ(ContainedOf(type), (std::vector<int32_t>{TSB_TYPE_INT, TSB_TYPE_STR}));
  // With three members, None stays a member of a Union.
  EXPECT_EQ(InfoOf(TypeOf("Union[int, str, None]")).kind, TSB_KIND_UNION);
}

TEST_F(UnionTest, AValueOfAMemberTypeIsKept) {
  Value one = Coerced(tsb_any_int(1), "Union[str, int]");
  EXPECT_EQ(one.get().type_index, TSB_TYPE_INT);
  EXPECT_EQ(one.get().u.i, 1);
  Value none = Coerced(tsb_any_none(), "Union[int, str, None]");
  EXPECT_EQ(none.get().type_index, TSB_TYPE_NONE);
  at::Tensor t = at::ones({2});
  Value h(Boundary(t));
  Value tensor = Coerced(h.get(), "Union[Tensor, List[int]]");
  EXPECT_EQ(tensor.get().type_index, TSB_TYPE_TENSOR);
  EXPECT_TRUE(FromBoundary(tensor.get()).toTensor().is_same(t));
}

// int would also widen to float: the exact member wins before any is tried.
TEST_F(UnionTest, AnExactMemberBeatsAWideningOne) {
  Value one = Coerced(tsb_any_int(1), "Union[float, int]");
  EXPECT_EQ(one.get().type_index, TSB_TYPE_INT);
  Value half = Coerced(tsb_any_float(0.5), "Union[float, int]");
  EXPECT_EQ(half.get().type_index, TSB_TYPE_FLOAT);
  Value c = Coerced(tsb_any_int(1), "Union[int, complex]");
  EXPECT_EQ(c.get().type_index, TSB_TYPE_INT);
}

TEST_F(UnionTest, TheOneMemberThatAcceptsItWins) {
  Value widened = Coerced(tsb_any_int(1), "Union[float, str]");
  EXPECT_EQ(widened.get().type_index, TSB_TYPE_FLOAT);
  EXPECT_EQ(widened.get().u.d, 1.0);
  Value untyped = AnyList({tsb_any_int(1), tsb_any_int(2)});
  Value list = Coerced(untyped.get(), "Union[Tensor, List[int]]");
  EXPECT_EQ(list.get().type_index, TypeOf("List[int]"));
}

TEST_F(UnionTest, SeveralAcceptingMembersAreAmbiguous) {
  ExpectCoerceError(tsb_any_int(1), TypeOf("Union[float, complex]"), "",
                    "ambiguous: int 1 matches Union[float, complex] members float, complex");
}

TEST_F(UnionTest, NoAcceptingMember) {
  ExpectCoerceError(tsb_any_float(1.5), TypeOf("Union[str, int]"), "",
                    "expected Union[int, str], got float 1.5");
  ExpectCoerceError(tsb_any_float(1.5), TypeOf("Optional[Union[int, str]]"), "",
                    "expected Optional[Union[int, str]], got float 1.5");
  // The one member the value had the shape of says where it went wrong.
  Value x(Str("x"));
  Value list = AnyList({tsb_any_int(1), x.get()});
  ExpectCoerceError(list.get(), TypeOf("Union[str, List[int]]"), "[1]",
                    "expected int, got str \"x\"");
}

TEST_F(UnionTest, ListOfUnionElementsCrossAsTheirOwnTypes) {
  Value a(Str("a"));
  Value untyped = AnyList({tsb_any_int(1), a.get()});
  Value list = Coerced(untyped.get(), "List[Union[int, str]]");
  Value first, second;
  TSB_ASSERT_OK(tsb_list_get(&list.get(), 0, first.out()));
  TSB_ASSERT_OK(tsb_list_get(&list.get(), 1, second.out()));
  EXPECT_EQ(first.get().type_index, TSB_TYPE_INT);
  EXPECT_EQ(second.get().type_index, TSB_TYPE_STR);
}

}  // namespace
}  // namespace tsb::testing
