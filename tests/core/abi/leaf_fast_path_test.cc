// The core's shortcuts for its own leaf types (None, bool, int, float, str,
// Tensor at their fixed indices): core/value/convert.cc writes and reads
// them without their codecs, core/abi/value_abi.cc and type_abi.cc answer a
// well-formed value without the checked way, core/abi/container_abi.cc
// writes a List's items without its codec's Item. Each must do exactly what
// the codec does, and leave everything else, errors included, as it was.
#include <ATen/ATen.h>

#include "core/compat/torch_compat.h"
#include "core/value/convert.h"
#include "core/object/object.h"
#include "tests/testing/abi_test.h"

namespace tsb::testing {
namespace {

using LeafFastPathTest = AbiTest;

struct Leaf {
  c10::IValue value;
  int32_t index;
};

std::vector<Leaf> Leaves() {
  std::vector<Leaf> leaves = {{c10::IValue(), TSB_TYPE_NONE},
                              {c10::IValue(true), TSB_TYPE_BOOL},
                              {c10::IValue(false), TSB_TYPE_BOOL},
                              {c10::IValue(int64_t{-7}), TSB_TYPE_INT},
                              {c10::IValue(2.5), TSB_TYPE_FLOAT},
                              {c10::IValue(std::string("abc")), TSB_TYPE_STR},
                              {c10::IValue(at::ones({2})), TSB_TYPE_TENSOR}};
  c10::IValue uint;  // LibTorch 2.9 and newer: an int above INT64_MAX
  if (compat::MakeUInt(uint64_t{1} << 63, &uint)) leaves.push_back({uint, TSB_TYPE_UINT});
  return leaves;
}

const TypeInfo& Info(int32_t index) { return **FindType(index); }

// Both boundary values are the same: inline payloads equal, or handles of
// the same type holding the same value (the same tensor).
void ExpectSame(const tsb_any& a, const tsb_any& b) {
  EXPECT_EQ(a.type_index, b.type_index);
  EXPECT_EQ(a.flags, b.flags);
  if (IsHandle(a) && IsHandle(b)) {
    EXPECT_EQ(a.u.obj->type_index, b.u.obj->type_index);
    EXPECT_TRUE(SameValue(a.u.obj->value, b.u.obj->value));
  } else {
    EXPECT_EQ(a.u.i, b.u.i);
  }
}

TEST_F(LeafFastPathTest, ToBoundaryWritesLeavesAsTheirCodecsDo) {
  for (const Leaf& leaf : Leaves()) {
    SCOPED_TRACE(DescribeValue(leaf.value));
    const TypeInfo& own = Info(leaf.index);
    tsb_any by_codec{}, under_own{}, under_any{}, untyped{};
    ASSERT_TRUE(own.codec->Encode(leaf.value, own, &by_codec).ok());
    ASSERT_TRUE(ToBoundary(leaf.value, own, &under_own).ok());
    ASSERT_TRUE(ToBoundary(leaf.value, Info(TSB_TYPE_ANY), &under_any).ok());
    ASSERT_TRUE(ToBoundary(leaf.value, &untyped).ok());
    ExpectSame(under_own, by_codec);
    ExpectSame(under_any, by_codec);
    ExpectSame(untyped, by_codec);
    for (tsb_any* v : {&by_codec, &under_own, &under_any, &untyped}) Release(*v);
  }
}

TEST_F(LeafFastPathTest, DecodeReadsInlineLeavesAsTheirCodecsDo) {
  tsb_any two_as_bool = tsb_any_bool(true);
  two_as_bool.u.i = 2;  // any non-zero payload is True
  std::vector<tsb_any> leaves = {tsb_any_none(), tsb_any_bool(false), two_as_bool,
                                 tsb_any_int(-3), tsb_any_float(0.25)};
  if (compat::kHasUInt) leaves.push_back(tsb_any_uint(UINT64_MAX));
  for (const tsb_any& v : leaves) {
    SCOPED_TRACE(v.type_index);
    absl::StatusOr<c10::IValue> by_codec = Info(v.type_index).codec->Decode(v);
    absl::StatusOr<TypedValue> decoded = Decode(v);
    ASSERT_TRUE(by_codec.ok() && decoded.ok());
    EXPECT_EQ(decoded->type, &Info(v.type_index));
    EXPECT_EQ(decoded->value.tagKind(), by_codec->tagKind());
    EXPECT_TRUE(SameValue(decoded->value, *by_codec));
  }
  // Malformed flags are still refused before any payload is read.
  tsb_any bad = tsb_any_int(1);
  bad.flags = 0x40;
  EXPECT_EQ(Decode(bad).status().message(), "malformed value: flags 64 do not fit type int");
}

TEST_F(LeafFastPathTest, CoerceKeepsLeavesAndStillConverts) {
  const c10::IValue t(at::ones({1}));
  EXPECT_TRUE(CoerceTo(t, Info(TSB_TYPE_TENSOR))->isSameIdentity(t));
  // Not of the type itself: the codec converts or refuses, as before.
  absl::StatusOr<c10::IValue> widened = CoerceTo(c10::IValue(int64_t{3}), Info(TSB_TYPE_FLOAT));
  ASSERT_TRUE(widened.ok());
  EXPECT_TRUE(widened->isDouble());
  EXPECT_EQ(widened->toDouble(), 3.0);
  EXPECT_EQ(CoerceTo(c10::IValue(true), Info(TSB_TYPE_INT)).status().message(),
            "expected int, got bool True");
}

TEST_F(LeafFastPathTest, ScalarGettersReadWellFormedValuesAndRefuseTheRest) {
  int64_t i = 0;
  double d = 0;
  bool b = false;
  const tsb_any int_value = tsb_any_int(-9), float_value = tsb_any_float(1.5),
                bool_value = tsb_any_bool(true);
  TSB_EXPECT_OK(tsb_int_get(&int_value, &i));
  TSB_EXPECT_OK(tsb_float_get(&float_value, &d));
  TSB_EXPECT_OK(tsb_bool_get(&bool_value, &b));
  EXPECT_EQ(i, -9);
  EXPECT_EQ(d, 1.5);
  EXPECT_TRUE(b);

  const tsb_any f = tsb_any_float(2.5), n = tsb_any_int(3);
  ExpectStatus(tsb_int_get(&f, &i), TSB_ERR_TYPE, "", "expected int, got float 2.5");
  ExpectStatus(tsb_float_get(&n, &d), TSB_ERR_TYPE, "", "expected float, got int 3");
  ExpectStatus(tsb_int_get(&n, nullptr), TSB_ERR_INVALID_ARGUMENT, "",
               "argument 'out' is NULL");
  ExpectStatus(tsb_int_get(nullptr, &i), TSB_ERR_INVALID_ARGUMENT, "",
               "argument 'v' is NULL");
  tsb_any bad = tsb_any_int(1);
  bad.flags = 0x40;
  ExpectStatus(tsb_int_get(&bad, &i), TSB_ERR_INVALID_ARGUMENT, "",
               "malformed value: flags 64 do not fit type int");
}

TEST_F(LeafFastPathTest, StrGetReadsHandlesAndBorrowedStrings) {
  Value handle;
  TSB_ASSERT_OK(tsb_str_new("a\0b", 3, handle.out()));
  const char* data = nullptr;
  size_t len = 0;
  TSB_ASSERT_OK(tsb_str_get(&handle.get(), &data, &len));
  EXPECT_EQ(std::string(data, len), std::string("a\0b", 3));
  const tsb_any borrowed = tsb_any_borrowed_str("xyz");
  TSB_ASSERT_OK(tsb_str_get(&borrowed, &data, &len));
  EXPECT_EQ(std::string(data, len), "xyz");
  const tsb_any n = tsb_any_int(1);
  ExpectStatus(tsb_str_get(&n, &data, &len), TSB_ERR_TYPE, "", "expected str, got int 1");
  ExpectStatus(tsb_str_get(&handle.get(), &data, nullptr), TSB_ERR_INVALID_ARGUMENT, "",
               "argument 'len' is NULL");
}

TEST_F(LeafFastPathTest, KindOfKnownAndUnknownIndices) {
  tsb_kind kind = TSB_KIND_INVALID;
  TSB_ASSERT_OK(tsb_type_get_kind(TypeOf("List[int]"), &kind));
  EXPECT_EQ(kind, TSB_KIND_LIST);
  ExpectStatus(tsb_type_get_kind(999999, &kind), TSB_ERR_NOT_FOUND, "",
               "unknown type index 999999");
  ExpectStatus(tsb_type_get_kind(TSB_TYPE_INT, nullptr), TSB_ERR_INVALID_ARGUMENT, "",
               "argument 'out' is NULL");
}

// A List's items in one call are what tsb_list_get (its codec's Item) gives.
TEST_F(LeafFastPathTest, ListItemsAreTheCodecsItems) {
  c10::impl::GenericList nested(c10::ListType::ofInts());
  nested.push_back(c10::List<int64_t>({1, 2}));
  for (const c10::IValue& list :
       {c10::IValue(c10::List<int64_t>({4, 5, 6})),
        c10::IValue(c10::List<std::string>({"a", "b"})),
        c10::IValue(c10::List<at::Tensor>({at::zeros({1}), at::ones({1})})),
        c10::IValue(nested)}) {
    SCOPED_TRACE(DescribeValue(list));
    Value v(Boundary(list));
    const size_t n = list.toListRef().size();
    ExpectItemsAsListGet(v.get(), n);
    std::vector<tsb_any> wrong(n + 1);
    ExpectStatus(tsb_list_get_items(&v.get(), n + 1, wrong.data()), TSB_ERR_OUT_OF_RANGE, "",
                 "buffer holds " + std::to_string(n + 1) + " elements but " +
                     DescribeValue(list) + " has " + std::to_string(n));
  }
}

TEST_F(LeafFastPathTest, DictItemsStillCheckTheKind) {
  Value dict(Boundary(c10::IValue(c10::Dict<std::string, int64_t>())));
  Value list(Boundary(c10::IValue(c10::List<int64_t>({1}))));
  tsb_any keys[2], values[2];
  ExpectStatus(tsb_dict_get_items(&list.get(), 1, keys, values), TSB_ERR_TYPE, "",
               "expected a Dict, got List[int] of length 1");
  ExpectStatus(tsb_dict_get_items(&dict.get(), 1, keys, values), TSB_ERR_OUT_OF_RANGE, "",
               "asked for 1 items of Dict[str, int] of length 0");
  c10::Dict<std::string, int64_t> two;
  two.insert("a", 1);
  two.insert("b", 2);
  Value full(Boundary(c10::IValue(two)));
  TSB_ASSERT_OK(tsb_dict_get_items(&full.get(), 2, keys, values));
  Value k0(keys[0]), k1(keys[1]), v0(values[0]), v1(values[1]);
  EXPECT_EQ(FromBoundary(k1.get()).toStringRef(), "b");
  EXPECT_EQ(v1.get().type_index, TSB_TYPE_INT);
  EXPECT_EQ(v1.get().u.i, 2);
}

}  // namespace
}  // namespace tsb::testing
