// tsb_any_unflatten (ABI 1.9): a value from its pre-order entries in one
// call, as the builders and a coerce to the whole type would make it; every
// entry borrowed; errors with the item's path.
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "tests/testing/abi_test.h"
#include "tsbridge/plugin/kind_codec.hpp"  // BorrowTensor, BorrowedTensor

namespace tsb::testing {
namespace {

using UnflattenTest = BundledPluginsTest;

tsb_any Open(const char* annotation, size_t count) {
  tsb_any e;
  e.type_index = TypeOf(annotation);
  e.flags = TSB_FLAG_CONTAINER;
  e.u.i = static_cast<int64_t>(count);
  return e;
}

// tsb_any_unflatten into a value, or its status.
Status Unflatten(const char* annotation, const std::vector<tsb_any>& entries, Value* out) {
  return Status(tsb_any_unflatten(TypeOf(annotation), entries.data(), entries.size(), out->out()));
}

TEST_F(UnflattenTest, ADictOfListsInOneCallWithNothingTaken) {
  const at::Tensor a = at::ones({2}), b = at::zeros({1});
  tsb_any held = Boundary(c10::IValue(b), "Tensor");
  const size_t live = LiveHandles();
  std::vector<tsb_any> entries = {
      Open("Dict[str, List[Optional[Tensor]]]", 7),
      tsb_any_borrowed_str("a"), Open("List[Optional[Tensor]]", 2), BorrowTensor(a), tsb_any_none(),
      tsb_any_borrowed_str("b"), Open("List[Optional[Tensor]]", 1), held};
  Value dict;
  TSB_ASSERT_OK(tsb_any_unflatten(TypeOf("Dict[str, List[Optional[Tensor]]]"), entries.data(),
                                  entries.size(), dict.out()));
  EXPECT_EQ(LiveHandles(), live + 1);  // the dict's handle alone: none per list
  EXPECT_EQ(dict.get().type_index, TypeOf("Dict[str, List[Optional[Tensor]]]"));
  const c10::impl::GenericDict d = FromBoundary(dict.get()).toGenericDict();
  ASSERT_EQ(d.size(), 2u);
  const auto first = d.at("a").toListRef();
  ASSERT_EQ(first.size(), 2u);
  EXPECT_TRUE(first[0].toTensor().is_same(a));  // the very tensors, no copy
  EXPECT_TRUE(first[1].isNone());
  EXPECT_TRUE(d.at("b").toListRef()[0].toTensor().is_same(b));
  EXPECT_EQ(*d.at("a").toList().elementType(), *c10::OptionalType::create(c10::TensorType::get()));
  tsb_any_release(&held);  // still the caller's to release
}

TEST_F(UnflattenTest, FlattenThenUnflattenGivesAnEqualValue) {
  for (const char* annotation :
       {"Tuple[int, str, List[float]]", "Dict[int, Tuple[float, str]]", "List[List[int]]",
        "tsbridge.tensor_pair", "Optional[Tuple[int, Optional[str]]]"}) {
    SCOPED_TRACE(annotation);
    c10::IValue value;
    const std::string a = annotation;
    if (a == "Tuple[int, str, List[float]]") {
      value = c10::ivalue::Tuple::create({int64_t{1}, std::string("x"),
                                          c10::List<double>({0.5, 2.0})});
    } else if (a == "Dict[int, Tuple[float, str]]") {
      c10::impl::GenericDict d(c10::IntType::get(),
                               c10::TupleType::create({c10::FloatType::get(), c10::StringType::get()}));
      d.insert(int64_t{3}, c10::ivalue::Tuple::create({1.5, std::string("y")}));
      d.insert(int64_t{-1}, c10::ivalue::Tuple::create({0.0, std::string("")}));
      value = c10::IValue(d);
    } else if (a == "List[List[int]]") {
      c10::List<c10::List<int64_t>> l;
      l.push_back(c10::List<int64_t>({1, 2}));
      l.push_back(c10::List<int64_t>());
      value = c10::IValue(l);
    } else if (a == "tsbridge.tensor_pair") {
      value = c10::ivalue::Tuple::create({at::ones({1}), at::zeros({2})});
    } else {
      value = c10::ivalue::Tuple::create({int64_t{4}, c10::IValue()});
    }
    tsb_any v = Boundary(value, annotation);
    size_t n = 0;
    TSB_ASSERT_OK(tsb_any_flatten_borrowed(&v, nullptr, 0, &n));
    std::vector<tsb_any> entries(n);
    TSB_ASSERT_OK(tsb_any_flatten_borrowed(&v, entries.data(), n, &n));
    Value back;
    Status s = Unflatten(annotation, entries, &back);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(back.get().type_index, v.type_index);
    EXPECT_EQ(FromBoundary(back.get()), FromBoundary(v));
    for (tsb_any& e : entries) tsb_any_release(&e);
    tsb_any_release(&v);
  }
}

TEST_F(UnflattenTest, ItemsConvertAsACoerceConverts) {
  // An int where a float is expected; an untyped List where a Tuple is; a
  // Dict[str, Any] where a NamedTuple is (by field name).
  Value floats;
  TSB_ASSERT_OK(Unflatten("List[float]", {Open("List[float]", 2), tsb_any_int(1), tsb_any_float(2.5)},
                          &floats));
  EXPECT_EQ(FromBoundary(floats.get()).toDoubleList().vec(), (std::vector<double>{1.0, 2.5}));
  Value tuple;
  TSB_ASSERT_OK(Unflatten("Tuple[int, str]", {Open("List[Any]", 2), tsb_any_int(7),
                                              tsb_any_borrowed_str("s")},
                          &tuple));
  EXPECT_EQ(tuple.get().type_index, TypeOf("Tuple[int, str]"));
  Value pair;
  TSB_ASSERT_OK(Unflatten("tsbridge.tensor_pair",
                          {Open("Dict[str, Any]", 4), tsb_any_borrowed_str("second"),
                           BorrowTensor(at::zeros({1})), tsb_any_borrowed_str("first"),
                           BorrowTensor(at::ones({1}))},
                          &pair));
  EXPECT_TRUE(FromBoundary(pair.get()).toTupleRef().elements()[0].toTensor().equal(at::ones({1})));
  // Under Any a container entry is its own type.
  Value any;
  TSB_ASSERT_OK(Unflatten("Any", {Open("List[int]", 1), tsb_any_int(5)}, &any));
  EXPECT_EQ(any.get().type_index, TypeOf("List[int]"));
}

TEST_F(UnflattenTest, ErrorsNameTheItemsPath) {
  const size_t live = LiveHandles();
  Value out;
  Status leaf = Unflatten("Dict[str, List[Optional[Tensor]]]",
                          {Open("Dict[str, List[Optional[Tensor]]]", 4), tsb_any_borrowed_str("a"),
                           Open("List[Optional[Tensor]]", 2), tsb_any_none(), tsb_any_int(3)},
                          &out);
  EXPECT_EQ(leaf.code(), TSB_ERR_TYPE);
  EXPECT_EQ(std::string(tsb_status_get_path(leaf.get())), "key \"a\" \u2192 [1]");
  EXPECT_NE(leaf.message().find("expected Optional[Tensor], got int 3"), std::string::npos)
      << leaf.message();
  Status arity = Unflatten("Tuple[int, str]", {Open("Tuple[int, int, int]", 3), tsb_any_int(1),
                                               tsb_any_int(2), tsb_any_int(3)},
                           &out);
  EXPECT_NE(arity.message().find("expected 2 items for Tuple[int, str], got 3"), std::string::npos)
      << arity.message();
  Status past = Unflatten("List[int]", {Open("List[int]", 5), tsb_any_int(1)}, &out);
  EXPECT_EQ(past.code(), TSB_ERR_INVALID_ARGUMENT);
  EXPECT_NE(past.message().find("entries[0] that does not"), std::string::npos) << past.message();
  Status extra = Unflatten("int", {tsb_any_int(1), tsb_any_int(2)}, &out);
  EXPECT_NE(extra.message().find("to be one value, found it ending at entries[1]"),
            std::string::npos)
      << extra.message();
  Status object = Unflatten("Any", {Open("Optional[int]", 0)}, &out);
  EXPECT_NE(object.message().find("expected a List, Tuple, NamedTuple or Dict type on a "
                                  "container entry, got Optional[int]"),
            std::string::npos)
      << object.message();
  EXPECT_EQ(LiveHandles(), live);  // a failure leaks nothing
}

TEST_F(UnflattenTest, TooDeepAValueIsRefused) {
  std::vector<tsb_any> entries;
  for (int i = 0; i < 600; ++i) entries.push_back(Open("List[Any]", 600 - i - 1));
  Value out;
  Status s = Unflatten("Any", entries, &out);
  EXPECT_EQ(s.code(), TSB_ERR_INVALID_ARGUMENT);
  EXPECT_NE(s.message().find("nested at most 512 containers deep"), std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace tsb::testing
