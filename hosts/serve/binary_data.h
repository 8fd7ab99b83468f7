// The protocol's binary tensor data extension (docs/serve.md): a request or
// response body is its JSON followed by tensors' bytes (little-endian,
// row-major, no padding; a BYTES element is a 4-byte little-endian length
// and its bytes), the JSON's length in the Inference-Header-Content-Length
// header, each binary tensor's size in its parameters.binary_data_size.
// Tensors cross through DLPack (tsb_tensor_from_dlpack, _to_dlpack): no JSON.
#ifndef TSBRIDGE_HOSTS_SERVE_BINARY_DATA_H_
#define TSBRIDGE_HOSTS_SERVE_BINARY_DATA_H_

#include <string>
#include <string_view>
#include <vector>

#include "hosts/serve/repository.h"

namespace tsb::serve {

inline constexpr const char* kHeaderLength = "Inference-Header-Content-Length";

// The bytes of one element of a dtype the protocol names (tsbridge's name,
// "float32"); 0 for another.
size_t ElementSize(const std::string& dtype);
// A tensor of `dtype` and `shape` holding a copy of `bytes`, whose size the
// caller checked. A BOOL byte other than 0 and 1 is a 400 at `where`.
Value TensorFromBytes(const std::string& dtype, const std::vector<int64_t>& shape,
                      std::string_view bytes, const std::string& where);
// BYTES elements as JSON strings; a 400 at `where` if the bytes are not so.
Json StringsFromBytes(std::string_view bytes, const std::string& where);
// A tensor's elements (CPU, a dtype the protocol names) as bytes.
std::string BytesOfTensor(const tsb_any& tensor);
// JSON strings as BYTES elements.
std::string BytesOfStrings(const Json& strings);

}  // namespace tsb::serve

#endif  // TSBRIDGE_HOSTS_SERVE_BINARY_DATA_H_
