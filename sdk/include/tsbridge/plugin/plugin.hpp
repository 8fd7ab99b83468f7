// Writing a tsbridge plugin in C++: one line per type, one line per function.
//
//   #include <tsbridge/plugin/plugin.hpp>
//
//   TSB_PLUGIN("torchsparse", "0.1") {
//     r.type<std::tuple<at::Tensor, at::Tensor>>("torchsparse.tensor_pair",
//                                                {"first", "second"});
//     r.function("torchsparse::relabel", &relabel, {"col", "idx"});
//     r.function("torchsparse::scale", &scale, {"x", tsb::arg("by") = 1.0});
//   }
//
// TSB_PLUGIN writes the C descriptor of tsbridge/plugin.h (ABI version,
// platform tag, name, version) and a register function that catches every
// exception. A Registrar keeps the first error and ignores the calls after
// it; the loader then publishes nothing.
#ifndef TSBRIDGE_PLUGIN_HPP_
#define TSBRIDGE_PLUGIN_HPP_

#include <initializer_list>
#include <optional>
#include <type_traits>
#include <memory>
#include <string>
#include <vector>

#include "tsbridge/plugin/codec.hpp"
#include "tsbridge/plugin/kind_codec.hpp"
#include "tsbridge/plugin/internal/platform_tag.hpp"
#include "tsbridge/plugin.h"
#include "tsbridge/tsbridge.h"

namespace tsb {

// One argument name in a function registration, with an optional default:
//   r.function("geom::scale", &scale, {"b", tsb::arg("by") = 1.0});
// The default is converted by tsb::Codec (include its codecs/<kind>.hpp) and
// then by the core to the argument's TorchScript type. `tsb::arg("x") =
// std::nullopt` is None, for an Optional argument.
class Arg {
 public:
  Arg(const char* name) : name_(name) {}  // NOLINT: a bare name converts

  const char* name() const { return name_; }
  const c10::optional<c10::IValue>& default_value() const { return default_; }
  bool is_kwarg_only() const { return kwarg_only_; }

 private:
  friend class ArgName;
  const char* name_;
  c10::optional<c10::IValue> default_;
  bool kwarg_only_ = false;
};

// What tsb::arg(name) returns: assign a default to it, or mark it keyword only.
class ArgName {
 public:
  explicit ArgName(const char* name) : name_(name) {}

  template <typename T>
  Arg operator=(const T& value) const {
    Arg out(name_);
    out.kwarg_only_ = kwarg_only_;
    if constexpr (std::is_same_v<T, std::nullopt_t> || std::is_same_v<T, c10::nullopt_t>) {
      out.default_ = c10::IValue();
    } else if constexpr (std::is_convertible_v<const T&, const char*>) {
      out.default_ = c10::IValue(std::string(value));
    } else {
      out.default_ = Codec<std::decay_t<T>>::ToIValue(value);
    }
    return out;
  }

  // A keyword-only argument (after every positional one):
  //   tsb::arg("k").kwarg_only() = 3
  ArgName kwarg_only() const {
    ArgName out = *this;
    out.kwarg_only_ = true;
    return out;
  }

  operator Arg() const {  // NOLINT: a required argument
    Arg out(name_);
    out.kwarg_only_ = kwarg_only_;
    return out;
  }

 private:
  const char* name_;
  bool kwarg_only_ = false;
};
inline ArgName arg(const char* name) { return ArgName(name); }

// A named record registered by r.type: pass it as a function's `returns`,
// so the record's name is written once.
struct Record {
  std::string name;
};

class Registrar {
 public:
  explicit Registrar(const tsb_registrar* table) : table_(table) {}
  Registrar(const Registrar&) = delete;
  Registrar& operator=(const Registrar&) = delete;
  ~Registrar() { tsb_status_free(error_); }

  // A codec for a whole kind of TorchScript type (how plugins/tuple adds Tuple).
  Registrar& kind_codec(std::unique_ptr<KindCodec> codec) {
    if (Usable(0)) Keep(table_->add_kind_codec(table_->txn, codec.release()));
    return *this;
  }

  // A named record type from its annotation:
  //   r.type("tsbridge.tensor_pair", "Tuple[Tensor, Tensor]", {"first", "second"});
  Registrar& type(const char* name, const char* annotation,
                  std::initializer_list<const char*> fields) {
    std::vector<const char*> names(fields);
    if (Usable(1)) {
      Keep(table_->add_type(table_->txn, name, annotation, names.data(), names.size()));
    }
    return *this;
  }

  // A named record type whose annotation is Codec<T>::name(), e.g.
  //   r.type<std::tuple<at::Tensor, at::Tensor>>("torchsparse.tensor_pair", {"first", "second"});
  // (A Hana struct is refused at compile time: its name is its own, see
  // type<T>() below.)
  template <typename T, size_t N>
  Record type(const char* name, const char* const (&fields)[N]);

  // A struct adapted with BOOST_HANA_ADAPT_STRUCT, registered as a NamedTuple
  // under its own qualified name with its own field names.
  template <typename T>
  Record type();

  // A C++ function callable from every host by name, as an operator is:
  // argument and return types come from Codec<Args>::name() and
  // Codec<R>::name(); one name per argument (checked at compile time), each
  // with an optional default. `returns` names a registered record the result
  // crosses as instead, e.g.
  //   const tsb::Record pair = r.type<std::tuple<at::Tensor, at::Tensor>>(
  //       "torchsparse.tensor_pair", {"first", "second"});
  //   r.function("torchsparse::relabel", &relabel, {"col", "idx"}, pair);
  template <typename R, typename... Args, size_t N>
  Registrar& function(const char* name, R (*fn)(Args...), const Arg (&args)[N],
                      const Record& returns);
  template <typename R, typename... Args, size_t N>
  Registrar& function(const char* name, R (*fn)(Args...), const Arg (&args)[N],
                      const char* returns = nullptr);
  // A function without arguments.
  template <typename R>
  Registrar& function(const char* name, R (*fn)(), const char* returns = nullptr);

  // An operator the plugin registered with TORCH_LIBRARY, offered as a
  // function whose result crosses as a registered record: its argument
  // names, types and defaults are read from the operator's schema (written
  // once, in m.def), and calls go through the dispatcher (autograd, tracer).
  //   r.op("torchsparse::spmm", spmm_result);
  Registrar& op(const char* name, const Record& returns);

  // Slot 3: arguments with defaults (tsbridge/plugin.h).
  Registrar& function_raw(const char* name, const std::vector<tsb_plugin_argument>& args,
                          const char* return_type, tsb_plugin_function fn, void* data,
                          void (*free_data)(void*)) {
    if (Usable(3)) {
      Keep(table_->add_function_with_arguments(table_->txn, name, args.data(), args.size(),
                                               return_type, fn, data, free_data));
    } else if (free_data != nullptr) {
      free_data(data);
    }
    return *this;
  }

  // The raw slot, for functions that work on the IValue stack directly.
  Registrar& function_raw(const char* name, const std::vector<const char*>& arg_names,
                          const std::vector<const char*>& arg_types, const char* return_type,
                          tsb_plugin_function fn, void* data, void (*free_data)(void*)) {
    if (arg_names.size() != arg_types.size()) {
      Keep(tsb_status_new(TSB_ERR_INVALID_ARGUMENT,
                          "function_raw: one type per argument name"));
    }
    if (Usable(2)) {
      Keep(table_->add_function(table_->txn, name, arg_names.data(), arg_types.data(),
                                arg_names.size(), return_type, fn, data, free_data));
    } else if (free_data != nullptr) {
      free_data(data);
    }
    return *this;
  }

  // Records a failure (a status made by tsb_status_new); the first one wins.
  void Keep(tsb_status* status) {
    if (error_ == nullptr) {
      error_ = status;
    } else {
      tsb_status_free(status);
    }
  }
  // The first error, handed to the loader (NULL when all went well).
  tsb_status* TakeError() {
    tsb_status* error = error_;
    error_ = nullptr;
    return error;
  }

 private:
  bool Usable(uint32_t slot) {
    if (error_ != nullptr) return false;
    if (table_ == nullptr || table_->num_slots <= slot) {
      Keep(tsb_status_new(TSB_ERR_UNSUPPORTED,
                          "the core's registrar lacks a slot this plugin needs"));
      return false;
    }
    return true;
  }

  const tsb_registrar* table_;
  tsb_status* error_ = nullptr;
};

namespace detail {
// Runs the plugin's body; no exception leaves.
template <void (*Body)(Registrar&)>
tsb_status* RegisterPlugin(const tsb_registrar* table) noexcept {
  tsb_status* error = nullptr;
  absl::Status thrown = CatchAll([&] {
    Registrar r(table);
    Body(r);
    error = r.TakeError();
  });
  return thrown.ok() ? error : ToTsbStatus(thrown);
}
}  // namespace detail

}  // namespace tsb

#include "tsbridge/plugin/internal/registrar_impl.hpp"  // the template members above

#define TSB_PLUGIN(name, version)                                               \
  static void tsb_plugin_body_(::tsb::Registrar& r);                           \
  extern "C" __attribute__((visibility("default"))) const tsb_plugin_descriptor* \
  tsb_plugin_v1(void) {                                                         \
    static const tsb_plugin_descriptor descriptor = {                           \
        TSB_PLUGIN_ABI_MAJOR, TSB_PLUGIN_ABI_MINOR, TSB_PLATFORM_TAG, name,      \
        version, &::tsb::detail::RegisterPlugin<&tsb_plugin_body_>};            \
    return &descriptor;                                                         \
  }                                                                             \
  static void tsb_plugin_body_(::tsb::Registrar& r)

#endif  // TSBRIDGE_PLUGIN_HPP_
