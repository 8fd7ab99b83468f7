// The protocol's binary tensor data extension (docs/serve.md): a request or
// response body is its JSON followed by tensors' bytes (little-endian,
// row-major, no padding; a BYTES element is a 4-byte little-endian length
// and its bytes), the JSON's length in the Inference-Header-Content-Length
// header, each binary tensor's size in its parameters.binary_data_size.
// Tensors cross through DLPack (tsb_tensor_from_dlpack, _to_dlpack): no JSON.
#ifndef TSBRIDGE_HOSTS_SERVE_BINARY_DATA_H_
#define TSBRIDGE_HOSTS_SERVE_BINARY_DATA_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hosts/serve/repository.h"

namespace tsb::serve {

inline constexpr const char* kHeaderLength = "Inference-Header-Content-Length";

// The elements of `shape` times `element` bytes; nothing where a dimension
// is negative or the product does not fit in 64 bits (a wrapped product
// would let a huge shape pass a size check).
std::optional<uint64_t> ElementCount(const std::vector<int64_t>& shape, uint64_t element = 1);
// The bytes of one element of a dtype the protocol names (tsbridge's name,
// "float32"); 0 for another.
size_t ElementSize(const std::string& dtype);
// A tensor of `dtype` and `shape` holding a copy of `bytes`, whose size the
// caller checked. A BOOL byte other than 0 and 1 is a 400 at `where`.
Value TensorFromBytes(const std::string& dtype, const std::vector<int64_t>& shape,
                      std::string_view bytes, const std::string& where);
// The protocol's JSON tensor data (row-major, nested or flat) as a tensor of
// `dtype` (float32, float64, int8 to int64, uint8 or bool) and `shape`,
// without typed JSON text in between: when every element is what the
// general reader takes and converts the same way (a JSON number, an integer
// in range for an integer dtype, true or false for bool) and their count is
// the shape's. Nothing otherwise: the caller's general reader then takes the
// data, and says where it is wrong.
std::optional<Value> TensorFromNumbers(const std::string& dtype, const std::vector<int64_t>& shape,
                                       const Json& data);
// A CPU tensor of a dtype TensorFromNumbers names (except bool): its
// elements as the flat JSON numbers tsb_json_write would write (docs/json.md),
// as text ("[1.5,-2.0]") appended to `text`, its dtype and shape. False, and
// `text` as it was, for another tensor, or one holding NaN or an infinity
// (which the general writer spells as strings).
bool AppendNumbersOfTensor(const tsb_any& tensor, std::string& dtype, std::vector<int64_t>& shape,
                           std::string& text);
// A CPU tensor's dtype (one the protocol names) and shape, all its binary
// form needs (BytesOfTensor); false for another tensor.
bool TensorHeadOf(const tsb_any& tensor, std::string& dtype, std::vector<int64_t>& shape);
// A number as nlohmann writes it (a finite double keeps a fraction or an
// exponent: 2.0); false, and nothing appended, for NaN and the infinities.
bool AppendJsonNumber(double d, std::string& out);
void AppendJsonNumber(int64_t i, std::string& out);
// BYTES elements as JSON strings; a 400 at `where` if the bytes are not so.
Json StringsFromBytes(std::string_view bytes, const std::string& where);
// A tensor's elements (CPU, a dtype the protocol names) as bytes.
std::string BytesOfTensor(const tsb_any& tensor);
// JSON strings as BYTES elements.
std::string BytesOfStrings(const Json& strings);

}  // namespace tsb::serve

#endif  // TSBRIDGE_HOSTS_SERVE_BINARY_DATA_H_
