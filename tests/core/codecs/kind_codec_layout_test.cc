// The shape of tsb::KindCodec's vtable, which plugins' kind codecs fill: each
// virtual function at a fixed slot (Itanium C++ ABI: a pointer to a virtual
// member function holds 1 + its byte offset in the vtable; slots 0 and 1 are
// the destructors). Reordering, inserting or removing a virtual function
// fails here; bump TSB_SDK_ABI_VERSION (tsbridge/plugin/internal/platform_tag.hpp) with it.
#include <cstdint>
#include <cstring>

#include <gtest/gtest.h>

#include "tsbridge/plugin/kind_codec.hpp"
#include "tsbridge/plugin/internal/platform_tag.hpp"

namespace tsb {
namespace {

template <typename MemberFunction>
size_t Slot(MemberFunction f) {
  static_assert(sizeof(f) == 2 * sizeof(void*), "the Itanium representation");
  std::uintptr_t raw = 0;
  std::memcpy(&raw, &f, sizeof(raw));
  EXPECT_EQ(raw % sizeof(void*), 1u) << "not a virtual function";
  return (raw - 1) / sizeof(void*);
}

TEST(KindCodecLayoutTest, VirtualFunctionsKeepTheirSlots) {
  ASSERT_EQ(TSB_SDK_ABI_VERSION, 3) << "the slots below are SDK ABI 3's";
  EXPECT_EQ(Slot(&KindCodec::kind), 2u);
  EXPECT_EQ(Slot(&KindCodec::type_kind), 3u);
  EXPECT_EQ(Slot(&KindCodec::is_abstract), 4u);
  EXPECT_EQ(Slot(&KindCodec::Canonical), 5u);
  EXPECT_EQ(Slot(&KindCodec::InternName), 6u);
  EXPECT_EQ(Slot(&KindCodec::Describe), 7u);
  EXPECT_EQ(Slot(&KindCodec::Encode), 8u);
  EXPECT_EQ(Slot(&KindCodec::Decode), 9u);
  EXPECT_EQ(Slot(&KindCodec::Coerce), 10u);
  EXPECT_EQ(Slot(&KindCodec::Length), 11u);
  EXPECT_EQ(Slot(&KindCodec::Item), 12u);
  EXPECT_EQ(Slot(&KindCodec::Field), 13u);
}

}  // namespace
}  // namespace tsb
