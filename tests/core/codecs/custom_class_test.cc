// torchbind custom classes through the C ABI: an opaque handle with a type
// name and no readable fields, that comes back as the very same object.
#include <utility>
#include <vector>

#include <torch/custom_class.h>
#include <torch/script.h>

#include "tests/testing/script_objects.h"

namespace tsb::testing {
namespace {

struct Stack : torch::CustomClassHolder {
  std::vector<int64_t> items;
  explicit Stack(std::vector<int64_t> init) : items(std::move(init)) {}
  void Push(int64_t x) { items.push_back(x); }
  int64_t Pop() {
    int64_t top = items.back();
    items.pop_back();
    return top;
  }
};

// Registered when the test binary loads, as a torchbind library would be.
const auto kStackClass =
    torch::class_<Stack>("tsb_test", "Stack")
        .def(torch::init<std::vector<int64_t>>())
        .def("push", &Stack::Push)
        .def("pop", &Stack::Pop)
        .def_pickle(
            [](const c10::intrusive_ptr<Stack>& self) { return self->items; },
            [](std::vector<int64_t> state) {
              return c10::make_intrusive<Stack>(std::move(state));
            });

constexpr const char* kStackName = "__torch__.torch.classes.tsb_test.Stack";

using CustomClassTest = AbiTest;

c10::IValue MakeStack() {
  return c10::IValue(c10::make_intrusive<Stack>(std::vector<int64_t>{1, 2}));
}

TEST_F(CustomClassTest, TypeInfo) {
  Value stack(Boundary(MakeStack()));
  EXPECT_NE(stack.get().flags & TSB_FLAG_HANDLE, 0u);
  tsb_type_info info = InfoOf(stack.get().type_index);
  EXPECT_EQ(info.kind, TSB_KIND_CUSTOM_CLASS);
  EXPECT_STREQ(info.name, kStackName);
  EXPECT_STREQ(info.annotation, kStackName);
  EXPECT_STREQ(info.provider, "core");
  EXPECT_EQ(info.num_contained, 0u);
  EXPECT_EQ(info.num_fields, 0u);
  EXPECT_EQ(info.field_names, nullptr);
  // One type for every instance.
  Value other(Boundary(MakeStack()));
  EXPECT_EQ(other.get().type_index, stack.get().type_index);
}

TEST_F(CustomClassTest, FieldsAreNotReadable) {
  Value stack(Boundary(MakeStack()));
  Value out;
  ExpectStatus(tsb_any_get_field(&stack.get(), "items", out.out()), TSB_ERR_TYPE, "",
               std::string(kStackName) +
                   " is a torchbind custom class: it has no readable fields (call its "
                   "methods with tsb_object_call; __getstate__ returns its state)");
  size_t n = 0;
  ExpectStatus(tsb_any_len(&stack.get(), &n), TSB_ERR_TYPE, "",
               std::string("expected a List, Dict or Tuple, got ") + kStackName);
}

TEST_F(CustomClassTest, RoundTripKeepsTheObject) {
  c10::IValue original = MakeStack();
  Value stack(Boundary(original));
  c10::IValue back = FromBoundary(stack.get());
  EXPECT_TRUE(back.isSameIdentity(original));
  EXPECT_EQ(back.toCustomClass<Stack>().get(), original.toCustomClass<Stack>().get());
  Value same;
  TSB_ASSERT_OK(tsb_any_coerce(&stack.get(), stack.get().type_index, same.out()));
  EXPECT_TRUE(FromBoundary(same.get()).isSameIdentity(original));
  // The object is shared, not copied: a change through C++ shows on both sides.
  original.toCustomClass<Stack>()->Push(3);
  EXPECT_EQ(FromBoundary(same.get()).toCustomClass<Stack>()->items.size(), 3u);
}

TEST_F(CustomClassTest, CoercionAcceptsOnlyTheClass) {
  Value stack(Boundary(MakeStack()));
  Value out;
  tsb_any three = tsb_any_int(3);
  ExpectStatus(tsb_any_coerce(&three, stack.get().type_index, out.out()), TSB_ERR_TYPE, "",
               std::string("expected ") + kStackName + ", got int 3");
  RecursiveClass rec;
  Value script_object(Boundary(rec.Make(1)));
  ExpectStatus(tsb_any_coerce(&script_object.get(), stack.get().type_index, out.out()),
               TSB_ERR_TYPE, "",
               std::string("expected ") + kStackName + ", got __torch__.Rec object");
  ExpectStatus(tsb_any_coerce(&stack.get(), script_object.get().type_index, out.out()),
               TSB_ERR_TYPE, "",
               std::string("expected __torch__.Rec, got ") + kStackName + " object");
}

}  // namespace
}  // namespace tsb::testing
