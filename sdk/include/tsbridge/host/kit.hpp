// The host kit: what every language binding of tsbridge needs once, over
// the C ABI (tsbridge.h) and tsbridge.hpp, header-only, C++17, no LibTorch
// and no Abseil. The Python and R hosts and the command line's reader stand
// on it; docs/hosts.md shows a host written with it.
//
// - Paths: the segments of the one path syntax (tsbridge/path.hpp), and
//   KeySegmentOf for a key given as a boundary value.
// - ConvertError: a failure with its path, grown one segment per level on
//   the way out (At); CheckStatus turns a tsb_status into one.
// - Listings: a module's methods, children, attributes, parameters and
//   buffers, an operator's overloads, each a vector (tsb::Listed's loop).
// - OwnedVec: boundary references released together, no allocation for a
//   call's usual few arguments.
// - NestingGuard: walks stop 512 containers deep with an error, not a
//   stack overflow.
// - TypeCache: a host's per-type-index entry (the type's info plus what the
//   host makes once for it: a class, a class vector), never rebuilt.
// - Walk (boundary → host) and Build (host → boundary): the structure, the
//   paths and the types; the host says only how each kind looks in its
//   language, in the manner of nanobind's type casters (see the Host
//   requirements above each).
#ifndef TSBRIDGE_HOST_KIT_HPP_
#define TSBRIDGE_HOST_KIT_HPP_

#include "tsbridge/host/kit/base.hpp"
#include "tsbridge/host/kit/build.hpp"
#include "tsbridge/host/kit/walk.hpp"

#endif  // TSBRIDGE_HOST_KIT_HPP_
