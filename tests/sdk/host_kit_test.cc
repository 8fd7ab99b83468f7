// The host kit (tsbridge/host/kit.hpp) with a host of its own: a small tree
// value (None, bool, int, uint, float, str, list, string-keyed map), walked from
// and built into boundary values through the C ABI only. What a new
// language binding writes, in ~100 lines (docs/hosts.md).
#include "tsbridge/host/kit.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "tests/testing/build_paths.h"
#include "tests/sdk/parse_type.h"
#include "tests/testing/kit_build_access.h"

namespace {

struct Tree;
using TreePtr = std::shared_ptr<Tree>;
struct Tree {
  // A "map" keeps its keys in order; a "record" is a map with a type name.
  std::variant<std::monostate, bool, int64_t, uint64_t, double, std::string,
               std::vector<TreePtr>, std::vector<std::pair<std::string, TreePtr>>>
      v;
  std::string record;  // the NamedTuple's name, for records out
};
template <typename T>
TreePtr Make(T value) {
  auto t = std::make_shared<Tree>();
  t->v = std::move(value);
  return t;
}
using Seq = std::vector<TreePtr>;
using Map = std::vector<std::pair<std::string, TreePtr>>;

struct TreeEntry : tsb::kit::TypeInfo {
  void Complete() {}
};

class TreeHost {
 public:
  using Out = TreePtr;
  using In = const TreePtr&;
  using Entry = TreeEntry;
  using Guard = tsb::kit::NestingGuard;
  using Context = tsb::kit::BuildContext;

  const Entry& Type(int32_t index) { return types_.Get(index); }

  // ---- boundary → tree
  Out None() { return Make(std::monostate{}); }
  Out Bool(bool b) { return Make(b); }
  Out Int(int64_t i) { return Make(i); }
  Out UInt(uint64_t u) { return Make(u); }
  Out Float(double d) { return Make(d); }
  Out Complex(double, double) { tsb::kit::Fail(TSB_ERR_UNSUPPORTED, "no complex here"); }
  Out Str(const char* s, size_t n) { return Make(std::string(s, n)); }
  Out Tensor(const tsb_any&) { return Make(std::string("<tensor>")); }
  Out TorchEnum(int32_t, int64_t code) { return Make(code); }
  template <typename T>
  Out Bulk(const T* data, size_t n) {
    Seq out;
    for (size_t i = 0; i < n; ++i) out.push_back(Make(data[i]));
    ++bulk_lists;
    return Make(std::move(out));
  }
  Out IntList(const Entry&, const int64_t* d, size_t n) { return Bulk(d, n); }
  Out FloatList(const Entry&, const double* d, size_t n) { return Bulk(d, n); }
  Out BoolList(const Entry&, const bool* d, size_t n) { return Bulk(d, n); }
  Out List(const Entry&, tsb::kit::Items<TreeHost>& items) {
    Seq out;
    for (size_t i = 0; i < items.size(); ++i) out.push_back(items.Walk(i));
    return Make(std::move(out));
  }
  Out Tuple(const Entry& type, tsb::kit::Items<TreeHost>& items) {
    if (type.kind != TSB_KIND_NAMEDTUPLE) return List(type, items);
    Map out;
    for (size_t i = 0; i < items.size(); ++i) out.emplace_back(type.fields[i], items.Walk(i));
    TreePtr t = Make(std::move(out));
    t->record = type.QualifiedName();
    return t;
  }
  Out Dict(const Entry&, tsb::kit::DictItems<TreeHost>& items) {
    Map out;
    for (size_t i = 0; i < items.size(); ++i) {
      TreePtr key = items.Key(i);
      auto* s = std::get_if<std::string>(&key->v);
      if (s == nullptr) tsb::kit::Fail(TSB_ERR_UNSUPPORTED, "a map has str keys");
      out.emplace_back(*s, items.Value(i));
    }
    return Make(std::move(out));
  }
  Out Enum(const Entry&, const tsb_any&) { tsb::kit::Fail(TSB_ERR_UNSUPPORTED, "no enums"); }
  Out Object(const Entry&, const tsb_any&) { tsb::kit::Fail(TSB_ERR_UNSUPPORTED, "no objects"); }

  // ---- tree → boundary
  bool IsNone(In x) { return std::holds_alternative<std::monostate>(x->v); }
  void Leaf(In x, int32_t expected, Context& context, tsb_any* out) {
    // Scalars as they are; the callee (or tsb_any_coerce) checks the type.
    (void)expected;
    Untyped(x, context, out);
  }
  void Untyped(In x, Context& context, tsb_any* out) {
    if (IsNone(x)) {
      *out = tsb_any_none();
    } else if (auto* b = std::get_if<bool>(&x->v)) {
      *out = tsb_any_bool(*b);
    } else if (auto* i = std::get_if<int64_t>(&x->v)) {
      if (on_int) on_int(*i, context);
      *out = tsb_any_int(*i);
    } else if (auto* u = std::get_if<uint64_t>(&x->v)) {
      *out = tsb_any_uint(*u);
    } else if (auto* d = std::get_if<double>(&x->v)) {
      *out = tsb_any_float(*d);
    } else if (auto* s = std::get_if<std::string>(&x->v)) {
      tsb::kit::CheckStatus(tsb_str_new(s->data(), s->size(), out));
    } else if (std::holds_alternative<Seq>(x->v)) {
      BuildSeq(x, TSB_TYPE_ANY, context, out);
    } else {
      BuildMap(x, TSB_TYPE_STR, TSB_TYPE_ANY, context, out);
    }
  }
  bool List(In x, const Entry& type, Context& context, tsb_any* out) {
    if (!std::holds_alternative<Seq>(x->v)) return false;
    BuildSeq(x, type.contained[0], context, out);
    return true;
  }
  bool Tuple(In x, const Entry& type, Context& context, tsb_any* out) {
    const Seq* seq = std::get_if<Seq>(&x->v);
    if (seq == nullptr) return false;
    tsb::kit::TupleBuilder<Entry> b(context, &type, seq->size());
    for (size_t i = 0; i < b.size(); ++i) {
      b.Item(i, [&](tsb_any* item) { tsb::kit::Build(*this, context, (*seq)[i], b.element(i), item); });
    }
    b.Finish(out);
    return true;
  }
  bool Dict(In x, const Entry& type, Context& context, tsb_any* out) {
    if (!std::holds_alternative<Map>(x->v)) return false;
    BuildMap(x, type.contained[0], type.contained[1], context, out);
    return true;
  }
  bool Enum(In, const Entry&, tsb_any*) { return false; }
  [[noreturn]] void Mismatch(In, int32_t expected) {
    tsb::kit::Fail(TSB_ERR_TYPE, "expected " + tsb::kit::Annotation(expected) + ", got a tree");
  }

  int bulk_lists = 0;
  std::function<void(int64_t, tsb::kit::BuildContext&)> on_int;  // as an int is built

 private:
  void BuildSeq(In x, int32_t element, Context& context, tsb_any* out) {
    const Seq& seq = std::get<Seq>(x->v);
    tsb::kit::ListBuilder b(context, element, seq.size());
    for (size_t i = 0; i < seq.size(); ++i) {
      b.Item(i, [&](tsb_any* item) { tsb::kit::Build(*this, context, seq[i], element, item); });
    }
    b.Finish(out);
  }
  void BuildMap(In x, int32_t key_type, int32_t value_type, Context& context, tsb_any* out) {
    const Map& map = std::get<Map>(x->v);
    tsb::kit::DictBuilder b(context, key_type, value_type, map.size());
    for (size_t i = 0; i < map.size(); ++i) {
      b.Entry(
          i, [&] { return tsb::kit::StrKeySegment(map[i].first); },
          [&](tsb_any* k) {
            tsb::kit::CheckStatus(tsb_str_new(map[i].first.data(), map[i].first.size(), k));
          },
          [&](tsb_any* v) { tsb::kit::Build(*this, context, map[i].second, value_type, v); });
    }
    b.Finish(out);
  }
  tsb::kit::TypeCache<Entry> types_;
};

using tsb::testing::ParseType;

tsb::Value Build(TreeHost& host, const TreePtr& tree, const char* type) {
  tsb::Value out;
  tsb::kit::Build(host, tree, ParseType(type), out.out());
  return out;
}

class HostKitTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tsb::Check(tsb_plugin_load(tsb::testing::BuildPath("TSB_TUPLE_PLUGIN_PATH"), nullptr));
    tsb::Check(tsb_plugin_load(tsb::testing::BuildPath("TSB_OPTIONAL_PLUGIN_PATH"), nullptr));
  }
  TreeHost host;
};

TEST_F(HostKitTest, BuildsByTheTypeAndWalksBack) {
  TreePtr tree = Make(Map{{"a", Make(Seq{Make(int64_t{1}), Make(int64_t{2})})},
                          {"b", Make(Seq{})}});
  tsb::Value v = Build(host, tree, "Dict[str, List[int]]");
  EXPECT_EQ(v.ToJson(), R"({"a":[1,2],"b":[]})");
  TreePtr back = tsb::kit::Walk(host, v.get());
  const Map& map = std::get<Map>(back->v);
  ASSERT_EQ(map.size(), 2u);
  EXPECT_EQ(std::get<int64_t>(std::get<Seq>(map[0].second->v)[1]->v), 2);
  EXPECT_EQ(host.bulk_lists, 2);  // List[int] leaves in one copy each
}

TEST_F(HostKitTest, AMismatchNamesItsPath) {
  TreePtr tree = Make(Map{{"a", Make(Seq{Make(int64_t{1}), Make(std::string("x"))})}});
  try {
    Build(host, tree, "Dict[str, List[int]]");
    FAIL() << "built";
  } catch (const tsb::kit::ConvertError& e) {
    EXPECT_EQ(e.Message("f(): argument 'd'"),
              "f(): argument 'd' → key \"a\" → [1]: expected int, got str \"x\"");
  }
}

TEST_F(HostKitTest, OptionalAndUnionFollowTheType) {
  EXPECT_EQ(Build(host, Make(std::monostate{}), "Optional[int]").ToJson(), "null");
  EXPECT_EQ(Build(host, Make(int64_t{3}), "Optional[int]").ToJson(), "3");
  tsb::Value u = Build(host, Make(std::string("s")), "Union[int, str]");
  EXPECT_EQ(u.ToJson(), R"("s")");
  try {
    Build(host, Make(Seq{}), "Union[int, str]");
    FAIL() << "built";
  } catch (const tsb::kit::ConvertError& e) {
    EXPECT_EQ(e.detail, "expected Union[int, str], got a tree");
  }
}

TEST_F(HostKitTest, TuplesAreTypedAsTheyAreBuilt) {
  tsb::Value t = Build(host, Make(Seq{Make(int64_t{1}), Make(2.5)}), "Tuple[float, float]");
  EXPECT_EQ(t.ToJson(), "[1.0,2.5]");
  try {  // the field's type is checked where it is built
    Build(host, Make(Seq{Make(int64_t{1}), Make(std::string("x"))}), "Tuple[int, int]");
    FAIL() << "built";
  } catch (const tsb::kit::ConvertError& e) {
    EXPECT_EQ(e.Message(), "[1]: expected int, got str \"x\"");
  }
  try {  // the wrong arity: the coercion says so
    Build(host, Make(Seq{Make(int64_t{1})}), "Tuple[int, int]");
    FAIL() << "built";
  } catch (const tsb::kit::ConvertError& e) {
    EXPECT_NE(e.Message().find("Tuple[int, int]"), std::string::npos) << e.Message();
  }
}

TEST_F(HostKitTest, UntypedContainersTakeTheirItemsCommonType) {
  tsb::Value v = Build(host, Make(Seq{Make(int64_t{1}), Make(int64_t{2})}), "Any");
  tsb_type_info info{};
  info.struct_size = sizeof(info);
  tsb::Check(tsb_type_get_info(v.type_index(), &info));
  EXPECT_STREQ(info.annotation, "List[int]");
}

// ABI 1.9: the builders of one outermost Build append to one buffer in
// pre-order and the value is made by one tsb_any_unflatten, no handle per
// inner container: at each int the entries of every container around it
// are already there. With two faults the first in pre-order is named.
TEST_F(HostKitTest, ANestedValueIsBuiltInOnePass) {
  std::vector<size_t> entries;
  host.on_int = [&](int64_t, tsb::kit::BuildContext& context) {
    auto* flat = tsb::kit::internal::BuildContextAccess::Flat(context);
    entries.push_back(flat == nullptr ? 0 : flat->entries().size());
  };
  TreePtr tree = Make(Map{{"a", Make(Seq{Make(Seq{Make(int64_t{1})}),
                                        Make(Seq{Make(int64_t{2}), Make(int64_t{3})})})}});
  for (const char* type : {"Dict[str, List[List[int]]]", "Any"}) {
    entries.clear();
    EXPECT_EQ(Build(host, tree, type).ToJson(), R"({"a":[[1],[2,3]]})") << type;
    // Dict, "a", List, List before 1; then 1 and the second inner List.
    EXPECT_EQ(entries, (std::vector<size_t>{4, 6, 7})) << type;
  }
  try {  // the error comes with its whole path from the one pass
    Build(host, tree, "Dict[str, List[List[str]]]");
    FAIL() << "built";
  } catch (const tsb::kit::ConvertError& e) {
    EXPECT_EQ(e.Message(), "key \"a\" → [0] → [0]: expected str, got int 1");
  }
  try {
    Build(host, Make(Seq{Make(Seq{}), Make(Map{{"k", Make(int64_t{1})}})}),
          "List[Dict[int, int]]");
    FAIL() << "built";
  } catch (const tsb::kit::ConvertError& e) {
    EXPECT_EQ(e.Message().rfind("[0]: expected Dict[int, int], got List", 0), 0u) << e.Message();
  }
}

// A Union's trials are whole values (each coerced, the failed ones
// dropped): a trial that fails part-way leaves nothing behind.
TEST_F(HostKitTest, AUnionInsideAContainerTriesWholeValues) {
  TreePtr tree = Make(Seq{Make(Seq{Make(std::string("a"))}), Make(Seq{Make(int64_t{1})})});
  tsb::Value v = Build(host, tree, "List[Union[List[int], List[str]]]");
  EXPECT_EQ(v.ToJson(), R"([["a"],[1]])");
}

// A conversion that converts another value on the way (Python code run by
// a __dlpack__ that calls tsbridge) builds it on its own: another host
// object, another buffer.
TEST_F(HostKitTest, ABuildInsideABuildIsItsOwn) {
  std::string inner;
  host.on_int = [&](int64_t i, tsb::kit::BuildContext&) {
    if (i != 2) return;
    TreeHost other;
    inner = Build(other, Make(Map{{"b", Make(Seq{Make(int64_t{7})})}}), "Any").ToJson();
  };
  TreePtr tree = Make(Seq{Make(Seq{Make(int64_t{1})}), Make(Seq{Make(int64_t{2})})});
  EXPECT_EQ(Build(host, tree, "List[List[int]]").ToJson(), "[[1],[2]]");
  EXPECT_EQ(inner, R"({"b":[7]})");
}

// Builders used on their own nest the same way; a failed item leaves the
// entries as they were, and a tuple that needs its items as values (named,
// or typed by its items) gets them.
TEST_F(HostKitTest, BuildersOnTheirOwnKeepTheirEntriesWhole) {
  tsb::kit::BuildContext context;
  auto ints = [&](std::vector<int64_t> xs, tsb_any* out) {
    tsb::kit::ListBuilder l(context, TSB_TYPE_INT, xs.size());
    for (size_t i = 0; i < xs.size(); ++i) {
      l.Item(i, [&](tsb_any* item) {
        if (xs[i] < 0) tsb::kit::Fail(TSB_ERR_TYPE, "negative");
        *item = tsb_any_int(xs[i]);
      });
    }
    l.Finish(out);
  };
  tsb::kit::TupleBuilder<TreeEntry> t(context, nullptr, 2);
  try {
    t.Item(0, [&](tsb_any* out) { ints({1, -1}, out); });
    FAIL() << "built";
  } catch (const tsb::kit::ConvertError& e) {
    EXPECT_EQ(e.Message(), "[0] → [1]: negative");
  }
  t.Item(0, [&](tsb_any* out) { ints({1, 2}, out); });
  t.Item(1, [&](tsb_any* out) { *out = tsb_any_float(0.5); });
  tsb::Value named;
  t.FinishNamed(nullptr, {"xs", "w"}, named.out());
  EXPECT_EQ(named.ToJson(), R"({"xs":[1,2],"w":0.5})");
  tsb_kind kind = TSB_KIND_INVALID;
  tsb::Check(tsb_type_get_kind(named.type_index(), &kind));
  EXPECT_EQ(kind, TSB_KIND_NAMEDTUPLE);
  // An item made whole there that does not convert is named by its place.
  tsb::kit::TupleBuilder<TreeEntry> bad(context, nullptr, 2);
  bad.Item(0, [&](tsb_any* out) { *out = tsb_any_int(1); });
  bad.Item(1, [&](tsb_any* out) {
    tsb::kit::ListBuilder l(context, TSB_TYPE_INT, 1);
    l.Item(0, [&](tsb_any* item) { tsb::Check(tsb_str_new("x", 1, item)); });
    l.Finish(out);
  });
  try {
    tsb::Value never;
    bad.FinishNamed(nullptr, {"a", "b"}, never.out());
    FAIL() << "built";
  } catch (const tsb::kit::ConvertError& e) {
    EXPECT_EQ(e.Message(), "[1] → [0]: expected int, got str \"x\"");
  }
}

TEST_F(HostKitTest, WalkStopsAtTheNestingLimit) {
  TreePtr deep = Make(Seq{});
  for (int i = 0; i < 600; ++i) deep = Make(Seq{deep});
  try {
    Build(host, deep, "Any");
    FAIL() << "built";
  } catch (const tsb::kit::ConvertError& e) {
    EXPECT_EQ(e.code, TSB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(e.detail.find("512 containers deep"), std::string::npos);
    // The path shows where: one [0] per level walked.
    EXPECT_EQ(e.path.rfind("[0] → [0] → [0]", 0), 0u) << e.path;
  }
}

TEST_F(HostKitTest, ABuiltDictNamesItsKeysAsAWalkDoes) {
  tsb::kit::BuildContext context;
  tsb::kit::DictBuilder b(context, TSB_TYPE_INT, TSB_TYPE_STR, 2);
  b.Entry(0, [](tsb_any* k) { *k = tsb_any_int(3); },
          [](tsb_any* v) { tsb::Check(tsb_str_new("a", 1, v)); });
  try {  // the value's failure names the key made
    b.Entry(1, [](tsb_any* k) { *k = tsb_any_int(4); },
            [](tsb_any*) { tsb::kit::Fail(TSB_ERR_TYPE, "no value"); });
    FAIL() << "built";
  } catch (const tsb::kit::ConvertError& e) {
    EXPECT_EQ(e.Message(), "key 4: no value");
  }
  try {  // the key's failure names its place
    b.Entry(1, [](tsb_any*) { tsb::kit::Fail(TSB_ERR_TYPE, "no key"); }, [](tsb_any*) {});
    FAIL() << "built";
  } catch (const tsb::kit::ConvertError& e) {
    EXPECT_EQ(e.Message(), "[1] (a key): no key");
  }
}

TEST_F(HostKitTest, KeysAreNamedAsEveryHostNamesThem) {
  tsb::Value k;
  tsb::Check(tsb_str_new("b", 1, k.out()));
  EXPECT_EQ(tsb::kit::KeySegmentOf(k.get()), "key \"b\"");
  EXPECT_EQ(tsb::kit::KeySegmentOf(tsb_any_int(3)), "key 3");
  EXPECT_EQ(tsb::kit::IndexSegment(2), "[2]");
  EXPECT_EQ(tsb::kit::FieldSegment("x"), "field 'x'");
}

// An int above INT64_MAX (ABI 1.6) walks as the host's uint, item by item
// where a List[int] holds one (the bulk copy has no int64_t for it), and
// builds with tsb_any_uint; a LibTorch without UInt refuses it.
TEST_F(HostKitTest, AUIntWalksAsItselfInsideListsAndDicts) {
  constexpr uint64_t kTwo63 = uint64_t{1} << 63;
  const tsb_any mixed[] = {tsb_any_int(1), tsb_any_uint(kTwo63)};
  EXPECT_EQ(tsb::kit::CommonType(mixed, 2), TSB_TYPE_INT);  // a uint is an int
  EXPECT_EQ(tsb::kit::KeySegmentOf(tsb_any_uint(kTwo63)), "key 9223372036854775808");
  TreePtr seq = Make(Seq{Make(int64_t{1}), Make(kTwo63), Make(UINT64_MAX)});
  TreePtr tree = Make(Map{{"a", seq}});
  if (!TSB_TEST_HAS_UINT) {
    try {
      Build(host, tree, "Dict[str, List[int]]");
      FAIL() << "built";
    } catch (const tsb::kit::ConvertError& e) {
      EXPECT_EQ(e.code, TSB_ERR_UNSUPPORTED);
      EXPECT_EQ(e.path, "key \"a\" → [1]");
      EXPECT_NE(e.detail.find("needs LibTorch 2.9 or newer"), std::string::npos) << e.detail;
    }
    return;
  }
  tsb::Value dict = Build(host, tree, "Dict[str, List[int]]");
  EXPECT_EQ(dict.ToJson(), R"({"a":[1,9223372036854775808,18446744073709551615]})");
  const int bulk_before = host.bulk_lists;
  auto expect_items = [&](const TreePtr& list) {
    const Seq& items = std::get<Seq>(list->v);
    ASSERT_EQ(items.size(), 3u);
    EXPECT_EQ(std::get<int64_t>(items[0]->v), 1);
    EXPECT_EQ(std::get<uint64_t>(items[1]->v), kTwo63);
    EXPECT_EQ(std::get<uint64_t>(items[2]->v), UINT64_MAX);
  };
  TreePtr back = tsb::kit::Walk(host, dict.get());  // flattened: the nested list's items
  expect_items(std::get<Map>(back->v)[0].second);
  tsb::Value list = Build(host, seq, "List[int]");  // whole: the bulk copy refuses, then items
  expect_items(tsb::kit::Walk(host, list.get()));
  EXPECT_EQ(host.bulk_lists, bulk_before);
  tsb::Value untyped = Build(host, seq, "Any");  // ints and uints: a List[int]
  EXPECT_EQ(untyped.type_index(), ParseType("List[int]"));
}

TEST_F(HostKitTest, TorchEnumsAreNamedAsTheirJson) {
  tsb::Value dtype;
  tsb::Check(tsb_json_read("\"float32\"", TSB_TYPE_DTYPE, dtype.out()));
  EXPECT_EQ(tsb::kit::TorchEnumName(TSB_TYPE_DTYPE, dtype.get().u.i), "float32");
  tsb::Value device;
  tsb::Check(tsb_json_read("\"cpu\"", TSB_TYPE_DEVICE, device.out()));
  EXPECT_EQ(tsb::kit::TorchEnumName(TSB_TYPE_DEVICE, device.get().u.i), "cpu");
}

}  // namespace
