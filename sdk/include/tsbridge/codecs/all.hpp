// Every tsb::Codec kind at once. Prefer the one header per kind you convert:
// this one pulls in Boost.Hana as well.
#ifndef TSBRIDGE_CODECS_ALL_HPP_
#define TSBRIDGE_CODECS_ALL_HPP_

#include "tsbridge/codecs/hana.hpp"
#include "tsbridge/codecs/map.hpp"
#include "tsbridge/codecs/optional.hpp"
#include "tsbridge/codecs/scalar.hpp"
#include "tsbridge/codecs/string.hpp"
#include "tsbridge/codecs/tensor.hpp"
#include "tsbridge/codecs/tuple.hpp"
#include "tsbridge/codecs/variant.hpp"
#include "tsbridge/codecs/vector.hpp"

#endif  // TSBRIDGE_CODECS_ALL_HPP_
