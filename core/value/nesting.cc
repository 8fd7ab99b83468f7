#include "core/value/nesting.h"

#include <string>
#include <utility>
#include <vector>

#include <ATen/core/class_type.h>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

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

// The path step to a container's i-th child: "[i]", "['key']", "values[i]"
// (a dict value whose key is not a str or an int), ".attribute".
std::string Step(const c10::IValue& parent, size_t i, const c10::IValue* key) {
  if (parent.isObject()) {
    const auto& type = parent.toObjectRef().type();
    if (i < type->numAttributes()) return absl::StrCat(".", type->getAttributeName(i));
  }
  if (key != nullptr) {
    if (key->isString()) return absl::StrCat("['", key->toStringRef(), "']");
    if (key->isInt()) return absl::StrCat("[", key->toInt(), "]");
    return absl::StrCat("values[", i, "]");
  }
  return absl::StrCat("[", i, "]");
}

// A container's children, with their path steps. Dict keys are walked too:
// the unpickler takes any value as a key.
std::vector<std::pair<c10::IValue, std::string>> Children(const c10::IValue& v) {
  std::vector<std::pair<c10::IValue, std::string>> out;
  auto add = [&](const c10::IValue& child, std::string step) {
    if (IsContainer(child)) out.emplace_back(child, std::move(step));
  };
  if (v.isList()) {
    const auto items = v.toListRef();
    for (size_t i = 0; i < items.size(); ++i) add(items[i], Step(v, i, nullptr));
  } else if (v.isTuple()) {
    const auto& items = v.toTupleRef().elements();
    for (size_t i = 0; i < items.size(); ++i) add(items[i], Step(v, i, nullptr));
  } else if (v.isGenericDict()) {
    size_t i = 0;
    for (const auto& entry : v.toGenericDict()) {
      add(entry.key(), absl::StrCat("keys[", i, "]"));
      add(entry.value(), Step(v, i, &entry.key()));
      ++i;
    }
  } else if (v.isObject()) {
    const auto& slots = v.toObjectRef().slots();
    for (size_t i = 0; i < slots.size(); ++i) add(slots[i], Step(v, i, nullptr));
  }
  return out;
}

std::string PathText(const std::vector<std::string>& steps, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += steps[i];
  return out.empty() ? "the value itself" : out;
}

}  // namespace

absl::Status CheckNesting(const c10::IValue& value) {
  if (!IsContainer(value)) return absl::OkStatus();
  struct Frame {
    const void* id;
    std::vector<std::pair<c10::IValue, std::string>> children;
    size_t next = 0;
    int height = 1;  // of the subtree walked so far
  };
  // Containers on the current path (their depth) and those finished (their
  // subtree's height): a shared part is walked once, and still measured.
  absl::flat_hash_map<const void*, size_t> on_path;
  absl::flat_hash_map<const void*, int> done;
  std::vector<Frame> stack;
  std::vector<std::string> steps;  // steps[i] leads into stack[i + 1]
  stack.push_back({value.internalToPointer(), Children(value)});
  on_path[value.internalToPointer()] = 0;
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next == top.children.size()) {
      const int height = top.height;
      on_path.erase(top.id);
      done[top.id] = height;
      stack.pop_back();
      if (!stack.empty()) {
        stack.back().height = std::max(stack.back().height, height + 1);
        steps.pop_back();
      }
      continue;
    }
    auto& [child, step] = top.children[top.next++];
    const void* id = child.internalToPointer();
    steps.push_back(step);
    if (auto it = on_path.find(id); it != on_path.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected a value without cycles, found a ", KindName(child),
          " that contains itself: ", PathText(steps, steps.size()), " is ",
          PathText(steps, it->second)));
    }
    const size_t depth = stack.size();  // containers above the child
    if (auto it = done.find(id); it != done.end()) {
      if (static_cast<int>(depth) + it->second > kMaxValueDepth) break;
      top.height = std::max(top.height, it->second + 1);
      steps.pop_back();
      continue;
    }
    if (static_cast<int>(depth) + 1 > kMaxValueDepth) break;
    on_path[id] = steps.size();
    stack.push_back({id, Children(child)});
  }
  if (stack.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "expected a value nested at most ", kMaxValueDepth,
      " containers deep, found a deeper one at ", PathText(steps, std::min<size_t>(steps.size(), 8)),
      steps.size() > 8 ? "..." : ""));
}

void BreakCycles(const c10::IValue& value) {
  absl::flat_hash_set<const void*> seen;
  std::vector<c10::IValue> todo{value}, mutables;
  while (!todo.empty()) {
    c10::IValue v = std::move(todo.back());
    todo.pop_back();
    if (!IsContainer(v) || !seen.insert(v.internalToPointer()).second) continue;
    for (auto& [child, step] : Children(v)) todo.push_back(std::move(child));
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
