// The binary form against PyTorch itself: tsbridge saves, torch.load reads
// and checks (pickle_peer.py check); torch.save writes, tsbridge loads and
// checks here.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include <ATen/ATen.h>

#include "tests/testing/build_paths.h"
#include "tests/core/text/python_peer.h"
#include "tests/core/text/text_testing.h"

namespace tsb::testing {
namespace {

class PickleTest : public JsonTest {
 protected:
  // Saves `value` with tsb_pickle_write and has PyTorch check it as `name`.
  void SaveAndCheckInPython(const tsb_any& value, const std::string& name) {
    TSB_REQUIRE_PYTORCH();
    char* data = nullptr;
    size_t size = 0;
    TSB_ASSERT_OK(tsb_pickle_write(&value, &data, &size));
    const std::string path = WorkDir("cpp_to_python_" + name) + "/value.pt";
    WriteFile(path, data, size);
    tsb_string_free(data);
    PythonRun run =
        RunPython(Script("binary/pickle_peer.py") + " check " + Quoted(path) + " " + name);
    EXPECT_EQ(run.exit_code, 0) << run.output;
  }

  // PyTorch saves its value for `name`; tsbridge loads it.
  tsb_any LoadFromPython(const std::string& name) {
    PythonRun probe = RunPython("-c 'import torch'");
    EXPECT_EQ(probe.exit_code, 0) << BuildPath("TSB_PYTHON") << " cannot import torch:\n"
                                  << probe.output;
    const std::string path = WorkDir("python_to_cpp_" + name) + "/value.pt";
    PythonRun run = RunPython(Script("binary/pickle_peer.py") + " save " + Quoted(path) + " " + name);
    EXPECT_EQ(run.exit_code, 0) << run.output;
    const std::string bytes = ReadFile(path);
    tsb_any out{};
    Status s(tsb_pickle_read(bytes.data(), bytes.size(), &out));
    EXPECT_EQ(s.get(), nullptr) << tsb_status_get_message(s.get());
    return out;
  }
};

TEST_F(PickleTest, CppToPythonNestedDictOfTensorLists) {
  c10::Dict<std::string, c10::List<at::Tensor>> dict;
  dict.insert("a", c10::List<at::Tensor>({at::arange(6, at::kFloat).reshape({2, 3}),
                                          at::ones({2}, at::kLong)}));
  dict.insert("b", c10::List<at::Tensor>());
  Value v(Boundary(dict));
  SaveAndCheckInPython(v.get(), "nested");
}

TEST_F(PickleTest, CppToPythonTuplesNoneFloatsStrings) {
  c10::Dict<std::string, double> k;
  k.insert("k", 1.5);
  c10::IValue value = c10::ivalue::Tuple::create(
      {c10::IValue(), 0.5, std::string("h\xc3\xa9llo"),
       c10::ivalue::Tuple::create({int64_t{1}, c10::List<int64_t>({2, 3})}), k, true,
       c10::complex<double>(1, -2)});
  Value v(Boundary(value));
  SaveAndCheckInPython(v.get(), "mixed");
}

TEST_F(PickleTest, CppToPythonIntKeysSpecialFloatsDevice) {
  c10::Dict<int64_t, std::string> dict;
  dict.insert(2, "b");
  dict.insert(1, "a");
  Value keys(Boundary(dict));
  SaveAndCheckInPython(keys.get(), "int_keys");
  const double inf = std::numeric_limits<double>::infinity();
  Value floats(Boundary(c10::List<double>({std::nan(""), inf, -inf, -0.0})));
  SaveAndCheckInPython(floats.get(), "specials");
  SaveAndCheckInPython(tsb_any_device(0, -1), "device");
}

TEST_F(PickleTest, CppToPythonNamedTupleArrivesAsAPlainTuple) {
  Value pair(FromJson(R"([{"dtype":"float32","shape":[1],"data":[0.0]},)"
                      R"({"dtype":"float32","shape":[1],"data":[1.0]}])",
                      "tsbridge.tensor_pair"));
  SaveAndCheckInPython(pair.get(), "namedtuple");
}

TEST_F(PickleTest, PythonToCppNested) {
  Value v(LoadFromPython("nested"));
  ASSERT_NE(v.get().type_index, TSB_TYPE_INVALID);
  c10::IValue iv = FromBoundary(v.get());
  ASSERT_TRUE(iv.isGenericDict());
  c10::impl::GenericDict dict = iv.toGenericDict();
  ASSERT_EQ(dict.size(), 3u);
  c10::List<c10::IValue> a = dict.at("a").toList();
  ASSERT_EQ(a.size(), 2u);
  EXPECT_TRUE(at::equal(a.get(0).toTensor(), at::arange(4, at::kInt)));
  EXPECT_TRUE(at::equal(a.get(1).toTensor(), at::full({2, 2}, 0.5)));
  const auto& b = dict.at("b").toTupleRef().elements();
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].toInt(), 1);
  EXPECT_TRUE(b[1].isNone());
  EXPECT_EQ(b[2].toStringRef(), "s");
  EXPECT_EQ(dict.at("c").toDouble(), 2.5);
  // The same through the JSON form, in PyTorch's dict order.
  EXPECT_EQ(ToJson(v.get()),
            R"({"a":[{"dtype":"int32","shape":[4],"data":[0,1,2,3]},)"
            R"({"dtype":"float32","shape":[2,2],"data":[0.5,0.5,0.5,0.5]}],)"
            R"("b":[1,null,"s"],"c":2.5})");
}

TEST_F(PickleTest, PythonToCppIntKeysAndViews) {
  Value keys(LoadFromPython("int_keys"));
  EXPECT_EQ(ToJson(keys.get()), R"([[1,"x"],[-5,"y"]])");
  Value views(LoadFromPython("views"));
  c10::IValue iv = FromBoundary(views.get());
  ASSERT_TRUE(iv.isTuple());
  const auto& t = iv.toTupleRef().elements();
  at::Tensor base = t[0].toTensor();
  EXPECT_TRUE(at::equal(base, at::arange(6.0).reshape({2, 3})));
  // Views keep their values (row 1, the transpose); LibTorch 1.13's
  // pickle_load gives each its own storage (docs/json.md).
  EXPECT_TRUE(at::equal(t[1].toTensor(), base[1]));
  EXPECT_TRUE(at::equal(t[2].toTensor(), base.t()));
}

TEST_F(PickleTest, RoundTripInCpp) {
  Value v(FromJson(R"([{"xs":[[1,null],[2,"b"]]},[{"dtype":"bool","shape":[2],"data":[true,false]}]])",
                   "Tuple[Dict[str, List[Tuple[int, Optional[str]]]], List[Tensor]]"));
  char* data = nullptr;
  size_t size = 0;
  TSB_ASSERT_OK(tsb_pickle_write(&v.get(), &data, &size));
  Value back;
  Status s(tsb_pickle_read(data, size, back.out()));
  tsb_string_free(data);
  ASSERT_EQ(s.get(), nullptr) << tsb_status_get_message(s.get());
  EXPECT_EQ(ToJson(back.get()), ToJson(v.get()));
}

TEST_F(PickleTest, BadBytesAreAnErrorNotACrash) {
  tsb_any out{};
  const std::string garbage = "definitely not a zip archive";
  Status s(tsb_pickle_read(garbage.data(), garbage.size(), &out));
  ASSERT_NE(s.get(), nullptr);
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(tsb_status_get_detail(s.get())).rfind("not a value torch.save wrote", 0),
            0u)
      << tsb_status_get_message(s.get());
  EXPECT_EQ(out.type_index, TSB_TYPE_INVALID);
  Status empty(tsb_pickle_read("", 0, &out));
  EXPECT_EQ(tsb_status_get_code(empty.get()), TSB_ERR_INVALID_ARGUMENT);
  Status null_data(tsb_pickle_read(nullptr, 4, &out));
  EXPECT_EQ(tsb_status_get_code(null_data.get()), TSB_ERR_INVALID_ARGUMENT);
  tsb_any one = tsb_any_int(1);
  size_t size = 0;
  Status null_out(tsb_pickle_write(&one, nullptr, &size));
  EXPECT_EQ(tsb_status_get_code(null_out.get()), TSB_ERR_INVALID_ARGUMENT);
}

// A record whose directory entry claims 4 GB in an archive of a few
// hundred bytes is refused before LibTorch's reader allocates the claim
// (fuzz_module_load found a module file that made it allocate 3 GB), by
// tsb_pickle_read and by the module loader alike.
TEST_F(PickleTest, ARecordClaimingMoreThanItsArchiveIsRefused) {
  tsb_any seven = tsb_any_int(7);
  char* data = nullptr;
  size_t size = 0;
  TSB_ASSERT_OK(tsb_pickle_write(&seven, &data, &size));
  std::string archive(data, size);
  tsb_string_free(data);
  const std::string entry("PK\x01\x02", 4);  // a central directory entry
  bool claimed = false;
  for (size_t at = archive.find(entry); at != std::string::npos && !claimed;
       at = archive.find(entry, at + 1)) {
    const size_t name = static_cast<unsigned char>(archive[at + 28]) |
                        static_cast<unsigned char>(archive[at + 29]) << 8;
    const std::string record = archive.substr(at + 46, name);
    if (record.size() >= 8 && record.compare(record.size() - 8, 8, "data.pkl") == 0) {
      // Marked deflated (a stored record's sizes must agree, which miniz
      // checks itself) and claiming 0xF0000000 bytes uncompressed.
      archive.replace(at + 10, 2, std::string("\x08\x00", 2));
      archive.replace(at + 24, 4, std::string("\x00\x00\x00\xf0", 4));
      claimed = true;
    }
  }
  ASSERT_TRUE(claimed) << "no data.pkl entry in the archive tsb_pickle_write wrote";
  tsb_any out{};
  Status s(tsb_pickle_read(archive.data(), archive.size(), &out));
  ASSERT_NE(s.get(), nullptr);
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tsb_status_get_message(s.get())).find("data.pkl\" claims 4026531840 bytes"),
            std::string::npos)
      << tsb_status_get_message(s.get());
  const std::string dir = BuildPath("TSB_TEXT_WORK_DIR");
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/claims_4gb.pt";
  std::ofstream(path, std::ios::binary) << archive;
  tsb_module* module = nullptr;
  Status load(tsb_module_load(path.c_str(), &module));
  ASSERT_NE(load.get(), nullptr);
  EXPECT_EQ(tsb_status_get_code(load.get()), TSB_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tsb_status_get_message(load.get())).find("claims 4026531840 bytes"),
            std::string::npos)
      << tsb_status_get_message(load.get());
}

}  // namespace
}  // namespace tsb::testing
