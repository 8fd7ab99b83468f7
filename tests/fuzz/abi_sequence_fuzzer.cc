// libFuzzer: a sequence of host ABI calls driven by the input bytes: build
// values, coerce them to types, read them back, release them. Whatever the
// sequence, every call returns a status or a value, and no handle leaks.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "tsbridge/tsbridge.h"

namespace {

const char* const kTypes[] = {
    "int", "float", "bool", "str", "Tensor", "complex", "Device", "ScalarType",
    "List[int]", "List[float]", "List[str]", "List[List[int]]", "Dict[str, int]",
    "Dict[int, List[float]]", "List[Any]", "Any", "Scalar", "Dict[str, Any]",
    "Tuple[int, str]", "Optional[int]", "List[Optional[float]]", "Union[int, str]",
};
constexpr size_t kNumTypes = sizeof(kTypes) / sizeof(kTypes[0]);

struct Bytes {
  const uint8_t* data;
  size_t size;
  uint8_t Next() {
    if (size == 0) return 0;
    --size;
    return *data++;
  }
  int64_t Int() { return static_cast<int8_t>(Next()); }
};

void Keep(std::vector<tsb_any>& stack, tsb_status* status, const tsb_any& value) {
  if (status == nullptr) {
    stack.push_back(value);
  } else {
    tsb_status_free(status);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static bool plugins_loaded = [] {
    tsb_status_free(tsb_plugin_load_bundled());  // Tuple, Optional, Union
    return true;
  }();
  (void)plugins_loaded;
  const int64_t live_before = tsb_live_handles();
  Bytes in{data, size};
  std::vector<tsb_any> stack;
  for (int steps = 0; in.size > 0 && steps < 64; ++steps) {
    tsb_any out{};
    const size_t top = stack.size();
    switch (in.Next() % 10) {
      case 0: stack.push_back(tsb_int(in.Int())); break;
      case 1: stack.push_back(tsb_float(in.Int() / 4.0)); break;
      case 2: stack.push_back(tsb_bool(in.Next() & 1)); break;
      case 3: stack.push_back(tsb_none()); break;
      case 4: {
        char text[4] = {static_cast<char>('a' + in.Next() % 26), '\0'};
        Keep(stack, tsb_str_new(text, 1, &out), out);
        break;
      }
      case 5: {  // a List[Any] or a Tuple of the top n values
        size_t n = top == 0 ? 0 : in.Next() % (top + 1);
        tsb_status* s = (in.Next() & 1) ? tsb_list_new(TSB_TYPE_ANY, stack.data() + top - n, n, &out)
                                         : tsb_tuple_new(stack.data() + top - n, n, &out);
        Keep(stack, s, out);
        break;
      }
      case 6: {  // a Dict from the top 2n values
        size_t n = top / 2 == 0 ? 0 : in.Next() % (top / 2 + 1);
        Keep(stack, tsb_dict_new(TSB_TYPE_ANY, TSB_TYPE_ANY, stack.data() + top - 2 * n,
                                 stack.data() + top - n, n, &out), out);
        break;
      }
      case 7: {  // coerce the top to a type
        if (top == 0) break;
        int32_t type = TSB_TYPE_INVALID;
        tsb_status* s = tsb_type_parse(kTypes[in.Next() % kNumTypes], &type);
        if (s == nullptr) s = tsb_coerce(&stack[top - 1], type, &out);
        Keep(stack, s, out);
        break;
      }
      case 8: {  // read the top back: length, an element, a repr
        if (top == 0) break;
        size_t n = 0;
        tsb_status_free(tsb_len(&stack[top - 1], &n));
        Keep(stack, tsb_list_get(&stack[top - 1], in.Next(), &out), out);
        char* repr = nullptr;
        if (tsb_status* s = tsb_repr(&stack[top - 1], &repr)) tsb_status_free(s);
        else tsb_string_free(repr);
        break;
      }
      case 9:  // release the top
        if (top > 0) {
          tsb_release(&stack.back());
          stack.pop_back();
        }
        break;
    }
  }
  for (tsb_any& value : stack) tsb_release(&value);
  if (tsb_live_handles() != live_before) std::abort();  // a leak is a finding
  return 0;
}
