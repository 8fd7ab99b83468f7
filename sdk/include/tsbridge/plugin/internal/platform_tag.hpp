// The platform tag: where C++ objects may cross between the core and a
// plugin. Both sides compute it from the same macros; the loader refuses a
// plugin whose tag differs from the core's.
//
//   <compiler family>/<standard library>/cxx11abi=<0|1>/torch=<major>.<minor>/sdk=<N>
//
// N is TSB_SDK_ABI_VERSION, the version of the C++ types the core and a
// plugin share (tsb::KindCodec's virtual functions, tsb::TypeInfo's layout,
// the IValue stack of a plugin function): a plugin built against another
// SDK is refused with a status that says so, instead of crashing. An SDK
// before version 2 wrote no "/sdk=" part.
//
// gcc and clang share one C++ ABI on Linux (Itanium, with libstdc++), so
// both are family "gnu"; what breaks objects across the line is the
// standard library, its dual ABI, and the LibTorch minor version.
#ifndef TSBRIDGE_PLATFORM_TAG_HPP_
#define TSBRIDGE_PLATFORM_TAG_HPP_

// The standard library's own macros (_GLIBCXX_USE_CXX11_ABI, _LIBCPP_VERSION):
// <version> from C++20 (g++ 16 warns that <ciso646> is not standard), else
// <ciso646>, which every older library has.
#if __has_include(<version>)
#include <version>
#else
#include <ciso646>
#endif
#include <torch/version.h>

#if defined(_MSC_VER)
#define TSB_PLATFORM_COMPILER_ "msvc"
#elif defined(__GNUC__)
#define TSB_PLATFORM_COMPILER_ "gnu"
#else
#define TSB_PLATFORM_COMPILER_ "unknown"
#endif

#if defined(_LIBCPP_VERSION)
#define TSB_PLATFORM_STDLIB_ "libc++"
#elif defined(__GLIBCXX__)
#define TSB_PLATFORM_STDLIB_ "libstdc++"
#elif defined(_MSC_VER)
#define TSB_PLATFORM_STDLIB_ "msvcstl"
#else
#define TSB_PLATFORM_STDLIB_ "unknown"
#endif

#if defined(_GLIBCXX_USE_CXX11_ABI) && _GLIBCXX_USE_CXX11_ABI
#define TSB_PLATFORM_CXX11_ABI_ "1"
#else
#define TSB_PLATFORM_CXX11_ABI_ "0"
#endif

#define TSB_PLATFORM_STR2_(x) #x
#define TSB_PLATFORM_STR_(x) TSB_PLATFORM_STR2_(x)

// Bump when a C++ type shared with plugins changes shape (the layout test,
// tests/core/abi/plugin_abi_layout_test.cc, fails until it is).
#define TSB_SDK_ABI_VERSION 3

// The tag without the SDK part: what an SDK before version 2 wrote.
#define TSB_PLATFORM_BASE_TAG                                             \
  TSB_PLATFORM_COMPILER_ "/" TSB_PLATFORM_STDLIB_                         \
                         "/cxx11abi=" TSB_PLATFORM_CXX11_ABI_ "/torch="   \
                         TSB_PLATFORM_STR_(TORCH_VERSION_MAJOR) "."       \
                         TSB_PLATFORM_STR_(TORCH_VERSION_MINOR)

#define TSB_PLATFORM_TAG \
  TSB_PLATFORM_BASE_TAG "/sdk=" TSB_PLATFORM_STR_(TSB_SDK_ABI_VERSION)

#endif  // TSBRIDGE_PLATFORM_TAG_HPP_
