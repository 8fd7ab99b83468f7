// tsb_object_call: methods of a TorchScript class instance and of a
// torchbind object, bound like module methods; tsb_object_write/read: an
// instance to bytes and back, its class's code with it.
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/custom_class.h>
#include <torch/script.h>

#include "core/types/type_registry.h"
#include "tests/core/runtime/runtime_testing.h"
#include "tsbridge/plugin/kind_codec.hpp"

namespace {

struct Accumulator : torch::CustomClassHolder {
  explicit Accumulator(int64_t start) : total(start) {}
  int64_t add(int64_t x) { return total += x; }
  int64_t total;
};

const auto accumulator_class =
    torch::class_<Accumulator>("tsb_test", "Accumulator")
        .def(torch::init<int64_t>())
        .def("add", &Accumulator::add, "", {torch::arg("x") = 1});

// Objects cross as handles. The core gains a codec for class instances
// elsewhere (the kinds work); until then this test serves the kind itself,
// and steps aside once a real codec is registered.
class TestObjectCodec final : public tsb::KindCodec {
 public:
  tsb_kind kind() const override { return TSB_KIND_OBJECT; }
  c10::TypeKind type_kind() const override { return c10::TypeKind::ClassType; }
  absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                     const tsb::TypeInfo& expected) const override {
    if (value.isObject() && value.type()->str() == expected.type->str()) return value;
    return tsb::Mismatch(expected, value);
  }
};

// A torchbind class's type holds its C++ object in a Capsule attribute,
// which the registry interns with the class: a stand-in that takes nothing.
class TestCapsuleCodec final : public tsb::KindCodec {
 public:
  tsb_kind kind() const override { return TSB_KIND_CUSTOM_CLASS; }  // a dynamic index
  c10::TypeKind type_kind() const override { return c10::TypeKind::CapsuleType; }
  absl::StatusOr<c10::IValue> Coerce(const c10::IValue& value,
                                     const tsb::TypeInfo& expected) const override {
    return tsb::Mismatch(expected, value);
  }
};

void EnsureObjectCodec() {
  auto& registry = tsb::TypeRegistry::Global();
  if (registry.CodecFor(c10::TypeKind::ClassType) == nullptr) {
    ASSERT_TRUE(registry.RegisterCodec(std::make_unique<TestObjectCodec>(), "test").ok());
  }
  if (registry.CodecFor(c10::TypeKind::CapsuleType) == nullptr) {
    ASSERT_TRUE(registry.RegisterCodec(std::make_unique<TestCapsuleCodec>(), "test").ok());
  }
}

}  // namespace

namespace tsb::testing {
namespace {

using ::testing::HasSubstr;

class ObjectTest : public AbiTest {
 protected:
  void SetUp() override {
    AbiTest::SetUp();
    LoadBundledPlugins();
    EnsureObjectCodec();
  }
};

TEST_F(ObjectTest, CallsAScriptClassMethod) {
  // The fixture module holds a Counter(5) in its `counter` attribute.
  torch::jit::Module module = torch::jit::load(Fixture("calls.pt"));
  Value counter(Boundary(module.attr("counter")));
  const char* names[] = {"times"};
  tsb_any kw[] = {tsb_any_int(3)};
  tsb_any args[] = {tsb_any_int(2)};
  Value out;
  TSB_ASSERT_OK(tsb_object_call(&counter.get(), "add", ::tsb::CallArgs(args, 1, names, kw, 1).get(), out.out()));
  EXPECT_EQ(out.get().u.i, 11);  // 5 + 2 * 3
  TSB_ASSERT_OK(tsb_object_call(&counter.get(), "add", ::tsb::CallArgs(args, 1).get(), out.out()));
  EXPECT_EQ(out.get().u.i, 13);  // the object's state changed: times defaults to 1

  tsb_any bad[] = {tsb_any_borrowed_str("x")};
  Status s(tsb_object_call(&counter.get(), "add", ::tsb::CallArgs(bad, 1).get(), out.out()));
  EXPECT_EQ(MessageOf(s), "add(): argument 'k': expected int, got str \"x\"");
  Status unknown(tsb_object_call(&counter.get(), "sub", ::tsb::CallArgs(args, 1).get(), out.out()));
  EXPECT_EQ(tsb_status_get_code(unknown.get()), TSB_ERR_NOT_FOUND);
  EXPECT_EQ(MessageOf(unknown), "no method 'sub' in __torch__.Counter; its methods: __init__, add");
}

TEST_F(ObjectTest, CallsATorchbindMethod) {
  Value acc(Boundary(c10::IValue(c10::make_intrusive<Accumulator>(40))));
  tsb_any args[] = {tsb_any_int(2)};
  Value out;
  TSB_ASSERT_OK(tsb_object_call(&acc.get(), "add", ::tsb::CallArgs(args, 1).get(), out.out()));
  EXPECT_EQ(out.get().u.i, 42);
  TSB_ASSERT_OK(tsb_object_call(&acc.get(), "add", nullptr, out.out()));
  EXPECT_EQ(out.get().u.i, 43);  // x defaults to 1
  const char* names[] = {"y"};
  Status s(tsb_object_call(&acc.get(), "add", ::tsb::CallArgs(nullptr, 0, names, args, 1).get(), out.out()));
  EXPECT_EQ(MessageOf(s), "add(): unknown keyword argument 'y'");
}

// The bytes tsb_object_write made, as a string; empty on failure.
std::string Written(const tsb_any& object) {
  char* data = nullptr;
  size_t size = 0;
  Status s(tsb_object_write(&object, &data, &size));
  EXPECT_TRUE(s.get() == nullptr) << MessageOf(s);
  std::string bytes = data == nullptr ? std::string() : std::string(data, size);
  tsb_string_free(data);
  return bytes;
}

TEST_F(ObjectTest, WritesAndReadsAScriptClassInstanceWithItsClass) {
  std::string bytes;
  {
    torch::jit::Module module = torch::jit::load(Fixture("calls.pt"));
    Value counter(Boundary(module.attr("counter")));
    bytes = Written(counter.get());
  }  // the module and its compilation unit are gone: the class comes from the bytes
  ASSERT_FALSE(bytes.empty());
  Value object;
  TSB_ASSERT_OK(tsb_object_read(bytes.data(), bytes.size(), object.out()));
  tsb_any args[] = {tsb_any_int(2)};
  Value out;
  TSB_ASSERT_OK(tsb_object_call(&object.get(), "add", ::tsb::CallArgs(args, 1).get(), out.out()));
  EXPECT_EQ(out.get().u.i, 7);  // Counter(5), as it was written
  // The bytes are a TorchScript archive LibTorch reads as such.
  std::istringstream stream(bytes);
  torch::jit::Module holder = torch::jit::load(stream);
  EXPECT_TRUE(holder.attr("object").isObject());
}

TEST_F(ObjectTest, RefusesToWriteWhatIsNotAClassInstanceOrHasNoState) {
  tsb_any five = tsb_any_int(5);
  char* data = nullptr;
  size_t size = 0;
  Status s(tsb_object_write(&five, &data, &size));
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_TYPE);
  EXPECT_EQ(MessageOf(s), "expected an object (a TorchScript class instance), got int 5");
  // A torchbind class without def_pickle has nothing LibTorch can write.
  Value acc(Boundary(c10::IValue(c10::make_intrusive<Accumulator>(40))));
  Status t(tsb_object_write(&acc.get(), &data, &size));
  EXPECT_NE(t.get(), nullptr);
  EXPECT_THAT(MessageOf(t), HasSubstr("Cannot serialize custom bound C++ class"));
  EXPECT_EQ(data, nullptr);
}

TEST_F(ObjectTest, RefusesToReadAnArchiveThatHoldsNoObject) {
  std::ifstream file(Fixture("calls.pt"), std::ios::binary);
  std::string module_bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  Value out;
  Status s(tsb_object_read(module_bytes.data(), module_bytes.size(), out.out()));
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_TYPE);
  EXPECT_THAT(MessageOf(s), HasSubstr("expected the archive of an object (a module "
                                      "__torch__.tsb.ObjectHolder with an attribute `object`), "
                                      "got a module of class __torch__."));
  Status garbage(tsb_object_read("not a zip", 9, out.out()));
  EXPECT_NE(garbage.get(), nullptr);
  Status empty(tsb_object_read(nullptr, 0, out.out()));
  EXPECT_NE(empty.get(), nullptr);
}

TEST_F(ObjectTest, RefusesAValueThatIsNotAnObject) {
  tsb_any five = tsb_any_int(5);
  Value out;
  Status s(tsb_object_call(&five, "add", nullptr, out.out()));
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_TYPE);
  EXPECT_EQ(MessageOf(s), "expected an object, got int 5");
}

}  // namespace
}  // namespace tsb::testing
