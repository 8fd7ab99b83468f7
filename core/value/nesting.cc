#include "core/value/nesting.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/class_type.h>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/value/convert.h"
#include "core/value/tensor_storage.h"
#include "tsbridge/path.hpp"
#include "tsbridge/plugin/errors.hpp"

namespace tsb {
namespace {

bool IsContainer(const c10::IValue& v) {
  return v.isList() || v.isGenericDict() || v.isTuple() || v.isObject();
}

const char* KindName(const c10::IValue& v) {
  if (v.isList()) return "list";
  if (v.isGenericDict()) return "dict";
  if (v.isTuple()) return "tuple";
  return "object";
}

// A container's child worth walking: where it is (its index, and for a dict
// value its key) and what it is.
struct Child {
  c10::IValue value;
  size_t index;
  bool is_key = false;             // a dict key (keys[index])
  std::optional<c10::IValue> key;  // a dict value's key
};

// The children worth walking: containers, and tensors if `tensors`. Dict
// keys too: the unpickler takes any value as a key.
std::vector<Child> Children(const c10::IValue& v, bool tensors) {
  auto walked = [tensors](const c10::IValue& item) {
    return IsContainer(item) || (tensors && item.isTensor());
  };
  std::vector<Child> out;
  if (v.isList()) {
    const auto items = v.toListRef();
    for (size_t i = 0; i < items.size(); ++i) {
      if (walked(items[i])) out.push_back({items[i], i, false, std::nullopt});
    }
  } else if (v.isTuple()) {
    const auto& items = v.toTupleRef().elements();
    for (size_t i = 0; i < items.size(); ++i) {
      if (walked(items[i])) out.push_back({items[i], i, false, std::nullopt});
    }
  } else if (v.isGenericDict()) {
    size_t i = 0;
    for (const auto& entry : v.toGenericDict()) {
      if (walked(entry.key())) out.push_back({entry.key(), i, true, std::nullopt});
      if (walked(entry.value())) out.push_back({entry.value(), i, false, entry.key()});
      ++i;
    }
  } else if (v.isObject()) {
    const auto& slots = v.toObjectRef().slots();
    for (size_t i = 0; i < slots.size(); ++i) {
      if (walked(slots[i])) out.push_back({slots[i], i, false, std::nullopt});
    }
  }
  return out;
}

// The path segment from `parent` to `child`, in the one path syntax
// (tsbridge/path.hpp): "[i]", key "a", key 3, field 'x'; "keys[i]" for a
// key that is itself a container (the unpickler makes such keys). Only
// errors spell it.
std::string Step(const c10::IValue& parent, const Child& child) {
  if (child.is_key) return absl::StrCat("keys[", child.index, "]");
  if (child.key.has_value()) return KeySegmentOf(*child.key);
  if (parent.isObject()) {
    const auto& type = parent.toObjectRef().type();
    if (child.index < type->numAttributes()) {
      return FieldSegment(type->getAttributeName(child.index));
    }
  }
  return IndexSegment(child.index);
}

// CheckNesting, and with `tensors` CheckLoaded.
absl::Status Walk(const c10::IValue& value, bool tensors) {
  if (tensors && value.isTensor()) {
    absl::Status s = CheckTensorStorage(value.toTensor());
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat(s.message(), " (the value itself)"));
  }
  if (!IsContainer(value)) return absl::OkStatus();
  struct Frame {
    c10::IValue value;
    std::vector<Child> children;
    size_t next = 0;  // children[next - 1] is the one being walked
    int height = 1;   // of the subtree walked so far, in containers
  };
  // The path to frame `n`'s child being walked, or to frame `n` itself.
  auto path = [](const std::vector<Frame>& stack, size_t n) {
    std::string out;
    for (size_t i = 0; i < n && i < stack.size(); ++i) {
      out = JoinPath(out, Step(stack[i].value, stack[i].children[stack[i].next - 1]));
    }
    return out;
  };
  auto spelled = [](std::string p) { return p.empty() ? std::string("the value itself") : p; };
  // Containers on the current path (their place on the stack) and those
  // finished (their subtree's height): a shared part is walked once, and
  // still measured wherever it hangs.
  absl::flat_hash_map<const void*, size_t> on_path;
  absl::flat_hash_map<const void*, int> done;
  std::vector<Frame> stack;
  stack.push_back({value, Children(value, tensors)});
  on_path[value.internalToPointer()] = 0;
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next == top.children.size()) {
      const int height = top.height;
      on_path.erase(top.value.internalToPointer());
      done[top.value.internalToPointer()] = height;
      stack.pop_back();
      if (!stack.empty()) stack.back().height = std::max(stack.back().height, height + 1);
      continue;
    }
    const c10::IValue& child = top.children[top.next++].value;
    if (child.isTensor()) {
      absl::Status s = CheckTensorStorage(child.toTensor());
      if (!s.ok()) return WithPath(std::move(s), path(stack, stack.size()));
      continue;
    }
    const void* id = child.internalToPointer();
    const int above = static_cast<int>(stack.size());  // containers above the child
    if (auto it = on_path.find(id); it != on_path.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected a value without cycles, found a ", KindName(child),
          " that contains itself: ", ShortenPath(spelled(path(stack, stack.size()))), " is ",
          ShortenPath(spelled(path(stack, it->second)))));
    }
    int height = 1;  // the child's, if it is a leaf container not yet walked
    if (auto it = done.find(id); it != done.end()) height = it->second;
    if (above + height > kMaxValueDepth) {
      return WithPath(absl::InvalidArgumentError(absl::StrCat(
                          "expected a value nested at most ", kMaxValueDepth,
                          " containers deep, found a deeper one")),
                      path(stack, stack.size()));
    }
    if (done.contains(id)) {
      top.height = std::max(top.height, height + 1);
      continue;
    }
    on_path[id] = stack.size();
    stack.push_back({child, Children(child, tensors)});
  }
  return absl::OkStatus();
}

// Whether a value of type `t` may be or hold a List, Tuple or Dict.
bool MayNest(const c10::Type& t) {
  switch (t.kind()) {
    case c10::TypeKind::ListType:
    case c10::TypeKind::TupleType:
    case c10::TypeKind::DictType:
    case c10::TypeKind::AnyType:
    case c10::TypeKind::AnyListType:
    case c10::TypeKind::AnyTupleType:
      return true;
    case c10::TypeKind::OptionalType:
    case c10::TypeKind::UnionType:
      for (const auto& member : t.containedTypes()) {
        if (MayNest(*member)) return true;
      }
      return false;
    default:
      return false;
  }
}

absl::Status TooDeep() {
  return absl::InvalidArgumentError(absl::StrCat("expected a value nested at most ",
                                                 kMaxValueDepth,
                                                 " containers deep, found a deeper one"));
}

}  // namespace

absl::Status CheckDepth(const c10::IValue& value, int room) {
  const bool list = value.isList(), tuple = value.isTuple(), dict = value.isGenericDict();
  if (!list && !tuple && !dict) return absl::OkStatus();
  if (room <= 0) return TooDeep();
  if (list) {
    const c10::List<c10::IValue> items = value.toList();
    if (!MayNest(*items.elementType())) return absl::OkStatus();
    for (size_t i = 0; i < items.size(); ++i) {
      absl::Status s = CheckDepth(items.get(i), room - 1);
      if (!s.ok()) return WithPath(std::move(s), IndexSegment(i));
    }
  } else if (tuple) {
    const auto& items = value.toTupleRef().elements();
    for (size_t i = 0; i < items.size(); ++i) {
      absl::Status s = CheckDepth(items[i], room - 1);
      if (!s.ok()) return WithPath(std::move(s), IndexSegment(i));
    }
  } else {
    const c10::impl::GenericDict entries = value.toGenericDict();
    if (!MayNest(*entries.valueType())) return absl::OkStatus();
    for (const auto& entry : entries) {
      absl::Status s = CheckDepth(entry.value(), room - 1);
      if (!s.ok()) return WithPath(std::move(s), KeySegmentOf(entry.key()));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckNesting(const c10::IValue& value) { return Walk(value, false); }

absl::Status CheckLoaded(const c10::IValue& value) { return Walk(value, true); }

void BreakCycles(const c10::IValue& value) {
  absl::flat_hash_set<const void*> seen;
  std::vector<c10::IValue> todo{value}, mutables;
  while (!todo.empty()) {
    c10::IValue v = std::move(todo.back());
    todo.pop_back();
    if (!IsContainer(v) || !seen.insert(v.internalToPointer()).second) continue;
    for (Child& child : Children(v, false)) todo.push_back(std::move(child.value));
    if (!v.isTuple()) mutables.push_back(std::move(v));
  }
  for (const c10::IValue& v : mutables) {
    if (v.isList()) {
      v.toList().clear();
    } else if (v.isGenericDict()) {
      v.toGenericDict().clear();
    } else {
      auto object = v.toObject();
      for (size_t i = 0; i < object->slots().size(); ++i) object->setSlot(i, c10::IValue());
    }
  }
}

}  // namespace tsb
