// An int above INT64_MAX (ABI 1.6): LibTorch 2.9's IValue UInt crosses as
// TSB_TYPE_UINT (u.u), never as a negative int, through a TorchScript
// method that takes and returns `int`, inside List[int] and Dict[str, int],
// JSON, flattening and coercion. Before 2.9 the same inputs are refused
// with TSB_ERR_UNSUPPORTED, saying which LibTorch is needed. The release is
// read from LibTorch's version header, not from the code under test.
#include <cstdint>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <torch/version.h>

#include "tests/testing/abi_test.h"

namespace tsb::testing {
namespace {

using ::testing::HasSubstr;

constexpr bool kHasUInt =
    TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 9);
constexpr uint64_t kTwo63 = uint64_t{1} << 63;
constexpr uint64_t kMax = UINT64_MAX;

class UIntTest : public AbiTest {
 protected:
  void SetUp() override {
    AbiTest::SetUp();
    TSB_ASSERT_OK(tsb_module_compile(
        "def ident(self, x: int) -> int:\n"
        "    return x\n"
        "def ints(self, xs: List[int]) -> List[int]:\n"
        "    return xs\n"
        "def table(self, d: Dict[str, int]) -> Dict[str, int]:\n"
        "    return d\n"
        "def half(self, x: float) -> float:\n"
        "    return x / 2.0\n",
        &module_));
  }
  void TearDown() override {
    tsb_module_free(module_);
    AbiTest::TearDown();
  }
  // method(arg): the result, or the status.
  tsb_status* Call(const char* method, const tsb_any& arg, tsb_any* out) {
    const tsb_call_args args = tsb_call_args_make(&arg, 1);
    return tsb_module_call(module_, method, &args, out);
  }
  tsb_module* module_ = nullptr;
};

std::string Json(const tsb_any& v) {
  char* text = nullptr;
  Status s(tsb_json_write(&v, &text));
  if (s.get() != nullptr) return tsb_status_get_message(s.get());
  std::string out(text);
  tsb_string_free(text);
  return out;
}

// The refusal of a LibTorch without UInt: what was expected, what was
// found, which LibTorch is needed, and where (when `path` is given).
void ExpectRefused(tsb_status* raw, const std::string& found, const char* path = nullptr) {
  Status s(raw);
  ASSERT_NE(s.get(), nullptr) << "accepted " << found;
  if (path != nullptr) EXPECT_STREQ(tsb_status_get_path(s.get()), path);
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_UNSUPPORTED) << tsb_status_get_message(s.get());
  EXPECT_THAT(tsb_status_get_detail(s.get()),
              HasSubstr("got " + found + ", which needs LibTorch 2.9 or newer (an int above "
                        "INT64_MAX; this is LibTorch " TORCH_VERSION ")"));
}

// Whether `raw` succeeded, as it must with LibTorch 2.9 and newer; before,
// it must be the refusal of `found`.
bool Accepted(tsb_status* raw, const std::string& found, const char* path = nullptr) {
  if (!kHasUInt) {
    ExpectRefused(raw, found, path);
    return false;
  }
  Status s(raw);
  EXPECT_EQ(s.get(), nullptr) << tsb_status_get_message(s.get());
  return s.get() == nullptr;
}

TEST_F(UIntTest, TheHeaderMakesAUIntOnlyAboveInt64Max) {
  EXPECT_EQ(tsb_any_uint(5).type_index, TSB_TYPE_INT);
  EXPECT_EQ(tsb_any_uint(5).u.i, 5);
  EXPECT_EQ(tsb_any_uint(INT64_MAX).type_index, TSB_TYPE_INT);
  EXPECT_EQ(tsb_any_uint(kTwo63).type_index, TSB_TYPE_UINT);
  EXPECT_EQ(tsb_any_uint(kTwo63).u.u, kTwo63);
  tsb_type_info info{};
  info.struct_size = sizeof(info);
  TSB_ASSERT_OK(tsb_type_get_info(TSB_TYPE_UINT, &info));
  EXPECT_EQ(info.kind, TSB_KIND_UINT);
  EXPECT_STREQ(info.annotation, "int");
  EXPECT_EQ(TypeOf("int"), TSB_TYPE_INT);  // one TorchScript type: uint is a value form
}

TEST_F(UIntTest, AnIntMethodReturnsTheUIntItTook) {
  for (uint64_t u : {kTwo63, kMax}) {
    SCOPED_TRACE(u);
    tsb_any out{};
    if (!Accepted(Call("ident", tsb_any_uint(u), &out), "int " + std::to_string(u),
                  "ident(): argument 'x'")) {
      continue;
    }
    EXPECT_EQ(out.type_index, TSB_TYPE_UINT);
    EXPECT_EQ(out.u.u, u);
    EXPECT_EQ(Json(out), std::to_string(u));
    int64_t i = 0;
    ExpectStatus(tsb_int_get(&out, &i), TSB_ERR_TYPE, "",
                 "expected int (int64_t), got int " + std::to_string(u) +
                     ", above INT64_MAX (a uint: read its u.u)");
  }
  tsb_any small{};  // at or below INT64_MAX: an int as ever
  TSB_ASSERT_OK(Call("ident", tsb_any_uint(INT64_MAX), &small));
  EXPECT_EQ(small.type_index, TSB_TYPE_INT);
  EXPECT_EQ(small.u.i, INT64_MAX);
}

TEST_F(UIntTest, AListOfIntHoldsUIntsAsThemselves) {
  const tsb_any items[] = {tsb_any_int(-1), tsb_any_uint(kTwo63), tsb_any_uint(kMax)};
  Value list;
  if (!Accepted(tsb_list_new(TSB_TYPE_INT, items, 3, list.out()), "int 9223372036854775808",
                "[1]")) {
    return;
  }
  Value out;
  TSB_ASSERT_OK(Call("ints", list.get(), out.out()));
  EXPECT_EQ(out.type_index(), TypeOf("List[int]"));
  EXPECT_EQ(Json(out.get()), "[-1,9223372036854775808,18446744073709551615]");
  tsb_any got[3];
  TSB_ASSERT_OK(tsb_list_get_items(&out.get(), 3, got));
  EXPECT_EQ(got[0].type_index, TSB_TYPE_INT);
  EXPECT_EQ(got[1].type_index, TSB_TYPE_UINT);
  EXPECT_EQ(got[1].u.u, kTwo63);
  EXPECT_EQ(got[2].type_index, TSB_TYPE_UINT);
  EXPECT_EQ(got[2].u.u, kMax);
  // The bulk copy has no int64_t for one: it says which item.
  int64_t buf[3];
  ExpectStatus(tsb_list_copy_int(&out.get(), 3, buf), TSB_ERR_TYPE, "[1]",
               "expected int (int64_t), got int 9223372036854775808, above INT64_MAX (a "
               "uint: read its u.u)");
  // Flattened: the same leaves after the container's entry.
  tsb_any flat[4];
  size_t n = 0;
  TSB_ASSERT_OK(tsb_any_flatten(&out.get(), flat, 4, &n));
  ASSERT_EQ(n, 4u);
  EXPECT_EQ(flat[2].type_index, TSB_TYPE_UINT);
  EXPECT_EQ(flat[3].u.u, kMax);
  // A List[Any] of ints and uints becomes a List[int] by coercion.
  Value untyped, typed;
  TSB_ASSERT_OK(tsb_list_new(TSB_TYPE_ANY, items, 3, untyped.out()));
  TSB_ASSERT_OK(tsb_any_coerce(&untyped.get(), TypeOf("List[int]"), typed.out()));
  EXPECT_EQ(Json(typed.get()), "[-1,9223372036854775808,18446744073709551615]");
}

TEST_F(UIntTest, ADictOfIntKeepsAUIntValue) {
  Value text;
  if (!Accepted(tsb_json_read("{\"a\": 1, \"b\": 18446744073709551615}",
                              TypeOf("Dict[str, int]"), text.out()),
                "JSON number 18446744073709551615")) {
    return;
  }
  Value out;
  TSB_ASSERT_OK(Call("table", text.get(), out.out()));
  EXPECT_EQ(Json(out.get()), "{\"a\":1,\"b\":18446744073709551615}");
  Value key, value;
  TSB_ASSERT_OK(tsb_dict_get_item(&out.get(), 1, key.out(), value.out()));
  EXPECT_EQ(value.type_index(), TSB_TYPE_UINT);
  EXPECT_EQ(value.get().u.u, kMax);
}

TEST_F(UIntTest, JsonReadsANumberAboveInt64MaxAsAUInt) {
  for (int32_t type : {TSB_TYPE_INT, TSB_TYPE_ANY, TSB_TYPE_NUMBER}) {
    SCOPED_TRACE(type);
    Value v;
    if (!Accepted(tsb_json_read("9223372036854775808", type, v.out()),
                  "JSON number 9223372036854775808")) {
      continue;
    }
    EXPECT_EQ(v.type_index(), TSB_TYPE_UINT);
    EXPECT_EQ(v.get().u.u, kTwo63);
  }
  // Past UINT64_MAX JSON has only a float, which is no int.
  Value past;
  ExpectStatus(tsb_json_read("18446744073709551616", TSB_TYPE_INT, past.out()), TSB_ERR_TYPE, "",
               "expected int, got JSON number 1.8446744073709552e+19");
}

TEST_F(UIntTest, FloatScalarAndAnyTakeAUInt) {
  const tsb_any u = tsb_any_uint(kTwo63);
  Value f;
  if (!Accepted(tsb_any_coerce(&u, TSB_TYPE_FLOAT, f.out()), "int 9223372036854775808")) return;
  EXPECT_EQ(f.type_index(), TSB_TYPE_FLOAT);
  EXPECT_EQ(f.get().u.d, 9223372036854775808.0);
  Value half;
  TSB_ASSERT_OK(Call("half", u, half.out()));  // a call widens it too
  EXPECT_EQ(half.get().u.d, 4611686018427387904.0);
  for (int32_t type : {TSB_TYPE_NUMBER, TSB_TYPE_ANY, TSB_TYPE_INT, TSB_TYPE_UINT}) {
    Value same;
    TSB_ASSERT_OK(tsb_any_coerce(&u, type, same.out()));
    EXPECT_EQ(same.type_index(), TSB_TYPE_UINT) << type;
    EXPECT_EQ(same.get().u.u, kTwo63) << type;
  }
  char* repr = nullptr;
  TSB_ASSERT_OK(tsb_any_repr(&u, &repr));
  EXPECT_STREQ(repr, "9223372036854775808");
  tsb_string_free(repr);
  Value str, refused;
  TSB_ASSERT_OK(tsb_str_new("x", 1, str.out()));
  ExpectStatus(tsb_any_coerce(&str.get(), TSB_TYPE_UINT, refused.out()), TSB_ERR_TYPE, "",
               "expected int, got str \"x\"");
}

}  // namespace
}  // namespace tsb::testing
