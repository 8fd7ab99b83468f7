// Helpers for the Enum and object suites: the scripted fixture module
// (tests/core/codecs/enum_object_fixture.py) and class types built in C++
// for what TorchScript itself refuses to compile (a class that contains
// itself).
#ifndef TSBRIDGE_TESTS_TESTING_SCRIPT_OBJECTS_H_
#define TSBRIDGE_TESTS_TESTING_SCRIPT_OBJECTS_H_

#include <memory>
#include <string>
#include <vector>

#include <torch/script.h>

#include "tests/testing/abi_test.h"
#include "tests/testing/build_paths.h"
#include "tsbridge/tsbridge.h"

namespace tsb::testing {

// Every load is a new CompilationUnit: its classes and Enums are new types.
inline torch::jit::Module LoadFixture() {
  return torch::jit::load(BuildPath("TSB_ENUM_OBJECT_FIXTURE"));
}

inline c10::IValue Call(torch::jit::Module& module, const char* method,
                       std::vector<c10::IValue> args = {}) {
  return module.get_method(method)(std::move(args));
}

inline std::vector<std::string> FieldsOf(int32_t type_index) {
  tsb_type_info info = InfoOf(type_index);
  if (info.field_names == nullptr) return {};
  return std::vector<std::string>(info.field_names, info.field_names + info.num_fields);
}

// class Rec: value: int; next: Optional[Rec] -- built in C++, since
// TorchScript refuses classes that contain themselves.
struct RecursiveClass {
  std::shared_ptr<torch::jit::CompilationUnit> cu =
      std::make_shared<torch::jit::CompilationUnit>();
  c10::ClassTypePtr type;

  RecursiveClass() {
    type = c10::ClassType::create(c10::QualifiedName("__torch__.Rec"), cu);
    type->addAttribute("value", c10::IntType::get());
    type->addAttribute("next", c10::OptionalType::create(type));
    cu->register_type(type);
  }
  c10::IValue Make(int64_t value, c10::IValue next = c10::IValue()) const {
    auto object = c10::ivalue::Object::create(c10::StrongTypePtr(cu, type), 2);
    object->setSlot(0, value);
    object->setSlot(1, std::move(next));
    return c10::IValue(std::move(object));
  }
};

}  // namespace tsb::testing

#endif  // TSBRIDGE_TESTS_TESTING_SCRIPT_OBJECTS_H_
