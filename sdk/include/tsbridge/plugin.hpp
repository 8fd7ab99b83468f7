// Writing a tsbridge plugin in C++: one line per type, one line per function.
//
//   #include <tsbridge/plugin.hpp>
//
//   TSB_PLUGIN("torchsparse", "0.1") {
//     r.type<std::tuple<at::Tensor, at::Tensor>>("torchsparse.tensor_pair",
//                                                {"first", "second"});
//     r.function("torchsparse::relabel", &relabel, {"col", "idx"});
//   }
//
// TSB_PLUGIN writes the C descriptor of tsbridge/plugin.h (ABI version,
// platform tag, name, version) and a register function that catches every
// exception. A Registrar keeps the first error and ignores the calls after
// it; the loader then publishes nothing.
#ifndef TSBRIDGE_PLUGIN_HPP_
#define TSBRIDGE_PLUGIN_HPP_

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "tsbridge/codec.hpp"
#include "tsbridge/kind_codec.hpp"
#include "tsbridge/platform_tag.hpp"
#include "tsbridge/plugin.h"
#include "tsbridge/tsbridge.h"

namespace tsb {

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
  template <typename T>
  Registrar& type(const char* name, std::initializer_list<const char*> fields);

  // A struct adapted with BOOST_HANA_ADAPT_STRUCT, registered as a NamedTuple
  // under its own qualified name with its own field names.
  template <typename T>
  Registrar& type();

  // A C++ function callable from every host by name; argument and return
  // types come from Codec<Args>::name() and Codec<R>::name(). `returns`
  // names a registered record the result crosses as instead, e.g.
  //   r.function("torchsparse::relabel", &relabel, {"col", "idx"},
  //              "torchsparse.tensor_pair");
  template <typename R, typename... Args>
  Registrar& function(const char* name, R (*fn)(Args...),
                      std::initializer_list<const char*> arg_names,
                      const char* returns = nullptr);

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

#include "tsbridge/registrar_impl.hpp"  // the template members above

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
