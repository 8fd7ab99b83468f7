// tsb_tuple_new_named (ABI 1.8): a NamedTuple whose type nobody registered,
// as a Python namedtuple or an R named tsb_tuple crosses under Any; its
// checks; and how it coerces (kept under a plain Tuple, by field names to a
// record).
#include <ATen/ATen.h>

#include "tests/plugins/plugin_testing.h"
#include "tsbridge/host/tsbridge.hpp"

namespace tsb::testing {
namespace {

using NamedTupleTest = PluginTest;

TEST_F(NamedTupleTest, NamedAndTypedByItsItems) {
  Value t(Boundary(at::ones({2})));
  tsb_any items[] = {t.get(), tsb_any_int(4)};
  const char* fields[] = {"x", "n"};
  Value named;
  TSB_ASSERT_OK(tsb_tuple_new_named("__torch__.Point", fields, items, 2, named.out()));
  tsb_type_info info = InfoOf(named.get().type_index);
  EXPECT_EQ(info.kind, TSB_KIND_NAMEDTUPLE);
  EXPECT_STREQ(info.name, "__torch__.Point");
  ASSERT_EQ(info.num_fields, 2u);
  EXPECT_STREQ(info.field_names[0], "x");
  EXPECT_STREQ(info.field_names[1], "n");
  EXPECT_EQ(ContainedOf(named.get().type_index),
            (std::vector<int32_t>{TSB_TYPE_TENSOR, TSB_TYPE_INT}));
  Value n;
  TSB_ASSERT_OK(tsb_any_get_field(&named.get(), "n", n.out()));
  EXPECT_EQ(n.get().u.i, 4);
  // The same name and fields again: the same type index.
  Value again;
  TSB_ASSERT_OK(tsb_tuple_new_named("__torch__.Point", fields, items, 2, again.out()));
  EXPECT_EQ(again.get().type_index, named.get().type_index);
}

// R torch's named tuples have field names and no type name.
TEST_F(NamedTupleTest, NamelessKeepsItsFields) {
  tsb_any items[] = {tsb_any_int(1), tsb_any_float(2.5)};
  const char* fields[] = {"a", "b"};
  Value nameless;
  TSB_ASSERT_OK(tsb_tuple_new_named(nullptr, fields, items, 2, nameless.out()));
  tsb_type_info info = InfoOf(nameless.get().type_index);
  EXPECT_EQ(info.kind, TSB_KIND_NAMEDTUPLE);
  EXPECT_STREQ(info.name, "");
  ASSERT_EQ(info.num_fields, 2u);
  EXPECT_STREQ(info.field_names[1], "b");
  EXPECT_NE(nameless.get().type_index, TypeOf("Tuple[int, float]"));
  // Under Any and under a plain Tuple it is kept as it is (a NamedTuple is
  // a Tuple's subtype), names and all.
  Value any, tuple;
  TSB_ASSERT_OK(tsb_any_coerce(&nameless.get(), TSB_TYPE_ANY, any.out()));
  EXPECT_EQ(any.get().type_index, nameless.get().type_index);
  TSB_ASSERT_OK(tsb_any_coerce(&nameless.get(), TypeOf("Tuple[int, float]"), tuple.out()));
  EXPECT_TRUE(FromBoundary(tuple.get()).isSameIdentity(FromBoundary(nameless.get())));
  EXPECT_NE(FromBoundary(tuple.get()).toTupleRef().type()->schema(), nullptr);
}

// A nameless record converts to a named one by its field names, in any
// order, as a host's Dict[str, Any] does; a named one of another name not.
TEST_F(NamedTupleTest, NamelessCoercesToARecordByFieldName) {
  const int32_t pair = TypeOf("tsbridge.tensor_pair");
  at::Tensor t0 = at::ones({2}), t1 = at::zeros({3});
  Value h0(Boundary(t0)), h1(Boundary(t1));
  tsb_any items[] = {h1.get(), h0.get()};
  const char* swapped[] = {"second", "first"};
  Value nameless, record;
  TSB_ASSERT_OK(tsb_tuple_new_named(nullptr, swapped, items, 2, nameless.out()));
  TSB_ASSERT_OK(tsb_any_coerce(&nameless.get(), pair, record.out()));
  EXPECT_EQ(record.get().type_index, pair);
  EXPECT_TRUE(FromBoundary(record.get()).toTupleRef().elements()[0].toTensor().is_same(t0));
  const char* other[] = {"first", "third"};
  TSB_ASSERT_OK(tsb_tuple_new_named(nullptr, other, items, 2, nameless.out()));
  ExpectStatus(tsb_any_coerce(&nameless.get(), pair, record.out()), TSB_ERR_TYPE, "",
               "tsbridge.tensor_pair has no field 'third' (fields: first, second)");
  const char* fields[] = {"first", "second"};
  Value named;
  TSB_ASSERT_OK(tsb_tuple_new_named("__torch__.Pair", fields, items, 2, named.out()));
  Status refused(tsb_any_coerce(&named.get(), pair, record.out()));
  ASSERT_NE(refused.get(), nullptr);
  EXPECT_EQ(tsb_status_get_code(refused.get()), TSB_ERR_TYPE);
}

TEST_F(NamedTupleTest, FieldAndTypeNamesAreChecked) {
  tsb_any items[] = {tsb_any_int(1), tsb_any_int(2)};
  Value out;
  const char* digit[] = {"a", "2b"};
  ExpectStatus(tsb_tuple_new_named(nullptr, digit, items, 2, out.out()),
               TSB_ERR_INVALID_ARGUMENT, "field_names[1]",
               "expected an identifier (letters, digits and _, not starting with a digit), "
               "got \"2b\"");
  const char* twice[] = {"a", "a"};
  ExpectStatus(tsb_tuple_new_named(nullptr, twice, items, 2, out.out()),
               TSB_ERR_INVALID_ARGUMENT, "field_names[1]",
               "expected a field name not used before, got \"a\", already field_names[0]");
  const char* empty[] = {"", "b"};
  ExpectStatus(tsb_tuple_new_named(nullptr, empty, items, 2, out.out()),
               TSB_ERR_INVALID_ARGUMENT, "field_names[0]",
               "expected an identifier (letters, digits and _, not starting with a digit), "
               "got \"\"");
  const char* missing[] = {"a", nullptr};
  ExpectStatus(tsb_tuple_new_named(nullptr, missing, items, 2, out.out()),
               TSB_ERR_INVALID_ARGUMENT, "field_names[1]", "expected a field name, got NULL");
  const char* fields[] = {"a", "b"};
  ExpectStatus(tsb_tuple_new_named("__torch__..P", fields, items, 2, out.out()),
               TSB_ERR_INVALID_ARGUMENT, "qualified_name",
               "expected a qualified name (identifiers joined by '.'), got \"__torch__..P\"");
  ExpectStatus(tsb_tuple_new_named("P", nullptr, items, 2, out.out()),
               TSB_ERR_INVALID_ARGUMENT, "", "argument 'field_names' is NULL");
  EXPECT_EQ(out.get().type_index, TSB_TYPE_INVALID);
}

}  // namespace
}  // namespace tsb::testing
