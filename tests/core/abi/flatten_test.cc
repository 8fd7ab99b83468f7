// tsb_any_flatten: a whole value in one call, its containers opened in
// pre-order, strs borrowed, other leaves as tsb_list_get_items gives them.
#include <vector>

#include <ATen/ATen.h>

#include "tests/testing/abi_test.h"

namespace tsb::testing {
namespace {

using FlattenTest = BundledPluginsTest;

std::string Text(const tsb_any& e) {
  if (e.flags & TSB_FLAG_CONTAINER) return "<" + std::to_string(e.u.i) + ">";
  const char* data = nullptr;
  size_t len = 0;
  switch (e.type_index) {
    case TSB_TYPE_NONE: return "None";
    case TSB_TYPE_INT: return std::to_string(e.u.i);
    case TSB_TYPE_STR:
      EXPECT_EQ(tsb_str_get(&e, &data, &len), nullptr);
      return (e.flags == TSB_FLAG_BORROWED_STR ? "'" : "h'") + std::string(data, len) + "'";
    case TSB_TYPE_TENSOR: return e.flags == TSB_FLAG_HANDLE ? "T" : "bad tensor";
    default: return "?";
  }
}

// The entries, one text each: <n> for a container spanning n more.
std::string Flatten(const tsb_any& v) {
  size_t n = 0;
  EXPECT_EQ(tsb_any_flatten(&v, nullptr, 0, &n), nullptr);
  std::vector<tsb_any> entries(n);
  size_t again = 0;
  Status s(tsb_any_flatten(&v, entries.data(), n, &again));
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(again, n);
  std::string out;
  for (tsb_any& e : entries) {
    out += (out.empty() ? "" : " ") + Text(e);
    tsb_any_release(&e);
  }
  return out;
}

TEST_F(FlattenTest, ADictOfListsInPreOrder) {
  c10::impl::GenericDict d(c10::StringType::get(),
                           c10::ListType::create(c10::OptionalType::create(c10::TensorType::get())));
  c10::impl::GenericList a(c10::OptionalType::create(c10::TensorType::get()));
  a.push_back(at::ones({2}));
  a.push_back(c10::IValue());
  d.insert("a", a);
  d.insert("b", c10::impl::GenericList(c10::OptionalType::create(c10::TensorType::get())));
  tsb_any v = Boundary(c10::IValue(d), "Dict[str, List[Optional[Tensor]]]");
  EXPECT_EQ(Flatten(v), "<6> 'a' <2> T None 'b' <0>");
  tsb_any_release(&v);
}

TEST_F(FlattenTest, RecordsAndLeaves) {
  tsb_any t = Boundary(c10::ivalue::Tuple::create({int64_t{3}, std::string("x")}),
                       "Tuple[int, str]");
  EXPECT_EQ(Flatten(t), "<2> 3 'x'");
  tsb_any_release(&t);
  tsb_any leaf = tsb_any_int(7);  // not a container: one entry
  EXPECT_EQ(Flatten(leaf), "7");
  tsb_any nul;  // a str holding a NUL cannot be borrowed as a C string
  TSB_ASSERT_OK(tsb_str_new("a\0b", 3, &nul));
  EXPECT_EQ(Flatten(nul), std::string("h'a") + '\0' + "b'");
  tsb_any_release(&nul);
}

TEST_F(FlattenTest, TooSmallABufferWritesNothing) {
  tsb_any v = Boundary(c10::IValue(c10::List<at::Tensor>({at::ones({1}), at::ones({1})})),
                       "List[Tensor]");
  const size_t live = LiveHandles();
  tsb_any out[2] = {tsb_any_int(-1), tsb_any_int(-1)};
  size_t n = 0;
  TSB_ASSERT_OK(tsb_any_flatten(&v, out, 2, &n));
  EXPECT_EQ(n, 3u);
  EXPECT_EQ(LiveHandles(), live);  // the references taken were released
  for (const tsb_any& e : out) {   // and the caller's entries are as they were
    EXPECT_EQ(e.type_index, TSB_TYPE_INT);
    EXPECT_EQ(e.flags, 0u);
    EXPECT_EQ(e.u.i, -1);
  }
  tsb_any_release(&v);
}

TEST_F(FlattenTest, AFailedFlattenLeavesTheBufferAsItWas) {
  // A list 600 deep made by TorchScript code (builders refuse one): the walk
  // fails past TSB_MAX_DEPTH, after it wrote 512 container entries.
  tsb_module* module = nullptr;
  TSB_ASSERT_OK(tsb_module_compile(
      "def deep(self, n: int) -> List[Any]:\n"
      "    l: List[Any] = []\n"
      "    for i in range(n):\n"
      "        outer: List[Any] = [l]\n"
      "        l = outer\n"
      "    return l\n",
      &module));
  tsb_any n_arg = tsb_any_int(600);
  const tsb_call_args args = tsb_call_args_make(&n_arg, 1);
  Value deep;
  TSB_ASSERT_OK(tsb_module_call(module, "deep", &args, deep.out()));
  std::vector<tsb_any> out(1000, tsb_any_int(-1));
  size_t n = 0;
  Status s(tsb_any_flatten(&deep.get(), out.data(), out.size(), &n));
  ASSERT_NE(s.get(), nullptr);
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(tsb_status_get_path(s.get())),
            "[0] \u2192 [0] \u2192 [0] \u2192 [0] \u2192 [0] \u2192 [0] \u2192 [0] \u2192 [0] \u2192 "
            "\u2026 (500 segments) \u2192 [0] \u2192 [0] \u2192 [0] \u2192 [0]");
  for (const tsb_any& e : out) EXPECT_EQ(e.u.i, -1);
  // tsb_any_coerce keeps the same limit, even to Any (which shares the value).
  tsb_any coerced{};
  Status c(tsb_any_coerce(&deep.get(), TSB_TYPE_ANY, &coerced));
  ASSERT_NE(c.get(), nullptr);
  EXPECT_EQ(tsb_status_get_code(c.get()), TSB_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(tsb_status_get_detail(c.get())),
            "expected a value nested at most 512 containers deep, found a deeper one");
  tsb_module_free(module);
}

TEST_F(FlattenTest, AContainerEntryIsNotAValue) {
  tsb_any v = Boundary(c10::IValue(c10::List<int64_t>({1, 2})), "List[int]");
  tsb_any out[3];
  size_t n = 0;
  TSB_ASSERT_OK(tsb_any_flatten(&v, out, 3, &n));
  ASSERT_EQ(n, 3u);
  EXPECT_EQ(out[0].flags, TSB_FLAG_CONTAINER);
  size_t len = 0;
  Status s(tsb_any_len(&out[0], &len));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("malformed value"), std::string::npos) << s.message();
  tsb_any_release(&v);
}

TEST_F(FlattenTest, ASelfContainingListIsRefused) {
  c10::impl::GenericList l(c10::AnyType::get());
  l.push_back(c10::IValue(l));
  tsb_any v = Boundary(c10::IValue(l), "List[Any]");
  size_t n = 0;
  Status s(tsb_any_flatten(&v, nullptr, 0, &n));
  EXPECT_NE(s.message().find("512 containers deep"), std::string::npos) << s.message();
  tsb_any_release(&v);
  l.get(0).toList().clear();  // break the cycle
}

}  // namespace
}  // namespace tsb::testing
