// Borrowed tensors (ABI 1.9): tsb_any_flatten_borrowed lends the tensors a
// value holds, tsb::BorrowTensor lends a host's own, tsb_any_keep makes a
// reference to keep; a borrowed entry holds none and outlives nothing.
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "tests/testing/abi_test.h"
#include "tsbridge/plugin/kind_codec.hpp"  // BorrowTensor, BorrowedTensor

namespace tsb::testing {
namespace {

using BorrowedTest = BundledPluginsTest;

// The entries of tsb_any_flatten_borrowed, sized first.
std::vector<tsb_any> FlattenBorrowed(const tsb_any& v) {
  size_t n = 0;
  EXPECT_EQ(tsb_any_flatten_borrowed(&v, nullptr, 0, &n), nullptr);
  std::vector<tsb_any> entries(n);
  TSB_EXPECT_OK(tsb_any_flatten_borrowed(&v, entries.data(), n, &n));
  return entries;
}

TEST_F(BorrowedTest, AWalkLendsTheTensorsItHoldsAndMakesNoReference) {
  const at::Tensor a = at::ones({2}), b = at::zeros({3});
  c10::impl::GenericDict d(c10::StringType::get(), c10::TensorType::get());
  d.insert("a", a);
  d.insert("b", b);
  tsb_any v = Boundary(c10::IValue(d), "Dict[str, Tensor]");
  const size_t live = LiveHandles();
  const auto uses = a.use_count();
  std::vector<tsb_any> entries = FlattenBorrowed(v);
  ASSERT_EQ(entries.size(), 5u);
  EXPECT_EQ(LiveHandles(), live);  // no handle per tensor
  EXPECT_EQ(a.use_count(), uses);  // and no reference to it
  EXPECT_EQ(entries[2].flags, TSB_FLAG_BORROWED);
  EXPECT_EQ(entries[2].type_index, TSB_TYPE_TENSOR);
  EXPECT_TRUE(BorrowedTensor(entries[2]).is_same(a));
  EXPECT_TRUE(BorrowedTensor(entries[4]).is_same(b));
  // A lent tensor has the id a handle of the same tensor has.
  uint64_t lent_id = 0, handle_id = 0;
  tsb_any handle = Boundary(c10::IValue(a), "Tensor");
  TSB_ASSERT_OK(tsb_any_get_id(&entries[2], &lent_id));
  TSB_ASSERT_OK(tsb_any_get_id(&handle, &handle_id));
  EXPECT_NE(lent_id, 0u);
  EXPECT_EQ(lent_id, handle_id);
  tsb_any_release(&handle);
  // Every function taking a value takes one: here the tensor's info.
  tsb_tensor_info info{};
  info.struct_size = sizeof(info);
  TSB_ASSERT_OK(tsb_tensor_get_info(&entries[4], &info));
  EXPECT_EQ(info.ndim, 1u);
  // tsb_any_retain does nothing to one; tsb_any_release only resets it.
  tsb_any_retain(&entries[2]);
  EXPECT_EQ(a.use_count(), uses);
  for (tsb_any& e : entries) tsb_any_release(&e);
  EXPECT_EQ(entries[2].type_index, TSB_TYPE_INVALID);
  EXPECT_EQ(LiveHandles(), live);
  tsb_any_release(&v);
}

TEST_F(BorrowedTest, AKeptTensorOutlivesTheValueItWasLentFrom) {
  tsb_any v = Boundary(c10::IValue(c10::List<at::Tensor>({at::full({2}, 7.0)})),
                       "List[Tensor]");
  std::vector<tsb_any> entries = FlattenBorrowed(v);
  ASSERT_EQ(entries.size(), 2u);
  Value kept;
  TSB_ASSERT_OK(tsb_any_keep(&entries[1], kept.out()));
  EXPECT_EQ(kept.get().flags, TSB_FLAG_HANDLE);
  tsb_any_release(&v);  // the list and its last other reference go
  const at::Tensor t = FromBoundary(kept.get()).toTensor();
  EXPECT_TRUE(t.equal(at::full({2}, 7.0)));
}

TEST_F(BorrowedTest, KeepMakesAValueTheCallerOwnsFromAnyValue) {
  Value from_int, from_str, from_handle;
  tsb_any i = tsb_any_int(3);
  TSB_ASSERT_OK(tsb_any_keep(&i, from_int.out()));
  EXPECT_EQ(from_int.get().u.i, 3);
  EXPECT_EQ(from_int.get().flags, 0u);
  std::string text = "borrowed";
  tsb_any s = tsb_any_borrowed_str(text.c_str());
  TSB_ASSERT_OK(tsb_any_keep(&s, from_str.out()));
  text.assign("changed!");  // the kept str is a copy
  EXPECT_EQ(FromBoundary(from_str.get()).toStringRef(), "borrowed");
  tsb_any h = Boundary(c10::IValue(at::ones({1})), "Tensor");
  const size_t live = LiveHandles();
  TSB_ASSERT_OK(tsb_any_keep(&h, from_handle.out()));
  EXPECT_EQ(from_handle.get().u.obj, h.u.obj);  // a new reference to the same handle
  EXPECT_EQ(LiveHandles(), live);
  tsb_any_release(&h);
  EXPECT_TRUE(FromBoundary(from_handle.get()).toTensor().equal(at::ones({1})));
  Status null(tsb_any_keep(nullptr, from_int.out()));
  EXPECT_NE(null.message().find("argument 'v' is NULL"), std::string::npos) << null.message();
}

TEST_F(BorrowedTest, ABuilderStoresTheTensorAHostLends) {
  at::Tensor t = at::arange(4);
  const size_t live = LiveHandles();
  tsb_any items[2] = {BorrowTensor(t), BorrowTensor(t)};
  Value list;
  TSB_ASSERT_OK(tsb_list_new(TSB_TYPE_TENSOR, items, 2, list.out()));
  EXPECT_EQ(LiveHandles(), live + 1);  // the list's handle alone
  t = at::Tensor();  // the host lets its tensor go: the list holds it
  const auto elements = FromBoundary(list.get()).toListRef();
  ASSERT_EQ(elements.size(), 2u);
  EXPECT_TRUE(elements[0].toTensor().equal(at::arange(4)));
  EXPECT_TRUE(elements[0].toTensor().is_same(elements[1].toTensor()));
}

TEST_F(BorrowedTest, AMalformedBorrowedEntryIsRefused) {
  tsb_any bad = BorrowTensor(at::ones({1}));
  bad.type_index = TSB_TYPE_INT;  // the flag fits tensors only
  size_t len = 0;
  Status s(tsb_any_len(&bad, &len));
  EXPECT_NE(s.message().find("malformed value: flags 8 do not fit type int"), std::string::npos)
      << s.message();
  tsb_any both = BorrowTensor(at::ones({1}));
  both.flags |= TSB_FLAG_HANDLE;  // a borrowed entry is never a handle too
  Value out;
  Status h(tsb_any_keep(&both, out.out()));
  EXPECT_NE(h.message().find("malformed value"), std::string::npos) << h.message();
  tsb_any none = BorrowTensor(at::ones({1}));
  none.u.borrowed = nullptr;
  Status n(tsb_any_keep(&none, out.out()));
  EXPECT_NE(n.message().find("a borrowed tensor names nothing"), std::string::npos)
      << n.message();
}

}  // namespace
}  // namespace tsb::testing
