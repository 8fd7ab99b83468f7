// tsb::Codec for structs adapted with BOOST_HANA_ADAPT_STRUCT ⇄ a TorchScript
// NamedTuple whose qualified name is the struct's C++ name with "::" turned
// into "." (geo::Point → geo.Point) and whose fields are the adapted members:
//
//   namespace geo { struct Point { double x; double y; }; }
//   BOOST_HANA_ADAPT_STRUCT(geo::Point, x, y);
//   Codec<geo::Point>::name() == "geo.Point"
//   Codec<geo::Point>::tuple_annotation() == "Tuple[float, float]"
//
// The struct must be default-constructible; members in an anonymous
// namespace lose that segment of the name. Template and local classes have
// no TorchScript name and are refused at compile time.
#ifndef TSBRIDGE_CODECS_HANA_HPP_
#define TSBRIDGE_CODECS_HANA_HPP_

#include <array>
#include <string>
#include <vector>

#include <boost/hana/accessors.hpp>
#include <boost/hana/adapt_struct.hpp>  // for users: BOOST_HANA_ADAPT_STRUCT
#include <boost/hana/at.hpp>
#include <boost/hana/concept/struct.hpp>
#include <boost/hana/first.hpp>
#include <boost/hana/length.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/string.hpp>

#include "tsbridge/plugin/codec.hpp"
#include "tsbridge/plugin/codecs/tuple.hpp"

namespace tsb {
namespace detail {

// T's C++ spelling, read at compile time from the compiler's own signature:
//   gcc:   "... PrettyTypeName() [with T = geo::Point; ...]"
//   clang: "... PrettyTypeName() [T = geo::Point]"
template <typename T>
constexpr std::string_view PrettyTypeName() {
  std::string_view signature = __PRETTY_FUNCTION__;
  const std::size_t start = signature.find("T = ") + 4;
  const std::size_t end = signature.find_first_of(";]", start);
  return signature.substr(start, end - start);
}

// Writes the dotted form of a C++ qualified name to out (when not null) and
// returns its length; called once to size the storage, once to fill it.
constexpr std::size_t DottedName(std::string_view cpp, char* out) {
  constexpr std::string_view kAnonymous[] = {"{anonymous}::", "(anonymous namespace)::"};
  std::size_t n = 0;
  for (std::size_t i = 0; i < cpp.size();) {
    bool skipped = false;
    for (std::string_view anonymous : kAnonymous) {
      if (cpp.substr(i, anonymous.size()) == anonymous) {
        i += anonymous.size();
        skipped = true;
      }
    }
    if (skipped) continue;
    const bool separator = cpp.substr(i, 2) == "::";
    if (out != nullptr) out[n] = separator ? '.' : cpp[i];
    ++n;
    i += separator ? 2 : 1;
  }
  return n;
}

constexpr bool IsTorchScriptQualifiedName(std::string_view name) {
  if (name.empty() || name.front() == '.' || name.back() == '.') return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

template <typename T>
struct QualifiedName {
 private:
  static constexpr std::string_view kCpp = PrettyTypeName<T>();
  static constexpr std::size_t kSize = DottedName(kCpp, nullptr);
  static constexpr FixedString<kSize> Build() {
    FixedString<kSize> out;
    DottedName(kCpp, out.chars);
    return out;
  }
  static constexpr FixedString<kSize> kStorage = Build();

 public:
  static constexpr std::string_view value = kStorage.view();
  static_assert(IsTorchScriptQualifiedName(value),
                "a BOOST_HANA_ADAPT_STRUCT type needs a plain qualified name "
                "(no template or local class) to be a TorchScript NamedTuple");
};

// The adapted members of T: count, names, types and access.
template <typename T>
struct HanaFields {
  using Accessors = decltype(boost::hana::accessors<T>());
  static constexpr std::size_t kCount = decltype(boost::hana::length(Accessors()))::value;

  template <std::size_t I>
  static decltype(auto) Get(T& value) {
    return boost::hana::second(boost::hana::at_c<I>(Accessors()))(value);
  }
  template <std::size_t I>
  static decltype(auto) Get(const T& value) {
    return boost::hana::second(boost::hana::at_c<I>(Accessors()))(value);
  }
  template <std::size_t I>
  using Type = std::decay_t<decltype(Get<I>(std::declval<const T&>()))>;
  template <std::size_t I>
  static const char* Name() {
    return boost::hana::to<const char*>(boost::hana::first(boost::hana::at_c<I>(Accessors())));
  }
};

template <typename T, typename Indices = std::make_index_sequence<HanaFields<T>::kCount>>
struct HanaCodec;

template <typename T, std::size_t... I>
struct HanaCodec<T, std::index_sequence<I...>> {
  using Fields = HanaFields<T>;
  using FieldTuple = std::tuple<typename Fields::template Type<I>...>;
  static_assert(std::is_default_constructible_v<T>,
                "tsb::Codec of a Hana struct builds it field by field: it needs a default constructor");

  static constexpr std::string_view name() { return QualifiedName<T>::value; }
  // The record as an unnamed tuple, the annotation Registrar::type<T>() registers.
  static constexpr std::string_view tuple_annotation() { return Codec<FieldTuple>::name(); }
  static const std::array<const char*, sizeof...(I)>& field_names() {
    static const std::array<const char*, sizeof...(I)> names{Fields::template Name<I>()...};
    return names;
  }

  static c10::TypePtr type() {
    static const c10::TypePtr named_type = c10::TupleType::createNamed(
        c10::QualifiedName(std::string(name())),
        std::vector<std::string>{Fields::template Name<I>()...},
        std::vector<c10::TypePtr>{Codec<typename Fields::template Type<I>>::type()...});
    return named_type;
  }
  static bool Matches(const c10::IValue& value) {
    return value.isTuple() && value.toTupleRef().elements().size() == sizeof...(I);
  }

  static c10::IValue ToIValue(const T& value) { return ToIValue(value, type()); }

  // Built as `as`, the record registered for T (tsb::ToIValueAs): a coerce
  // to it then finds its own type, not an equal one to compare field by field.
  static c10::IValue ToIValue([[maybe_unused]] const T& value, const c10::TypePtr& as) {
    // Moved in, not copied from an initializer list.
    std::vector<c10::IValue> elements;
    elements.reserve(sizeof...(I));
    (elements.push_back(
         Codec<typename Fields::template Type<I>>::ToIValue(Fields::template Get<I>(value))),
     ...);
    return c10::IValue(c10::ivalue::Tuple::createNamed(std::move(elements), as));
  }

  // Any tuple of the right arity converts, named or not: the core has
  // already checked the declared type of a function's arguments.
  static absl::StatusOr<T> FromIValue(const c10::IValue& value) {
    if (!Matches(value)) return Mismatch<T>(value);
    absl::StatusOr<FieldTuple> parts = FromIValues<typename Fields::template Type<I>...>(
        value.toTupleRef().elements().asArrayRef(),
        [](size_t i) { return "field '" + std::string(field_names()[i]) + "'"; });
    if (!parts.ok()) return std::move(parts).status();
    T result{};
    ((Fields::template Get<I>(result) = std::move(std::get<I>(*parts))), ...);
    return result;
  }
};

}  // namespace detail

template <typename T>
struct Codec<T, std::enable_if_t<boost::hana::Struct<T>::value>> : detail::HanaCodec<T> {};

}  // namespace tsb

#endif  // TSBRIDGE_CODECS_HANA_HPP_
