// Interning and parsing of TorchScript types.
#include <thread>
#include <vector>

#include "core/types/type_registry.h"
#include "tests/testing/abi_test.h"

namespace tsb::testing {
namespace {

tsb_type_info Info(int32_t index) {
  tsb_type_info info{};
  info.struct_size = sizeof(info);
  Status s(tsb_type_get_info(index, &info));
  EXPECT_EQ(s.get(), nullptr) << tsb_status_get_message(s.get());
  return info;
}

TEST(TypeRegistryTest, LeafTypesHaveFixedIndices) {
  const std::pair<const char*, int32_t> leaves[] = {
      {"None", TSB_TYPE_NONE},     {"bool", TSB_TYPE_BOOL},
      {"int", TSB_TYPE_INT},       {"float", TSB_TYPE_FLOAT},
      {"complex", TSB_TYPE_COMPLEX}, {"str", TSB_TYPE_STR},
      {"Tensor", TSB_TYPE_TENSOR}, {"Device", TSB_TYPE_DEVICE},
      {"ScalarType", TSB_TYPE_DTYPE}, {"Layout", TSB_TYPE_LAYOUT},
      {"MemoryFormat", TSB_TYPE_MEMORY_FORMAT}, {"Scalar", TSB_TYPE_NUMBER},
      {"Any", TSB_TYPE_ANY}};
  for (const auto& [name, index] : leaves) {
    EXPECT_EQ(TypeOf(name), index) << name;
    EXPECT_EQ(static_cast<int32_t>(::tsb::KindOf(index)), index) << name;
    EXPECT_STREQ(Info(index).provider, "core");
  }
  // uint (1.6), a value form of int: its own fixed index, annotated "int".
  EXPECT_EQ(::tsb::KindOf(TSB_TYPE_UINT), TSB_KIND_UINT);
  EXPECT_STREQ(Info(TSB_TYPE_UINT).annotation, "int");
  EXPECT_STREQ(Info(TSB_TYPE_UINT).provider, "core");
}

TEST(TypeRegistryTest, SameTypeSameIndexWhicheverSyntax) {
  int32_t list = TypeOf("List[int]");
  EXPECT_GE(list, TSB_TYPE_FIRST_DYNAMIC);
  EXPECT_EQ(TypeOf("int[]"), list);  // schema syntax, LibTorch's other parser
  EXPECT_EQ(TypeOf("List[int]"), list);
  int32_t composed = 0;
  TSB_EXPECT_OK(tsb_type_make_list(TSB_TYPE_INT, &composed));
  EXPECT_EQ(composed, list);
  int32_t dict = 0;
  TSB_EXPECT_OK(tsb_type_make_dict(TSB_TYPE_STR, list, &dict));
  EXPECT_EQ(dict, TypeOf("Dict[str, List[int]]"));
  EXPECT_EQ(dict, TypeOf("Dict(str, int[])"));
  EXPECT_NE(TypeOf("List[float]"), list);
}

TEST(TypeRegistryTest, InfoDescribesContainedTypes) {
  tsb_type_info info = Info(TypeOf("Dict[str, List[Tensor]]"));
  EXPECT_EQ(info.kind, TSB_KIND_DICT);
  EXPECT_STREQ(info.annotation, "Dict[str, List[Tensor]]");
  EXPECT_STREQ(info.name, "");
  ASSERT_EQ(info.num_contained, 2u);
  EXPECT_EQ(info.contained[0], TSB_TYPE_STR);
  EXPECT_EQ(info.contained[1], TypeOf("List[Tensor]"));
  EXPECT_EQ(info.field_names, nullptr);
}

TEST(TypeRegistryTest, SmallerInfoStructGetsTheFieldsItKnows) {
  tsb_type_info info{};
  info.struct_size = offsetof(tsb_type_info, name);  // an older, shorter header
  info.name = "untouched";
  TSB_EXPECT_OK(tsb_type_get_info(TSB_TYPE_INT, &info));
  EXPECT_EQ(info.kind, TSB_KIND_INT);
  EXPECT_STREQ(info.annotation, "int");
  EXPECT_STREQ(info.name, "untouched");
  info.struct_size = 0;
  Status s(tsb_type_get_info(TSB_TYPE_INT, &info));
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_INVALID_ARGUMENT);
}

TEST(TypeRegistryTest, InvalidTypeStrings) {
  const std::pair<const char*, const char*> cases[] = {
      {"Foo", "invalid TorchScript type \"Foo\": Unknown type name 'Foo'"},
      {"List[int", "invalid TorchScript type \"List[int\": expected ] but found 'eof' here"},
      {"List[int] x", "invalid TorchScript type \"List[int] x\": unexpected 'x' after the type"},
      {"", "invalid TorchScript type \"\": the string is empty"},
      {"int[] x", "invalid TorchScript type \"int[] x\": unexpected 'x' after the type"},
  };
  for (const auto& [text, message] : cases) {
    int32_t index = -7;
    Status s(tsb_type_parse(text, &index));
    ASSERT_NE(s.get(), nullptr) << text;
    EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_INVALID_ARGUMENT) << text;
    EXPECT_STREQ(tsb_status_get_message(s.get()), message) << text;
    EXPECT_EQ(index, -7) << "out must stay untouched";
  }
}

TEST(TypeRegistryTest, UnsupportedDictKeyIsLibTorchsError) {
  int32_t index = 0;
  Status s(tsb_type_parse("Dict[List[int], int]", &index));
  ASSERT_NE(s.get(), nullptr);
  EXPECT_NE(std::string(tsb_status_get_message(s.get())).find("List[int]"), std::string::npos)
      << tsb_status_get_message(s.get());
  Status composed(tsb_type_make_dict(TypeOf("List[int]"), TSB_TYPE_INT, &index));
  EXPECT_EQ(tsb_status_get_code(composed.get()), TSB_ERR_TORCH);
  EXPECT_STREQ(tsb_status_get_backtrace(s.get()), "") << "backtraces stay out of parse errors";
}

TEST(TypeRegistryTest, UnknownIndices) {
  for (int32_t index : {-1, 0, 15, 63, 1 << 30}) {
    EXPECT_EQ(::tsb::KindOf(index), TSB_KIND_INVALID) << index;
    tsb_type_info info{};
    info.struct_size = sizeof(info);
    Status s(tsb_type_get_info(index, &info));
    EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_NOT_FOUND) << index;
    EXPECT_EQ(tsb_status_get_message(s.get()), "unknown type index " + std::to_string(index));
  }
}

TEST(TypeRegistryTest, ConcurrentInterningAgreesOnIndices) {
  // Every thread interns the same fresh types; all must see one index each.
  constexpr int kThreads = 8;
  std::vector<std::vector<int32_t>> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&seen, t] {
      for (int depth = 0; depth < 20; ++depth) {
        std::string type = "float";
        for (int d = 0; d <= depth; ++d) type = "Dict[int, List[" + type + "]]";
        int32_t index = 0;
        tsb_status* s = tsb_type_parse(type.c_str(), &index);
        seen[t].push_back(s == nullptr ? index : -1);
        tsb_status_free(s);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 1; t < kThreads; ++t) EXPECT_EQ(seen[t], seen[0]);
  EXPECT_EQ(std::count(seen[0].begin(), seen[0].end(), -1), 0);
}

class SecondIntCodec final : public KindCodec {
 public:
  tsb_kind kind() const override { return TSB_KIND_INT; }
  c10::TypeKind type_kind() const override { return c10::TypeKind::IntType; }
  absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                     const TypeInfo&) const override {
    return value;
  }
};

TEST(TypeRegistryTest, AKindHasOneCodec) {
  absl::Status s = TypeRegistry::Global().RegisterCodec(
      std::make_unique<SecondIntCodec>(), "test");
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(s.message(), "a codec for IntType is already registered by core");
}

}  // namespace
}  // namespace tsb::testing
