// libFuzzer: a sequence of host ABI calls driven by the input bytes: build
// values, coerce them to types, read them back, flatten them (tensors
// lent), rebuild them from entries (tsb_any_unflatten, also from entries
// the bytes make up), release them. Whatever the
// sequence, every call returns a status or a value, and no handle leaks.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"
#include "fuzz_input.h"

namespace {

const char* const kTypes[] = {
    "int", "float", "bool", "str", "Tensor", "complex", "Device", "ScalarType",
    "List[int]", "List[float]", "List[str]", "List[List[int]]", "Dict[str, int]",
    "Dict[int, List[float]]", "List[Any]", "Any", "Scalar", "Dict[str, Any]",
    "Tuple[int, str]", "Optional[int]", "List[Optional[float]]", "Union[int, str]",
};
constexpr size_t kNumTypes = sizeof(kTypes) / sizeof(kTypes[0]);

using tsb::fuzz::Bytes;

// Values share their parts, so a few steps could build a value whose walk is
// exponential (a list of itself, twice, ...): each value's weight bounds the
// nodes a walk visits, and no container may exceed kMaxWeight.
constexpr size_t kMaxWeight = 4096;

struct Stack {
  std::vector<tsb_any> values;
  std::vector<size_t> weights;  // parallel to values

  void Push(const tsb_any& value, size_t weight) {
    values.push_back(value);
    weights.push_back(weight);
  }
  void Keep(tsb_status* status, const tsb_any& value, size_t weight) {
    if (status == nullptr) Push(value, weight);
    else tsb_status_free(status);
  }
  // 1 + the weights of the top n values.
  size_t WeightOfTop(size_t n) const {
    size_t sum = 1;
    for (size_t i = values.size() - n; i < values.size(); ++i) sum += weights[i];
    return sum;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tsb::fuzz::LoadBundledPlugins();
  const size_t live_before = ::tsb::LiveHandles();
  Bytes in{data, size};
  Stack stack;
  std::vector<tsb_any>& values = stack.values;
  for (int steps = 0; in.size > 0 && steps < 64; ++steps) {
    tsb_any out{};
    const size_t top = values.size();
    switch (in.Next() % 12) {
      case 0: stack.Push(tsb_any_int(in.Int()), 1); break;
      case 1: stack.Push(tsb_any_float(in.Int() / 4.0), 1); break;
      case 2: stack.Push(tsb_any_bool(in.Next() & 1), 1); break;
      case 3: stack.Push(tsb_any_none(), 1); break;
      case 4: {
        char text[4] = {static_cast<char>('a' + in.Next() % 26), '\0'};
        stack.Keep(tsb_str_new(text, 1, &out), out, 1);
        break;
      }
      case 5: {  // a List[Any] or a Tuple of the top n values
        size_t n = top == 0 ? 0 : in.Next() % (top + 1);
        const bool list = in.Next() & 1;
        if (stack.WeightOfTop(n) > kMaxWeight) break;
        tsb_status* s = list ? tsb_list_new(TSB_TYPE_ANY, values.data() + top - n, n, &out)
                             : tsb_tuple_new(values.data() + top - n, n, &out);
        stack.Keep(s, out, stack.WeightOfTop(n));
        break;
      }
      case 6: {  // a Dict from the top 2n values
        size_t n = top / 2 == 0 ? 0 : in.Next() % (top / 2 + 1);
        if (stack.WeightOfTop(2 * n) > kMaxWeight) break;
        stack.Keep(tsb_dict_new(TSB_TYPE_ANY, TSB_TYPE_ANY, values.data() + top - 2 * n,
                                values.data() + top - n, n, &out),
                   out, stack.WeightOfTop(2 * n));
        break;
      }
      case 7: {  // coerce the top to a type
        if (top == 0) break;
        int32_t type = TSB_TYPE_INVALID;
        tsb_status* s = tsb_type_parse(kTypes[in.Next() % kNumTypes], &type);
        if (s == nullptr) s = tsb_any_coerce(&values[top - 1], type, &out);
        stack.Keep(s, out, stack.weights[top - 1]);
        break;
      }
      case 8: {  // read the top back: length, an element, a repr
        if (top == 0) break;
        size_t n = 0;
        tsb_status_free(tsb_any_len(&values[top - 1], &n));
        stack.Keep(tsb_list_get(&values[top - 1], in.Next(), &out), out,
                   stack.weights[top - 1]);
        char* repr = nullptr;
        if (tsb_status* s = tsb_any_repr(&values[top - 1], &repr)) tsb_status_free(s);
        else tsb_string_free(repr);
        break;
      }
      case 10: {  // flatten the top, lending its tensors; rebuild it as a type
        if (top == 0) break;
        size_t n = 0;
        tsb_status_free(tsb_any_flatten_borrowed(&values[top - 1], nullptr, 0, &n));
        if (n == 0 || n > kMaxWeight) break;
        std::vector<tsb_any> entries(n);
        if (tsb_status* s = tsb_any_flatten_borrowed(&values[top - 1], entries.data(), n, &n)) {
          tsb_status_free(s);
          break;
        }
        int32_t type = values[top - 1].type_index;  // its own type, or another
        if (in.Next() & 1) tsb_status_free(tsb_type_parse(kTypes[in.Next() % kNumTypes], &type));
        stack.Keep(tsb_any_unflatten(type, entries.data(), n, &out), out, stack.weights[top - 1]);
        tsb_any kept{};  // a lent leaf kept past the flattened value's use
        stack.Keep(tsb_any_keep(&entries[in.Next() % n], &kept), kept, 1);
        for (tsb_any& e : entries) tsb_any_release(&e);
        break;
      }
      case 11: {  // entries the bytes make up: containers of any count over the top values
        std::vector<tsb_any> entries;
        size_t weight = 1;
        for (size_t i = 0, k = in.Next() % 8; i < k; ++i) {
          const uint8_t b = in.Next();
          if ((b & 3) == 0 || top == 0) {
            int32_t type = TSB_TYPE_ANY;
            tsb_status_free(tsb_type_parse(kTypes[in.Next() % kNumTypes], &type));
            tsb_any e = tsb_any_inline(type, static_cast<int8_t>(in.Next()));
            e.flags = TSB_FLAG_CONTAINER;
            entries.push_back(e);
            ++weight;
          } else {
            const size_t at = top - 1 - (b >> 2) % top;
            entries.push_back(values[at]);  // borrowed, not taken
            weight += stack.weights[at];
          }
        }
        if (weight > kMaxWeight) break;
        int32_t type = TSB_TYPE_ANY;
        tsb_status_free(tsb_type_parse(kTypes[in.Next() % kNumTypes], &type));
        stack.Keep(tsb_any_unflatten(type, entries.data(), entries.size(), &out), out, weight);
        break;
      }
      case 9:  // release the top
        if (top > 0) {
          tsb_any_release(&values.back());
          values.pop_back();
          stack.weights.pop_back();
        }
        break;
    }
  }
  for (tsb_any& value : values) tsb_any_release(&value);
  if (::tsb::LiveHandles() != live_before) std::abort();  // a leak is a finding
  return 0;
}
