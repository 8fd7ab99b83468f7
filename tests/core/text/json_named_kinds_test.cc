// Enums and TorchScript class instances. Their codecs are added elsewhere,
// so these tests call the JSON layer directly (core/text/json_codec.h) with
// c10 values built here: the JSON form does not depend on those codecs.
#include <memory>

#include <ATen/core/enum_type.h>
#include <torch/csrc/jit/api/compilation_unit.h>

#include "core/text/json_codec.h"
#include "tests/core/text/text_testing.h"

namespace tsb::testing {
namespace {

using text::Json;

class JsonNamedKindsTest : public JsonTest {
 protected:
  void SetUp() override {
    JsonTest::SetUp();
    color_ = c10::EnumType::create(c10::QualifiedName("__torch__.Color"),
                                   c10::IntType::get(),
                                   {{"RED", int64_t{1}}, {"GREEN", int64_t{2}}}, cu_);
    color_info_.type = color_;
    color_info_.kind = TSB_KIND_ENUM;
    color_info_.annotation = "__torch__.Color";
  }

  c10::IValue Color(const char* name, int64_t value) {
    return c10::IValue(c10::make_intrusive<c10::ivalue::EnumHolder>(color_, name, value));
  }

  absl::StatusOr<c10::IValue> ReadColor(const char* text) {
    return text::Read(Json::parse(text), color_info_);
  }

  std::shared_ptr<torch::jit::CompilationUnit> cu_ =
      std::make_shared<torch::jit::CompilationUnit>();
  c10::EnumTypePtr color_;
  TypeInfo color_info_;
};

TEST_F(JsonNamedKindsTest, EnumPrintsItsTypeAndMember) {
  absl::StatusOr<const TypeInfo*> any = FindType(TSB_TYPE_ANY);
  ASSERT_TRUE(any.ok());
  absl::StatusOr<Json> out = text::Write(Color("RED", 1), **any);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(text::Dump(*out), R"({"enum":"__torch__.Color","member":"RED"})");
}

TEST_F(JsonNamedKindsTest, EnumReadsFromAMemberNameOrThePrintedObject) {
  for (const char* text : {R"("GREEN")", R"({"enum":"__torch__.Color","member":"GREEN"})"}) {
    absl::StatusOr<c10::IValue> v = ReadColor(text);
    ASSERT_TRUE(v.ok()) << v.status();
    ASSERT_TRUE(v->isEnum());
    EXPECT_EQ(v->toEnumHolder()->name(), "GREEN");
    EXPECT_EQ(v->toEnumHolder()->value().toInt(), 2);
    EXPECT_EQ(*v->toEnumHolder()->type(), *color_);
  }
}

TEST_F(JsonNamedKindsTest, EnumErrors) {
  absl::StatusOr<c10::IValue> purple = ReadColor(R"("PURPLE")");
  EXPECT_TRUE(IsTypeError(purple.status()));
  EXPECT_EQ(purple.status().message(),
            "expected __torch__.Color, got JSON string \"PURPLE\", which is not a member "
            "(RED, GREEN)");
  absl::StatusOr<c10::IValue> value = ReadColor("1");
  EXPECT_EQ(value.status().message(),
            "expected __torch__.Color, got JSON number 1, which is not a member (RED, GREEN)");
  absl::StatusOr<c10::IValue> other = ReadColor(R"({"enum":"__torch__.Shade","member":"RED"})");
  EXPECT_EQ(PathOf(other.status()), "key \"enum\"");
  EXPECT_EQ(other.status().message(),
            "expected \"__torch__.Color\", got JSON string \"__torch__.Shade\"");
  absl::StatusOr<c10::IValue> member = ReadColor(R"({"enum":"__torch__.Color","member":"X"})");
  EXPECT_EQ(PathOf(member.status()), "key \"member\"");
}

TEST_F(JsonNamedKindsTest, ObjectPrintsItsFieldsByTheirDeclaredTypes) {
  auto cls = c10::ClassType::create(c10::QualifiedName("__torch__.Point"), cu_);
  cls->addAttribute("x", c10::IntType::get());
  cls->addAttribute("ys", c10::ListType::ofFloats());
  cls->addAttribute("dtype", c10::ScalarTypeType::get());  // an int in the IValue
  cls->addAttribute("color", color_);
  cu_->register_type(cls);
  auto object = c10::ivalue::Object::create(c10::StrongTypePtr(cu_, cls), 4);
  object->setSlot(0, int64_t{3});
  object->setSlot(1, c10::List<double>({2.0, 0.5}));
  object->setSlot(2, static_cast<int64_t>(at::kFloat));
  object->setSlot(3, Color("GREEN", 2));
  absl::StatusOr<const TypeInfo*> any = FindType(TSB_TYPE_ANY);
  absl::StatusOr<Json> out = text::Write(c10::IValue(object), **any);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(text::Dump(*out),
            R"({"class":"__torch__.Point","fields":{"x":3,"ys":[2.0,0.5],"dtype":"float32",)"
            R"("color":{"enum":"__torch__.Color","member":"GREEN"}}})");

  // Objects are output only: JSON cannot run a constructor.
  TypeInfo info;
  info.type = cls;
  info.kind = TSB_KIND_OBJECT;
  info.annotation = "__torch__.Point";
  absl::StatusOr<c10::IValue> in = text::Read(*out, info);
  EXPECT_EQ(in.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(in.status().message(),
            "JSON cannot build an instance of class __torch__.Point: construct it in "
            "TorchScript");
}

}  // namespace
}  // namespace tsb::testing
