// tsb_object_call: methods of a TorchScript class instance and of a
// torchbind object, bound like module methods.
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/custom_class.h>
#include <torch/script.h>

#include "core/types/type_registry.h"
#include "tests/runtime/runtime_testing.h"

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

TEST_F(ObjectTest, RefusesAValueThatIsNotAnObject) {
  tsb_any five = tsb_any_int(5);
  Value out;
  Status s(tsb_object_call(&five, "add", nullptr, out.out()));
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_TYPE);
  EXPECT_EQ(MessageOf(s), "expected an object, got int 5");
}

}  // namespace
}  // namespace tsb::testing
