// Enums and TorchScript class instances through the C ABI: type info,
// tsb_enum_get, tsb_any_get_field, type-directed coercion and its errors. The
// values come from a scripted module (tests/core/codecs), or from class
// types built in C++ where TorchScript would refuse them. No plugin is
// loaded here: tests/plugins/object_optional_test.cc reads Optional fields.
#include <utility>

#include "core/types/type_registry.h"
#include "tests/testing/script_objects.h"

namespace tsb::testing {
namespace {

class EnumTest : public AbiTest {
 protected:
  torch::jit::Module module_ = LoadFixture();

  // The member a coercion to `type` produced; "" (and a test failure) if none.
  static std::string CoercedMember(const tsb_any& value, int32_t type) {
    Value out;
    Status s(tsb_any_coerce(&value, type, out.out()));
    EXPECT_EQ(s.get(), nullptr) << tsb_status_get_message(s.get());
    if (!s.ok()) return "";
    EXPECT_EQ(out.get().type_index, type);
    const char* member = nullptr;
    Status g(tsb_enum_get(&out.get(), &member, nullptr));
    EXPECT_EQ(g.get(), nullptr) << tsb_status_get_message(g.get());
    return member != nullptr ? member : "";
  }
};

TEST_F(EnumTest, TypeInfo) {
  Value red(Boundary(Call(module_, "red")));
  tsb_type_info info = InfoOf(red.get().type_index);
  EXPECT_EQ(info.kind, TSB_KIND_ENUM);
  EXPECT_STREQ(info.name, "__torch__.Color");
  EXPECT_STREQ(info.annotation, "__torch__.Color");
  EXPECT_STREQ(info.provider, "core");
  ASSERT_EQ(info.num_contained, 1u);
  EXPECT_EQ(info.contained[0], TSB_TYPE_INT);
  EXPECT_EQ(FieldsOf(red.get().type_index),
            (std::vector<std::string>{"RED", "GREEN", "BLUE"}));
  EXPECT_NE(red.get().flags & TSB_FLAG_HANDLE, 0u);

  Value heavy(Boundary(Call(module_, "heavy")));
  EXPECT_EQ(InfoOf(heavy.get().type_index).contained[0], TSB_TYPE_FLOAT);
  Value pale(Boundary(Call(module_, "pale")));
  EXPECT_EQ(InfoOf(pale.get().type_index).contained[0], TSB_TYPE_STR);
  EXPECT_EQ(FieldsOf(pale.get().type_index), (std::vector<std::string>{"DARK", "PALE"}));
}

TEST_F(EnumTest, MemberAndValue) {
  // The member name of the Enum `method` returns; its value into *value.
  auto member_of = [&](const char* method, Value* value) {
    Value e(Boundary(Call(module_, method)));
    const char* member = nullptr;
    Status s(tsb_enum_get(&e.get(), &member, value->out()));
    EXPECT_EQ(s.get(), nullptr) << tsb_status_get_message(s.get());
    return std::string(member == nullptr ? "" : member);
  };
  Value value;
  EXPECT_EQ(member_of("red", &value), "RED");
  EXPECT_EQ(value.get().type_index, TSB_TYPE_INT);
  EXPECT_EQ(value.get().u.i, 1);

  Value weight;
  EXPECT_EQ(member_of("heavy", &weight), "HEAVY");
  EXPECT_EQ(weight.get().type_index, TSB_TYPE_FLOAT);
  EXPECT_EQ(weight.get().u.d, 2.0);

  Value pale(Boundary(Call(module_, "pale")));
  Value shade;
  TSB_ASSERT_OK(tsb_enum_get(&pale.get(), nullptr, shade.out()));  // name not wanted
  const char* data = nullptr;
  size_t len = 0;
  TSB_ASSERT_OK(tsb_str_get(&shade.get(), &data, &len));
  EXPECT_EQ(std::string(data, len), "pale");
}

TEST_F(EnumTest, GetEnumOnAnotherKindFails) {
  tsb_any three = tsb_any_int(3);
  const char* member = nullptr;
  ExpectStatus(tsb_enum_get(&three, &member, nullptr), TSB_ERR_TYPE, "",
               "expected an Enum, got int 3");
  ExpectStatus(tsb_enum_get(nullptr, &member, nullptr), TSB_ERR_INVALID_ARGUMENT, "",
               "argument 'v' is NULL");
}

TEST_F(EnumTest, CoercionFromNamesAndValues) {
  Value red(Boundary(Call(module_, "red")));
  const int32_t color = red.get().type_index;
  EXPECT_EQ(CoercedMember(tsb_any_borrowed_str("BLUE"), color), "BLUE");
  EXPECT_EQ(CoercedMember(tsb_any_int(2), color), "GREEN");
  EXPECT_EQ(CoercedMember(red.get(), color), "RED");

  Value heavy(Boundary(Call(module_, "heavy")));
  EXPECT_EQ(CoercedMember(tsb_any_float(0.5), heavy.get().type_index), "LIGHT");
  EXPECT_EQ(CoercedMember(tsb_any_int(2), heavy.get().type_index), "HEAVY");  // int -> float

  Value pale(Boundary(Call(module_, "pale")));
  EXPECT_EQ(CoercedMember(tsb_any_borrowed_str("PALE"), pale.get().type_index), "PALE");
  EXPECT_EQ(CoercedMember(tsb_any_borrowed_str("dark"), pale.get().type_index), "DARK");
}

TEST_F(EnumTest, AValueOfTheTypeIsShared) {
  c10::IValue red = Call(module_, "red");
  Value boundary(Boundary(red));
  Value out;
  TSB_ASSERT_OK(tsb_any_coerce(&boundary.get(), boundary.get().type_index, out.out()));
  EXPECT_TRUE(FromBoundary(out.get()).isSameIdentity(red));
}

TEST_F(EnumTest, CoercedValuesWorkInTorchScript) {
  Value red(Boundary(Call(module_, "red")));
  tsb_any name = tsb_any_borrowed_str("BLUE");
  Value blue;
  TSB_ASSERT_OK(tsb_any_coerce(&name, red.get().type_index, blue.out()));
  EXPECT_EQ(Call(module_, "color_value", {FromBoundary(blue.get())}).toInt(), 3);

  Value heavy(Boundary(Call(module_, "heavy")));
  tsb_any two = tsb_any_int(2);
  Value weight;
  TSB_ASSERT_OK(tsb_any_coerce(&two, heavy.get().type_index, weight.out()));
  EXPECT_EQ(Call(module_, "weight_value", {FromBoundary(weight.get())}).toDouble(), 2.0);
}

TEST_F(EnumTest, CoercionErrorsListTheMembers) {
  Value red(Boundary(Call(module_, "red")));
  const int32_t color = red.get().type_index;
  Value out;
  tsb_any seven = tsb_any_int(7);
  ExpectStatus(tsb_any_coerce(&seven, color, out.out()), TSB_ERR_TYPE, "",
               "expected __torch__.Color, got int 7 (members: RED = 1, GREEN = 2, BLUE = 3)");
  tsb_any purple = tsb_any_borrowed_str("PURPLE");
  ExpectStatus(tsb_any_coerce(&purple, color, out.out()), TSB_ERR_TYPE, "",
               "expected __torch__.Color, got str \"PURPLE\" "
               "(members: RED = 1, GREEN = 2, BLUE = 3)");
  tsb_any one = tsb_any_float(1.0);  // no narrowing to int
  ExpectStatus(tsb_any_coerce(&one, color, out.out()), TSB_ERR_TYPE, "",
               "expected __torch__.Color, got float 1 (members: RED = 1, GREEN = 2, BLUE = 3)");
  Value heavy(Boundary(Call(module_, "heavy")));
  tsb_any x = tsb_any_borrowed_str("x");
  ExpectStatus(tsb_any_coerce(&x, heavy.get().type_index, out.out()), TSB_ERR_TYPE, "",
               "expected __torch__.Weight, got str \"x\" (members: LIGHT = 0.5, HEAVY = 2.0)");
  // Another Enum is never converted, even when a member's value would match.
  ExpectStatus(tsb_any_coerce(&heavy.get(), color, out.out()), TSB_ERR_TYPE, "",
               "expected __torch__.Color, got __torch__.Weight.HEAVY");
  EXPECT_EQ(out.get().type_index, TSB_TYPE_INVALID);  // untouched
}

TEST_F(EnumTest, AStrNamingOneMemberAndValuingAnotherIsAmbiguous) {
  auto cu = std::make_shared<torch::jit::CompilationUnit>();
  c10::EnumTypePtr swap = c10::EnumType::create(
      c10::QualifiedName("__torch__.Swap"), c10::StringType::get(),
      {{"A", c10::IValue("B")}, {"B", c10::IValue("A")}, {"C", c10::IValue("C")}}, cu);
  absl::StatusOr<const TypeInfo*> info = TypeRegistry::Global().Intern(swap);
  ASSERT_TRUE(info.ok()) << info.status();
  tsb_any a = tsb_any_borrowed_str("A");
  Value out;
  ExpectStatus(tsb_any_coerce(&a, (*info)->index, out.out()), TSB_ERR_TYPE, "",
               "ambiguous: str \"A\" names __torch__.Swap.A and is the value of "
               "__torch__.Swap.B");
  EXPECT_EQ(CoercedMember(tsb_any_borrowed_str("C"), (*info)->index), "C");  // both agree
}

TEST_F(EnumTest, EnumsInAList) {
  Value colors(Boundary(Call(module_, "colors")));
  EXPECT_EQ(InfoOf(colors.get().type_index).kind, TSB_KIND_LIST);
  Value first;
  TSB_ASSERT_OK(tsb_list_get(&colors.get(), 0, first.out()));
  const char* member = nullptr;
  TSB_ASSERT_OK(tsb_enum_get(&first.get(), &member, nullptr));
  EXPECT_STREQ(member, "BLUE");

  // A host's untyped list becomes a List[Color] by its expected type.
  tsb_any items[] = {tsb_any_borrowed_str("RED"), tsb_any_int(3)};
  Value untyped, typed;
  TSB_ASSERT_OK(tsb_list_new(TSB_TYPE_ANY, items, 2, untyped.out()));
  TSB_ASSERT_OK(tsb_any_coerce(&untyped.get(), colors.get().type_index, typed.out()));
  Value second;
  TSB_ASSERT_OK(tsb_list_get(&typed.get(), 1, second.out()));
  TSB_ASSERT_OK(tsb_enum_get(&second.get(), &member, nullptr));
  EXPECT_STREQ(member, "BLUE");
  // And an error says which element failed.
  tsb_any bad[] = {tsb_any_int(1), tsb_any_int(9)};
  Value untyped_bad;
  TSB_ASSERT_OK(tsb_list_new(TSB_TYPE_ANY, bad, 2, untyped_bad.out()));
  ExpectStatus(tsb_any_coerce(&untyped_bad.get(), colors.get().type_index, typed.out()),
               TSB_ERR_TYPE, "[1]",
               "expected __torch__.Color, got int 9 (members: RED = 1, GREEN = 2, BLUE = 3)");
}

TEST_F(EnumTest, HasNoFieldsAndRoundTrips) {
  Value red(Boundary(Call(module_, "red")));
  Value out;
  ExpectStatus(tsb_any_get_field(&red.get(), "RED", out.out()), TSB_ERR_TYPE, "",
               "__torch__.Color is an Enum: it has no fields (read its member and "
               "value with tsb_enum_get)");
  Value rebuilt(HostRebuild(red.get()));
  EXPECT_EQ(rebuilt.get().type_index, red.get().type_index);
  EXPECT_TRUE(SameValue(FromBoundary(red.get()), FromBoundary(rebuilt.get())));
}

// ------------------------------------------------------------ objects

class ObjectTest : public AbiTest {
 protected:
  torch::jit::Module module_ = LoadFixture();

  static Value Field(const tsb_any& object, const char* name) {
    Value out;
    Status s(tsb_any_get_field(&object, name, out.out()));
    EXPECT_EQ(s.get(), nullptr) << name << ": " << tsb_status_get_message(s.get());
    return out;
  }
  static int64_t IntField(const tsb_any& object, const char* name) {
    Value field = Field(object, name);
    int64_t i = -1;
    TSB_EXPECT_OK(tsb_int_get(&field.get(), &i));
    return i;
  }
};

TEST_F(ObjectTest, TypeInfo) {
  Value node(Boundary(Call(module_, "node", {true})));
  tsb_type_info info = InfoOf(node.get().type_index);
  EXPECT_EQ(info.kind, TSB_KIND_OBJECT);
  EXPECT_STREQ(info.name, "__torch__.Node");
  EXPECT_STREQ(info.annotation, "__torch__.Node");
  EXPECT_STREQ(info.provider, "core");
  EXPECT_EQ(info.num_contained, 0u);  // attribute types: through the fields
  EXPECT_EQ(FieldsOf(node.get().type_index),
            (std::vector<std::string>{"value", "items", "point", "next", "color"}));
}

TEST_F(ObjectTest, FieldsByTheirDeclaredTypes) {
  Value node(Boundary(Call(module_, "node", {true})));
  EXPECT_EQ(IntField(node.get(), "value"), 1);

  Value items = Field(node.get(), "items");
  EXPECT_EQ(items.get().type_index, TypeOf("List[int]"));
  int64_t copied[3] = {};
  TSB_EXPECT_OK(tsb_list_copy_int(&items.get(), 3, copied));
  EXPECT_EQ(copied[2], 3);

  Value point = Field(node.get(), "point");
  EXPECT_EQ(InfoOf(point.get().type_index).kind, TSB_KIND_OBJECT);
  EXPECT_STREQ(InfoOf(point.get().type_index).name, "__torch__.Point");
  EXPECT_EQ(IntField(point.get(), "x"), 1);
  EXPECT_EQ(IntField(point.get(), "y"), 2);

  Value color = Field(node.get(), "color");
  const char* member = nullptr;
  TSB_EXPECT_OK(tsb_enum_get(&color.get(), &member, nullptr));
  EXPECT_STREQ(member, "GREEN");
}

TEST_F(ObjectTest, OptionalFieldsNeedTheOptionalPlugin) {
  Value node(Boundary(Call(module_, "node", {true})));
  Value out;
  ExpectStatus(tsb_any_get_field(&node.get(), "next", out.out()), TSB_ERR_UNSUPPORTED,
               "field 'next'",
               "no codec for Optional[__torch__.Point]: load the optional plugin "
               "(plugins/optional)");
}

TEST_F(ObjectTest, UnknownFieldListsTheFields) {
  Value node(Boundary(Call(module_, "node", {false})));
  Value out;
  ExpectStatus(tsb_any_get_field(&node.get(), "z", out.out()), TSB_ERR_NOT_FOUND, "",
               "__torch__.Node has no field 'z' (fields: value, items, point, next, color)");
}

TEST_F(ObjectTest, CrossesByReference) {
  c10::IValue node = Call(module_, "node", {false});
  Value boundary(Boundary(node));
  EXPECT_NE(boundary.get().flags & TSB_FLAG_HANDLE, 0u);
  EXPECT_TRUE(FromBoundary(boundary.get()).isSameIdentity(node));
  Value same;
  TSB_ASSERT_OK(tsb_any_coerce(&boundary.get(), boundary.get().type_index, same.out()));
  EXPECT_TRUE(FromBoundary(same.get()).isSameIdentity(node));
  Value rebuilt(HostRebuild(boundary.get()));
  EXPECT_TRUE(SameValue(node, FromBoundary(rebuilt.get())));
}

TEST_F(ObjectTest, CoercionAcceptsOnlyTheClass) {
  Value node(Boundary(Call(module_, "node", {false})));
  Value point(Boundary(Call(module_, "point", {int64_t{1}, int64_t{2}})));
  Value out;
  ExpectStatus(tsb_any_coerce(&point.get(), node.get().type_index, out.out()), TSB_ERR_TYPE, "",
               "expected __torch__.Node, got __torch__.Point object");
  tsb_any three = tsb_any_int(3);
  ExpectStatus(tsb_any_coerce(&three, node.get().type_index, out.out()), TSB_ERR_TYPE, "",
               "expected __torch__.Node, got int 3");
  // A coerced object is what TorchScript code expects.
  TSB_ASSERT_OK(tsb_any_coerce(&point.get(), point.get().type_index, out.out()));
  EXPECT_EQ(module_.forward({FromBoundary(out.get())}).toInt(), 3);
}

TEST_F(ObjectTest, ClassesOfSeparateLoadsAreDistinctTypes) {
  torch::jit::Module other = LoadFixture();
  Value mine(Boundary(Call(module_, "point", {int64_t{1}, int64_t{2}})));
  Value theirs(Boundary(Call(other, "point", {int64_t{1}, int64_t{2}})));
  EXPECT_NE(mine.get().type_index, theirs.get().type_index);
  EXPECT_STREQ(InfoOf(theirs.get().type_index).name, "__torch__.Point");
  Value out;
  ExpectStatus(tsb_any_coerce(&theirs.get(), mine.get().type_index, out.out()), TSB_ERR_TYPE, "",
               "expected __torch__.Point, got __torch__.Point object of another type of "
               "that name (defined by another compilation unit, e.g. a module loaded "
               "separately)");
}

TEST_F(ObjectTest, ModulesAreObjects) {
  Value self(Boundary(module_._ivalue()));
  tsb_type_info info = InfoOf(self.get().type_index);
  EXPECT_EQ(info.kind, TSB_KIND_OBJECT);
  EXPECT_EQ(std::string(info.name).rfind("__torch__.", 0), 0u) << info.name;
  Value training = Field(self.get(), "training");
  bool flag = false;
  TSB_EXPECT_OK(tsb_bool_get(&training.get(), &flag));
}

TEST_F(ObjectTest, SelfReferentialClassesIntern) {
  RecursiveClass rec;
  absl::StatusOr<const TypeInfo*> type = TypeRegistry::Global().Intern(rec.type);
  ASSERT_TRUE(type.ok()) << type.status();
  EXPECT_EQ(*TypeRegistry::Global().Intern(rec.type), *type);  // a lookup now
  Value head(Boundary(rec.Make(5, rec.Make(6))));
  EXPECT_EQ(head.get().type_index, (*type)->index);
  EXPECT_EQ(FieldsOf(head.get().type_index), (std::vector<std::string>{"value", "next"}));
  EXPECT_EQ(IntField(head.get(), "value"), 5);
  // Types that contain the class intern too.
  EXPECT_TRUE(TypeRegistry::Global().Intern(c10::ListType::create(rec.type)).ok());
}

TEST_F(ObjectTest, MutuallyReferentialClassesIntern) {
  auto cu = std::make_shared<torch::jit::CompilationUnit>();
  auto a = c10::ClassType::create(c10::QualifiedName("__torch__.A"), cu);
  auto b = c10::ClassType::create(c10::QualifiedName("__torch__.B"), cu);
  a->addAttribute("bs", c10::ListType::create(b));
  b->addAttribute("a", a);
  auto object = c10::ivalue::Object::create(c10::StrongTypePtr(cu, a), 1);
  object->setSlot(0, c10::impl::GenericList(b));
  Value value(Boundary(c10::IValue(object)));
  EXPECT_EQ(FieldsOf(value.get().type_index), std::vector<std::string>{"bs"});
  Value bs = Field(value.get(), "bs");
  EXPECT_STREQ(InfoOf(bs.get().type_index).annotation, "List[__torch__.B]");
}

}  // namespace
}  // namespace tsb::testing
