// plugins/tuple through the C ABI: Tuple and NamedTuple round trips, the
// record types it registers, coercion and its errors.
#include <filesystem>

#include <ATen/ATen.h>

#include "tests/plugins/plugin_testing.h"
#include "tests/testing/build_paths.h"
#include "tsbridge/host/tsbridge.hpp"

namespace tsb::testing {
namespace {

using TupleTest = PluginTest;

// The fields of a tsbridge.tensor_pair: two tensors and their handles.
struct PairFields {
  at::Tensor t0 = at::ones({2}), t1 = at::zeros({3});
  Value h0{Boundary(t0)}, h1{Boundary(t1)};
  tsb_any items[2] = {h0.get(), h1.get()};
};

c10::TupleTypePtr Point(const char* second_field = "y") {
  return c10::TupleType::createNamed(c10::QualifiedName("tsbridge_test.Point"),
                                     std::vector<std::string>{"x", second_field},
                                     {c10::IntType::get(), c10::FloatType::get()});
}

c10::IValue PointValue(const c10::TupleTypePtr& type = Point()) {
  return c10::ivalue::Tuple::createNamed({c10::IValue(int64_t{1}), c10::IValue(2.5)}, type);
}

TEST_F(TupleTest, PluginDescribesItself) {
  int32_t id = -1;
  Status s(tsb_plugin_load(BuildPath("TSB_TUPLE_PLUGIN_PATH"), &id));  // again: a no-op
  ASSERT_EQ(s.get(), nullptr) << tsb_status_get_message(s.get());
  tsb_plugin_info info{};
  info.struct_size = sizeof(info);
  TSB_ASSERT_OK(tsb_plugin_get_info(id, &info));
  EXPECT_STREQ(info.name, "tuple");
  EXPECT_STREQ(info.version, "0.1");
  ASSERT_EQ(info.num_kinds, 1u);
  EXPECT_STREQ(info.kinds[0], "Tuple");
  ASSERT_EQ(info.num_types, 2u);
  EXPECT_STREQ(info.types[0], "tsbridge.tensor_pair");
  EXPECT_STREQ(info.types[1], "tsbridge.tensor_triple");
  // Built where the library looks for its bundled plugins.
  EXPECT_EQ(std::filesystem::canonical(
                std::filesystem::path(BuildPath("TSB_TUPLE_PLUGIN_PATH")).parent_path()),
            std::filesystem::canonical(::tsb::BundledPluginDir()));
}

TEST_F(TupleTest, IntStrRoundTrip) {
  c10::IValue tuple = MakeTuple({int64_t{1}, std::string("a")});
  Value v(Boundary(tuple));
  const int32_t type = TypeOf("Tuple[int, str]");
  EXPECT_EQ(v.get().type_index, type);
  tsb_type_info info = InfoOf(type);
  EXPECT_EQ(info.kind, TSB_KIND_TUPLE);
  EXPECT_STREQ(info.annotation, "Tuple[int, str]");
  EXPECT_STREQ(info.name, "");
  EXPECT_EQ(info.field_names, nullptr);
  EXPECT_STREQ(info.provider, "tuple");
  EXPECT_EQ(ContainedOf(type), (std::vector<int32_t>{TSB_TYPE_INT, TSB_TYPE_STR}));

  size_t n = 0;
  TSB_ASSERT_OK(tsb_any_len(&v.get(), &n));
  EXPECT_EQ(n, 2u);
  Value first, second;
  TSB_ASSERT_OK(tsb_list_get(&v.get(), 0, first.out()));
  TSB_ASSERT_OK(tsb_list_get(&v.get(), 1, second.out()));
  int64_t i = 0;
  TSB_ASSERT_OK(tsb_int_get(&first.get(), &i));
  EXPECT_EQ(i, 1);
  const char* data = nullptr;
  size_t len = 0;
  TSB_ASSERT_OK(tsb_str_get(&second.get(), &data, &len));
  EXPECT_EQ(std::string(data, len), "a");
  Value past_end;
  Status s(tsb_list_get(&v.get(), 2, past_end.out()));
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_OUT_OF_RANGE);
  EXPECT_STREQ(tsb_status_get_message(s.get()),
               "index 2 out of range for Tuple[int, str] of 2 elements");
  EXPECT_TRUE(FromBoundary(v.get()).isSameIdentity(tuple));

  // A host builds the same value bottom-up.
  Value a(Str("a"));
  tsb_any items[] = {tsb_any_int(1), a.get()};
  Value built;
  TSB_ASSERT_OK(tsb_tuple_new(items, 2, built.out()));
  EXPECT_EQ(built.get().type_index, type);
  EXPECT_EQ(FromBoundary(built.get()), tuple);
}

TEST_F(TupleTest, AlreadyTypedTupleIsShared) {
  c10::IValue tuple = MakeTuple({int64_t{1}, std::string("a")});
  Value in(Boundary(tuple));
  Value out;
  TSB_ASSERT_OK(tsb_any_coerce(&in.get(), TypeOf("Tuple[int, str]"), out.out()));
  EXPECT_TRUE(FromBoundary(out.get()).isSameIdentity(tuple)) << "a copy was made";
}

TEST_F(TupleTest, ElementsWidenAndTheResultCarriesTheExpectedType) {
  Value in(Boundary(MakeTuple({int64_t{1}, int64_t{2}})));
  const int32_t type = TypeOf("Tuple[float, int]");
  Value out;
  TSB_ASSERT_OK(tsb_any_coerce(&in.get(), type, out.out()));
  EXPECT_EQ(out.get().type_index, type);
  c10::IValue result = FromBoundary(out.get());
  EXPECT_EQ(result.toTupleRef().elements()[0], c10::IValue(1.0));
  EXPECT_EQ(result.type()->annotation_str(), "Tuple[float, int]");
}

// A tuple's own type has refined tensors (Float(2)); the registry keeps the
// plain Tuple[Tensor, ...] a schema spells, so lists built from it match.
// (The shape is used by no other test: the first one interned is stored.)
TEST_F(TupleTest, RefinedTensorTypesAreStoredAsPlainTensor) {
  at::Tensor t = at::ones({2});
  Value v(Boundary(MakeTuple({t, int64_t{1}, t})));
  const int32_t type = TypeOf("Tuple[Tensor, int, Tensor]");
  EXPECT_EQ(v.get().type_index, type);
  tsb_any items[] = {v.get()};
  Value untyped, typed;
  TSB_ASSERT_OK(tsb_list_new(TSB_TYPE_ANY, items, 1, untyped.out()));
  TSB_ASSERT_OK(tsb_any_coerce(&untyped.get(), TypeOf("List[Tuple[Tensor, int, Tensor]]"), typed.out()));
  c10::TypePtr plain = c10::TupleType::create(
      {c10::TensorType::get(), c10::IntType::get(), c10::TensorType::get()});
  EXPECT_EQ(*FromBoundary(typed.get()).toList().elementType(), *plain);
}

TEST_F(TupleTest, NestedListsDictsAndTuples) {
  at::Tensor t0 = at::ones({2}), t1 = at::zeros({3});
  c10::List<at::Tensor> tensors({t0, t1});
  c10::impl::GenericDict pairs(c10::StringType::get(),
                               c10::TupleType::create({c10::IntType::get(), c10::IntType::get()}));
  pairs.insert(std::string("a"), MakeTuple({int64_t{1}, int64_t{2}}));
  c10::IValue nested = MakeTuple({tensors, pairs});
  const int32_t type = TypeOf("Tuple[List[Tensor], Dict[str, Tuple[int, int]]]");

  Value v(Boundary(nested));
  EXPECT_EQ(v.get().type_index, type);
  Value list, dict;
  TSB_ASSERT_OK(tsb_list_get(&v.get(), 0, list.out()));
  TSB_ASSERT_OK(tsb_list_get(&v.get(), 1, dict.out()));
  EXPECT_EQ(list.get().type_index, TypeOf("List[Tensor]"));
  EXPECT_EQ(dict.get().type_index, TypeOf("Dict[str, Tuple[int, int]]"));
  Value pair, two;
  tsb_any key = tsb_any_borrowed_str("a");
  TSB_ASSERT_OK(tsb_dict_get(&dict.get(), &key, pair.out()));
  EXPECT_EQ(pair.get().type_index, TypeOf("Tuple[int, int]"));
  TSB_ASSERT_OK(tsb_list_get(&pair.get(), 1, two.out()));
  EXPECT_EQ(two.get().u.i, 2);
  EXPECT_TRUE(FromBoundary(v.get()).isSameIdentity(nested));

  // Host-built from untyped pieces, then one coerce to the schema's type.
  Value h0(Boundary(t0)), h1(Boundary(t1));
  Value any_list = AnyList({h0.get(), h1.get()});
  tsb_any pair_items[] = {tsb_any_int(1), tsb_any_int(2)};
  Value host_pair;
  TSB_ASSERT_OK(tsb_tuple_new(pair_items, 2, host_pair.out()));
  tsb_any keys[] = {tsb_any_borrowed_str("a")};
  Value any_dict;
  TSB_ASSERT_OK(tsb_dict_new(TSB_TYPE_STR, TSB_TYPE_ANY, keys, &host_pair.get(), 1, any_dict.out()));
  tsb_any parts[] = {any_list.get(), any_dict.get()};
  Value untyped, typed;
  TSB_ASSERT_OK(tsb_tuple_new(parts, 2, untyped.out()));
  EXPECT_EQ(untyped.get().type_index, TypeOf("Tuple[List[Any], Dict[str, Any]]"));
  TSB_ASSERT_OK(tsb_any_coerce(&untyped.get(), type, typed.out()));
  EXPECT_EQ(typed.get().type_index, type);

  const auto& elements = FromBoundary(typed.get()).toTupleRef().elements();
  c10::impl::GenericList got_list = elements[0].toList();
  EXPECT_EQ(*got_list.elementType(), *c10::TensorType::get());
  EXPECT_TRUE(got_list.get(0).toTensor().is_same(t0)) << "tensor copied";
  c10::impl::GenericDict got_dict = elements[1].toGenericDict();
  EXPECT_EQ(got_dict.valueType()->annotation_str(), "Tuple[int, int]");
  EXPECT_EQ(got_dict.at(std::string("a")), MakeTuple({int64_t{1}, int64_t{2}}));
}

TEST_F(TupleTest, EmptyTuple) {
  const int32_t type = TypeOf("Tuple[()]");
  EXPECT_EQ(InfoOf(type).num_contained, 0u);
  Value v(Boundary(MakeTuple({})));
  EXPECT_EQ(v.get().type_index, type);
  size_t n = 1;
  TSB_ASSERT_OK(tsb_any_len(&v.get(), &n));
  EXPECT_EQ(n, 0u);
  Value built, coerced;
  TSB_ASSERT_OK(tsb_tuple_new(nullptr, 0, built.out()));
  EXPECT_EQ(built.get().type_index, type);
  TSB_ASSERT_OK(tsb_any_coerce(&built.get(), type, coerced.out()));
  Value one(Boundary(MakeTuple({int64_t{1}})));
  ExpectCoerceError(one.get(), type, "", "expected Tuple[()] of 0 elements, got Tuple[int] (1,)");
}

TEST_F(TupleTest, NamedTupleInfoAndFields) {
  Value v(Boundary(PointValue()));
  tsb_type_info info = InfoOf(v.get().type_index);
  EXPECT_EQ(info.kind, TSB_KIND_NAMEDTUPLE);
  EXPECT_STREQ(info.annotation, "tsbridge_test.Point");
  EXPECT_STREQ(info.name, "tsbridge_test.Point");
  EXPECT_STREQ(info.provider, "tuple");
  EXPECT_EQ(FieldsOf(v.get().type_index), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(ContainedOf(v.get().type_index), (std::vector<int32_t>{TSB_TYPE_INT, TSB_TYPE_FLOAT}));

  Value y;
  TSB_ASSERT_OK(tsb_any_get_field(&v.get(), "y", y.out()));
  EXPECT_EQ(y.get().type_index, TSB_TYPE_FLOAT);
  EXPECT_EQ(y.get().u.d, 2.5);
  Value z;
  Status missing(tsb_any_get_field(&v.get(), "z", z.out()));
  EXPECT_EQ(tsb_status_get_code(missing.get()), TSB_ERR_NOT_FOUND);
  EXPECT_STREQ(tsb_status_get_message(missing.get()),
               "tsbridge_test.Point has no field 'z' (fields: x, y)");

  Value plain(Boundary(MakeTuple({int64_t{1}, 2.5})));
  Status unnamed(tsb_any_get_field(&plain.get(), "x", z.out()));
  EXPECT_EQ(tsb_status_get_code(unnamed.get()), TSB_ERR_TYPE);
  EXPECT_STREQ(tsb_status_get_message(unnamed.get()), "expected a NamedTuple, got Tuple[int, float]");
}

// Same qualified name, other fields: another type (two scripted modules may
// each define their own __torch__.Point).
TEST_F(TupleTest, FieldNamesArePartOfANamedTuplesIdentity) {
  Value xy(Boundary(PointValue(Point("y")))), xz(Boundary(PointValue(Point("z"))));
  EXPECT_NE(xy.get().type_index, xz.get().type_index);
  EXPECT_EQ(FieldsOf(xz.get().type_index), (std::vector<std::string>{"x", "z"}));
  ExpectCoerceError(xy.get(), xz.get().type_index, "",
                    "expected tsbridge_test.Point(x, z), got tsbridge_test.Point(x, y)");
}

TEST_F(TupleTest, TensorPairFromAPlainTuple) {
  const int32_t pair = TypeOf("tsbridge.tensor_pair");
  tsb_type_info info = InfoOf(pair);
  EXPECT_EQ(info.kind, TSB_KIND_NAMEDTUPLE);
  EXPECT_STREQ(info.name, "tsbridge.tensor_pair");
  EXPECT_STREQ(info.provider, "tuple");
  EXPECT_EQ(FieldsOf(pair), (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(ContainedOf(pair), (std::vector<int32_t>{TSB_TYPE_TENSOR, TSB_TYPE_TENSOR}));

  PairFields fields;
  auto& [t0, t1, h0, h1, items] = fields;
  Value plain, named;
  TSB_ASSERT_OK(tsb_tuple_new(items, 2, plain.out()));
  TSB_ASSERT_OK(tsb_any_coerce(&plain.get(), pair, named.out()));
  EXPECT_EQ(named.get().type_index, pair);
  Value second;
  TSB_ASSERT_OK(tsb_any_get_field(&named.get(), "second", second.out()));
  EXPECT_TRUE(FromBoundary(second.get()).toTensor().is_same(t1)) << "tensor copied";
  // The IValue itself is the NamedTuple, as TorchScript would see it.
  c10::IValue iv = FromBoundary(named.get());
  EXPECT_EQ(iv.type()->annotation_str(), "tsbridge.tensor_pair");
  // Coercing it again shares it.
  Value again;
  TSB_ASSERT_OK(tsb_any_coerce(&named.get(), pair, again.out()));
  EXPECT_TRUE(FromBoundary(again.get()).isSameIdentity(iv));
  // A NamedTuple is a Tuple: it passes unchanged where one is expected.
  Value as_tuple;
  TSB_ASSERT_OK(tsb_any_coerce(&named.get(), TypeOf("Tuple[Tensor, Tensor]"), as_tuple.out()));
  EXPECT_EQ(as_tuple.get().type_index, TypeOf("Tuple[Tensor, Tensor]"));
  EXPECT_TRUE(FromBoundary(as_tuple.get()).isSameIdentity(iv));
}

TEST_F(TupleTest, TensorTripleWithAndWithoutItsThirdTensor) {
  const int32_t triple = TypeOf("tsbridge.tensor_triple");
  EXPECT_EQ(FieldsOf(triple), (std::vector<std::string>{"first", "second", "third"}));
  EXPECT_EQ(ContainedOf(triple), (std::vector<int32_t>{TSB_TYPE_TENSOR, TSB_TYPE_TENSOR,
                                                        TypeOf("Optional[Tensor]")}));
  Value t(Boundary(at::ones({2})));
  for (bool with_third : {false, true}) {
    tsb_any items[] = {t.get(), t.get(), with_third ? t.get() : tsb_any_none()};
    Value plain, named, third;
    TSB_ASSERT_OK(tsb_tuple_new(items, 3, plain.out()));
    TSB_ASSERT_OK(tsb_any_coerce(&plain.get(), triple, named.out()));
    EXPECT_EQ(named.get().type_index, triple);
    TSB_ASSERT_OK(tsb_any_get_field(&named.get(), "third", third.out()));
    // Optional[Tensor] crosses as what it holds.
    EXPECT_EQ(third.get().type_index, with_third ? TSB_TYPE_TENSOR : TSB_TYPE_NONE);
  }
}

TEST_F(TupleTest, ErrorsNameTheElement) {
  Value one(Boundary(MakeTuple({int64_t{1}})));
  ExpectCoerceError(one.get(), TypeOf("Tuple[int, str]"), "",
                    "expected Tuple[int, str] of 2 elements, got Tuple[int] (1,)");
  Value int_str(Boundary(MakeTuple({int64_t{1}, std::string("x")})));
  ExpectCoerceError(int_str.get(), TypeOf("Tuple[int, int]"), "[1]", "expected int, got str \"x\"");
  ExpectCoerceError(tsb_any_int(3), TypeOf("Tuple[int]"), "", "expected Tuple[int], got int 3");
  Value list(Boundary(c10::List<int64_t>({1, 2})));
  ExpectCoerceError(list.get(), TypeOf("Tuple[int, int]"), "",
                    "expected Tuple[int, int], got List[int] of length 2");
}

TEST_F(TupleTest, ErrorPathsGoThroughNestedContainers) {
  Value x(Str("x"));
  Value any_list = AnyList({tsb_any_int(1), x.get()});
  tsb_any items[] = {tsb_any_int(1), any_list.get()};
  Value tuple;
  TSB_ASSERT_OK(tsb_tuple_new(items, 2, tuple.out()));
  ExpectCoerceError(tuple.get(), TypeOf("Tuple[int, List[int]]"), "[1] \xE2\x86\x92 [1]",
                    "expected int, got str \"x\"");
}

TEST_F(TupleTest, NamedTupleErrorsNameTheField) {
  Value t(Boundary(at::ones({2}))), x(Str("x"));
  tsb_any items[] = {t.get(), x.get()};
  Value plain;
  TSB_ASSERT_OK(tsb_tuple_new(items, 2, plain.out()));
  ExpectCoerceError(plain.get(), TypeOf("tsbridge.tensor_pair"), "field 'second'",
                    "expected Tensor, got str \"x\"");
  // Another record is never converted, even with convertible elements.
  Value point(Boundary(PointValue()));
  ExpectCoerceError(point.get(), TypeOf("tsbridge.tensor_pair"), "",
                    "expected tsbridge.tensor_pair, got tsbridge_test.Point (1, 2.5)");
}

// What a C host builds without knowing a record's type: a List[Any] becomes
// a Tuple or NamedTuple by position, a Dict[str, Any] a NamedTuple by field
// name, as the JSON reader, Python and R accept them; with paths. Typed
// containers stay what they are (ErrorsNameTheElement).
TEST_F(TupleTest, AListOrAStrKeyedDictCoercesToARecord) {
  const int32_t pair = TypeOf("tsbridge.tensor_pair");
  PairFields fields;
  auto& [t0, t1, h0, h1, items] = fields;
  Value list, named;
  TSB_ASSERT_OK(tsb_list_new(TSB_TYPE_ANY, items, 2, list.out()));
  TSB_ASSERT_OK(tsb_any_coerce(&list.get(), pair, named.out()));
  EXPECT_EQ(named.get().type_index, pair);
  EXPECT_TRUE(FromBoundary(named.get()).toTupleRef().elements()[1].toTensor().is_same(t1));
  Value tuple;
  Value mixed_list = AnyList({tsb_any_int(4), tsb_any_float(2.5)});
  TSB_ASSERT_OK(tsb_any_coerce(&mixed_list.get(), TypeOf("Tuple[float, float]"), tuple.out()));
  EXPECT_EQ(FromBoundary(tuple.get()).toTupleRef().elements()[0].toDouble(), 4.0);
  ExpectCoerceError(mixed_list.get(), TypeOf("Tuple[int, int]"), "[1]", "expected int, got float 2.5");
  ExpectCoerceError(mixed_list.get(), TypeOf("Tuple[int, int, int]"), "",
                    "expected Tuple[int, int, int], got List[Any] of length 2, which needs 3 elements");

  Value k0(Str("second")), k1(Str("first"));
  tsb_any keys[] = {k0.get(), k1.get()};
  tsb_any values[] = {h1.get(), h0.get()};
  Value dict, from_dict;
  TSB_ASSERT_OK(tsb_dict_new(TSB_TYPE_STR, TSB_TYPE_ANY, keys, values, 2, dict.out()));
  TSB_ASSERT_OK(tsb_any_coerce(&dict.get(), pair, from_dict.out()));
  EXPECT_TRUE(FromBoundary(from_dict.get()).toTupleRef().elements()[0].toTensor().is_same(t0));
  tsb_any wrong[] = {h1.get(), tsb_any_int(3)};
  Value bad_dict;
  TSB_ASSERT_OK(tsb_dict_new(TSB_TYPE_STR, TSB_TYPE_ANY, keys, wrong, 2, bad_dict.out()));
  ExpectCoerceError(bad_dict.get(), pair, "field 'first'", "expected Tensor, got int 3");
  Value k2(Str("third"));
  tsb_any extra_keys[] = {k0.get(), k1.get(), k2.get()};
  tsb_any extra_values[] = {h1.get(), h0.get(), h0.get()};
  Value extra;
  TSB_ASSERT_OK(tsb_dict_new(TSB_TYPE_STR, TSB_TYPE_ANY, extra_keys, extra_values, 3, extra.out()));
  ExpectCoerceError(extra.get(), pair, "",
                    "tsbridge.tensor_pair has no field 'third' (fields: first, second)");
  // A plain Tuple has no field names: a dict is not one.
  ExpectCoerceError(dict.get(), TypeOf("Tuple[Tensor, Tensor]"), "",
                    "expected Tuple[Tensor, Tensor], got Dict[str, Any] of length 2");
}

// tsb_tuple_new types the tuple from its items' type indices; no type is
// inferred from the values (a refined tensor type would be one).
TEST_F(TupleTest, TupleNewIsTypedFromItsItems) {
  Value t(Boundary(at::ones({2, 3})));
  tsb_any items[] = {t.get(), tsb_any_int(4), tsb_any_none()};
  Value tuple;
  TSB_ASSERT_OK(tsb_tuple_new(items, 3, tuple.out()));
  EXPECT_EQ(tuple.get().type_index, TypeOf("Tuple[Tensor, int, NoneType]"));
  EXPECT_EQ(FromBoundary(tuple.get()).toTupleRef().type()->annotation_str(),
            "Tuple[Tensor, int, NoneType]");
}

// A registered record built directly from its fields: one tuple, named.
TEST_F(TupleTest, TypedBuilderMakesTheRecordDirectly) {
  const int32_t pair = TypeOf("tsbridge.tensor_pair");
  PairFields fields;
  auto& [t0, t1, h0, h1, items] = fields;
  Value named;
  TSB_ASSERT_OK(tsb_tuple_new_typed(pair, items, 2, named.out()));
  EXPECT_EQ(named.get().type_index, pair);
  c10::IValue iv = FromBoundary(named.get());
  EXPECT_EQ(iv.type()->annotation_str(), "tsbridge.tensor_pair");
  EXPECT_TRUE(iv.toTupleRef().elements()[1].toTensor().is_same(t1)) << "tensor copied";
  // Coercing it to its own type shares it.
  Value again;
  TSB_ASSERT_OK(tsb_any_coerce(&named.get(), pair, again.out()));
  EXPECT_TRUE(FromBoundary(again.get()).isSameIdentity(iv));
  // Items convert to their field types: int to float, None for Optional.
  Value point;
  tsb_any point_items[] = {tsb_any_int(1), tsb_any_int(2)};
  TSB_ASSERT_OK(tsb_tuple_new_typed(TypeOf("Tuple[int, float]"), point_items, 2, point.out()));
  EXPECT_EQ(FromBoundary(point.get()).toTupleRef().elements()[1].toDouble(), 2.0);
  Value triple;
  tsb_any triple_items[] = {h0.get(), h1.get(), tsb_any_none()};
  TSB_ASSERT_OK(
      tsb_tuple_new_typed(TypeOf("tsbridge.tensor_triple"), triple_items, 3, triple.out()));
  EXPECT_EQ(triple.get().type_index, TypeOf("tsbridge.tensor_triple"));
}

TEST_F(TupleTest, TypedBuilderErrorsNameTheField) {
  const int32_t pair = TypeOf("tsbridge.tensor_pair");
  Value t(Boundary(at::ones({2}))), x(Str("x"));
  tsb_any items[] = {t.get(), x.get()};
  Value out;
  ExpectStatus(tsb_tuple_new_typed(pair, items, 2, out.out()), TSB_ERR_TYPE, "field 'second'",
               "expected Tensor, got str \"x\"");
  ExpectStatus(tsb_tuple_new_typed(pair, items, 1, out.out()), TSB_ERR_TYPE, "",
               "expected 2 items for tsbridge.tensor_pair, got 1");
  ExpectStatus(tsb_tuple_new_typed(TSB_TYPE_INT, items, 2, out.out()), TSB_ERR_TYPE, "",
               "expected a Tuple or NamedTuple type, got int");
  EXPECT_EQ(out.get().type_index, TSB_TYPE_INVALID);
}

// Every field of a record in one call, as tsb_dict_get_items does for dicts.
TEST_F(TupleTest, AllItemsOfATupleInOneCall) {
  PairFields fields;
  auto& [t0, t1, h0, h1, items] = fields;
  Value named;
  TSB_ASSERT_OK(tsb_tuple_new_typed(TypeOf("tsbridge.tensor_pair"), items, 2, named.out()));
  Value out[2];
  tsb_any got[2];
  TSB_ASSERT_OK(tsb_list_get_items(&named.get(), 2, got));
  out[0] = Value(got[0]);
  out[1] = Value(got[1]);
  EXPECT_TRUE(FromBoundary(out[0].get()).toTensor().is_same(t0));
  EXPECT_TRUE(FromBoundary(out[1].get()).toTensor().is_same(t1));
  tsb_any too_many[3];
  Status s(tsb_list_get_items(&named.get(), 3, too_many));
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_OUT_OF_RANGE);
}

}  // namespace
}  // namespace tsb::testing
