// Every tsb::Codec kind at once. Prefer the one header per kind you convert:
// this one pulls in Boost.Hana as well.
#ifndef TSBRIDGE_CODECS_ALL_HPP_
#define TSBRIDGE_CODECS_ALL_HPP_

#include "tsbridge/plugin/codecs/hana.hpp"
#include "tsbridge/plugin/codecs/map.hpp"
#include "tsbridge/plugin/codecs/optional.hpp"
#include "tsbridge/plugin/codecs/scalar.hpp"
#include "tsbridge/plugin/codecs/string.hpp"
#include "tsbridge/plugin/codecs/tensor.hpp"
#include "tsbridge/plugin/codecs/tuple.hpp"
#include "tsbridge/plugin/codecs/variant.hpp"
#include "tsbridge/plugin/codecs/vector.hpp"

#endif  // TSBRIDGE_CODECS_ALL_HPP_
