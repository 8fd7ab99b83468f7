// A header-only C++ layer over the host ABI (tsbridge.h), for C++ hosts: the
// JSON command line, tests, an application embedding TorchScript. It adds
// ownership and errors, nothing else: every call is one tsb_* function.
//
//   tsb::Module m = tsb::Module::Load("model.pt");
//   tsb::Value y = m.Call("forward", tsb::Args().Add(std::move(x)).Kw("scale", 2.0));
//
// - Value owns one reference to a boundary value (tsb_any_release at scope
//   exit); copies retain, moves steal.
// - Status owns a tsb_status*; Error is the exception Check() throws for one,
//   with the code, path and detail apart. Hosts that do not want exceptions
//   call the tsb_* functions themselves and keep a Status.
// - Module owns a tsb_module*; Call, CallOperator and CallFunction check
//   their status and return a Value.
// - CallArgs is the borrowing view of arguments a host already holds.
// Like tsbridge.h it needs no LibTorch and no Abseil: the CLI includes it and
// nothing else.
#ifndef TSBRIDGE_TSBRIDGE_HPP_
#define TSBRIDGE_TSBRIDGE_HPP_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tsbridge/path.hpp"
#include "tsbridge/tsbridge.h"

namespace tsb {

// The arguments of one call, passable as a temporary:
//   tsb_op_call("aten::add", tsb::CallArgs(args, 2).get(), &out);
class CallArgs {
 public:
  CallArgs(const tsb_any* args, size_t n, const char* const* kw_names = nullptr,
           const tsb_any* kw_values = nullptr, size_t num_kwargs = 0) noexcept
      : a_(tsb_call_args_make(args, n)) {
    a_.kw_names = kw_names;
    a_.kw_values = kw_values;
    a_.num_kwargs = num_kwargs;
  }
  const tsb_call_args* get() const noexcept { return &a_; }

 private:
  tsb_call_args a_;
};

// Queries that fail only on a NULL out-parameter, as plain values.
inline size_t LiveHandles() noexcept {
  size_t n = 0;
  tsb_status_free(tsb_handle_count(&n));
  return n;
}
inline tsb_kind KindOf(int32_t type_index) noexcept {  // TSB_KIND_INVALID if unknown
  tsb_kind kind = TSB_KIND_INVALID;
  tsb_status_free(tsb_type_get_kind(type_index, &kind));
  return kind;
}
inline size_t PluginCount() noexcept {
  size_t n = 0;
  tsb_status_free(tsb_plugin_count(&n));
  return n;
}
inline const char* BundledPluginDir() noexcept {
  const char* dir = "";
  tsb_status_free(tsb_plugin_get_bundled_dir(&dir));
  return dir;
}

// ------------------------------------------------------------------ errors

// Owns a status; a null one is success.
class Status {
 public:
  Status() = default;
  explicit Status(tsb_status* status) : status_(status) {}

  bool ok() const { return status_ == nullptr; }
  tsb_code code() const { return tsb_status_get_code(status_.get()); }
  std::string message() const { return tsb_status_get_message(status_.get()); }
  std::string path() const { return tsb_status_get_path(status_.get()); }
  std::string detail() const { return tsb_status_get_detail(status_.get()); }
  std::string backtrace() const { return tsb_status_get_backtrace(status_.get()); }
  tsb_status* get() const { return status_.get(); }
  // Hands the status on (to a callback's caller, e.g. a trace function).
  tsb_status* release() { return status_.release(); }

 private:
  struct Free {
    void operator()(tsb_status* s) const { tsb_status_free(s); }
  };
  std::unique_ptr<tsb_status, Free> status_;
};

// A failed status as an exception: what() is "<context>: <message>" (or the
// message alone), the parts stay readable apart.
class Error : public std::runtime_error {
 public:
  Error(const Status& status, const std::string& context)
      : std::runtime_error(context.empty() ? status.message()
                                           : context + ": " + status.message()),
        code_(status.code()),
        path_(status.path()),
        detail_(status.detail()) {}
  // With the whole message and path given (CheckAt).
  Error(const Status& status, const std::string& message, const std::string& path)
      : std::runtime_error(message), code_(status.code()), path_(path), detail_(status.detail()) {}
  tsb_code code() const { return code_; }
  const std::string& path() const { return path_; }
  const std::string& detail() const { return detail_; }

 private:
  tsb_code code_;
  std::string path_, detail_;
};

// Throws Error for a failed status (and frees it); does nothing for NULL.
inline void Check(tsb_status* status, const std::string& context = "") {
  if (status == nullptr) return;
  Status owned(status);
  throw Error(owned, context);
}

// As Check, for a status about a part of a larger value found at `where`:
// what() is "<where> → <status path>: <detail>", and path() the whole path.
inline void CheckAt(tsb_status* status, const std::string& where) {
  if (status == nullptr) return;
  Status owned(status);
  const std::string path = JoinPath(where, owned.path());
  throw Error(owned, path + (path.empty() ? "" : ": ") + owned.detail(), path);
}

// A missing operator library's advice in a host's own words. The core says
// what is missing and which library, and ends with C's call:
// `... first (tsb_library_load("torchvision", NULL))` (docs/hosts.md,
// "Errors"). A host hands its own call with {} where the name goes:
// `tsb_load_library("{}")` gives `(tsb_load_library("torchvision"))`, the
// CLI's `tsb --library {}` gives `(tsb --library torchvision)`. Any other
// message comes back as is.
inline std::string SayLoadLibrary(const std::string& message, const std::string& call) {
  static const std::string kOpen = "(tsb_library_load(\"", kClose = "\", NULL))";
  const size_t open = message.rfind(kOpen);
  if (open == std::string::npos) return message;
  const size_t name_at = open + kOpen.size();
  const size_t close = message.find(kClose, name_at);
  const size_t hole = call.find("{}");
  if (close == std::string::npos || hole == std::string::npos) return message;
  return message.substr(0, open) + "(" + call.substr(0, hole) +
         message.substr(name_at, close - name_at) + call.substr(hole + 2) + ")" +
         message.substr(close + kClose.size());
}

// ------------------------------------------------------------------ values

class Value {
 public:
  Value() = default;
  // Takes the reference `any` holds (a new reference from a tsb_* call, or an
  // inline value from tsb_any_int and friends).
  explicit Value(tsb_any any) : v_(any) {}
  Value(const Value& other) : v_(other.v_) { tsb_any_retain(&v_); }
  Value& operator=(const Value& other) {
    if (this != &other) {
      Value copy(other);
      std::swap(v_, copy.v_);
    }
    return *this;
  }
  Value(Value&& other) noexcept : v_(other.v_) { other.v_ = tsb_any{}; }
  Value& operator=(Value&& other) noexcept {
    std::swap(v_, other.v_);
    return *this;
  }
  ~Value() { tsb_any_release(&v_); }

  static Value None() { return Value(tsb_any_none()); }
  static Value Bool(bool b) { return Value(tsb_any_bool(b)); }
  static Value Int(int64_t i) { return Value(tsb_any_int(i)); }
  static Value Float(double d) { return Value(tsb_any_float(d)); }
  static Value Str(const std::string& s) {
    Value out;
    Check(tsb_str_new(s.data(), s.size(), out.out()), "tsb_str_new");
    return out;
  }
  // Parses `json` as a value of `type_index` (docs/json.md).
  static Value FromJson(const std::string& json, int32_t type_index) {
    Value out;
    Check(tsb_json_read(json.c_str(), type_index, out.out()));
    return out;
  }

  const tsb_any& get() const { return v_; }
  // Where a tsb_* function writes a new value: releases the current one.
  tsb_any* out() {
    tsb_any_release(&v_);
    v_ = tsb_any{};
    return &v_;
  }
  // Gives the reference up, to a caller that releases it.
  tsb_any release() {
    tsb_any any = v_;
    v_ = tsb_any{};
    return any;
  }
  int32_t type_index() const { return v_.type_index; }

  std::string ToJson() const {
    char* text = nullptr;
    Check(tsb_json_write(&v_, &text));
    std::string out(text);
    tsb_string_free(text);
    return out;
  }

 private:
  tsb_any v_{};
};

// ------------------------------------------------------------------- calls

// The arguments of a call: positional values, then keywords. Owns them.
class Args {
 public:
  Args& Add(Value value) {
    positional_.push_back(std::move(value));
    return *this;
  }
  Args& Kw(std::string name, Value value) {
    names_.push_back(std::move(name));
    keywords_.push_back(std::move(value));
    return *this;
  }
  Args& Add(int64_t i) { return Add(Value::Int(i)); }
  Args& Add(double d) { return Add(Value::Float(d)); }
  Args& Kw(std::string name, int64_t i) { return Kw(std::move(name), Value::Int(i)); }
  Args& Kw(std::string name, double d) { return Kw(std::move(name), Value::Float(d)); }

  // A view for tsb_*_call, valid while these Args live and do not change.
  const tsb_call_args* view() {
    pos_.clear();
    kw_.clear();
    name_ptrs_.clear();
    for (const Value& v : positional_) pos_.push_back(v.get());
    for (const Value& v : keywords_) kw_.push_back(v.get());
    for (const std::string& n : names_) name_ptrs_.push_back(n.c_str());
    args_ = tsb_call_args_make(pos_.data(), pos_.size());
    args_.kw_names = name_ptrs_.data();
    args_.kw_values = kw_.data();
    args_.num_kwargs = kw_.size();
    return &args_;
  }

 private:
  std::vector<Value> positional_, keywords_;
  std::vector<std::string> names_;
  std::vector<tsb_any> pos_, kw_;
  std::vector<const char*> name_ptrs_;
  tsb_call_args args_{};
};

// A dispatcher operator by qualified name ("aten::add").
inline Value CallOperator(const std::string& name, Args args = {}) {
  Value out;
  Check(tsb_op_call(name.c_str(), args.view(), out.out()), name);
  return out;
}

// A plugin function (or an operator) by qualified name.
inline Value CallFunction(const std::string& name, Args args = {}) {
  Value out;
  Check(tsb_function_call(name.c_str(), args.view(), out.out()), name);
  return out;
}

// ----------------------------------------------------------------- listings

// The ABI lists a module's methods, children, attributes, parameters and
// buffers and an operator's overloads as "count, then get i": count(&n),
// then get(i, &item) for each i, every status through check (which throws).
// One loop for every listing; an item with a struct_size is sized first.
template <typename T, typename = void>
struct HasStructSize : std::false_type {};
template <typename T>
struct HasStructSize<T, std::void_t<decltype(T::struct_size)>> : std::true_type {};

template <typename Item, typename Check, typename Count, typename Get>
std::vector<Item> Listed(Check&& check, Count&& count, Get&& get) {
  size_t n = 0;
  check(count(&n));
  std::vector<Item> items(n);
  for (size_t i = 0; i < n; ++i) {
    if constexpr (HasStructSize<Item>::value) items[i].struct_size = sizeof(Item);
    check(get(i, &items[i]));
  }
  return items;
}

class Module {
 public:
  Module() = default;  // no module, as a Listed item before it is filled
  explicit Module(tsb_module* module) : module_(module) {}

  static Module Load(const std::string& path) {
    tsb_module* m = nullptr;
    Check(tsb_module_load(path.c_str(), &m));
    return Module(m);
  }
  static Module Compile(const std::string& source) {
    tsb_module* m = nullptr;
    Check(tsb_module_compile(source.c_str(), &m));
    return Module(m);
  }

  void Save(const std::string& path) const { Check(tsb_module_save(module_.get(), path.c_str())); }

  // The schemas of its methods; pointers live as long as the module.
  std::vector<tsb_schema_info> Methods() const {
    return Listed<tsb_schema_info>(
        [](tsb_status* s) { Check(s); },
        [&](size_t* n) { return tsb_module_count_methods(module_.get(), n); },
        [&](size_t i, tsb_schema_info* info) {
          return tsb_module_get_method(module_.get(), i, info);
        });
  }

  Value Call(const std::string& method, Args args = {}) const {
    Value out;
    Check(tsb_module_call(module_.get(), method.c_str(), args.view(), out.out()));
    return out;
  }

  tsb_module* get() const { return module_.get(); }
  // Gives the module up to a host's own owner (an R external pointer, a
  // Python capsule).
  tsb_module* release() { return module_.release(); }

 private:
  struct Free {
    void operator()(tsb_module* m) const { tsb_module_free(m); }
  };
  std::unique_ptr<tsb_module, Free> module_;
};

}  // namespace tsb

#endif  // TSBRIDGE_TSBRIDGE_HPP_
