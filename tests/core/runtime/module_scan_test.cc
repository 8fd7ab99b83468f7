// ScanModuleArchive's check of the debug ranges (.debug_pkl), shape by
// shape: each archive holds one debug record pickled by LibTorch's own
// pickler, as torch.jit.save writes it or with one thing wrong.
#include "core/runtime/module_scan.h"

#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include <caffe2/serialize/inline_container.h>
#include <gtest/gtest.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/csrc/jit/serialization/source_range_serialization.h>

#include "absl/strings/str_cat.h"

namespace tsb::runtime {
namespace {

using c10::IValue;
using c10::ivalue::Tuple;

// The status of scanning an archive whose only record is `debug_pkl`, named
// as the importer looks for it.
absl::Status Scan(const std::vector<char>& debug_pkl) {
  // One file per process: ctest runs these tests side by side.
  const std::string path =
      absl::StrCat(::testing::TempDir(), "/tsb_module_scan_test_", getpid(), ".pt");
  {
    caffe2::serialize::PyTorchStreamWriter writer(path);
    writer.writeRecord("code/__torch__/m.py.debug_pkl", debug_pkl.data(), debug_pkl.size());
    writer.writeEndOfFile();
  }
  absl::Status status = ScanModuleArchive(path.c_str());
  std::remove(path.c_str());
  return status;
}

absl::Status ScanValue(const IValue& value) { return Scan(torch::jit::pickle(value)); }

c10::List<int64_t> Ints(std::vector<int64_t> v) { return c10::List<int64_t>(std::move(v)); }

// ("FORMAT_WITH_STRING_TABLE", table, (record,)): the format of PyTorch 1.11+.
IValue WithTable(const IValue& record) {
  return Tuple::create({std::string(torch::jit::kFormatWithStringTable.data(),
                                    torch::jit::kFormatWithStringTable.size()),
                        Tuple::create({std::string(""), std::string("def f():\n"),
                                       std::string("m.py")}),
                        Tuple::create({record})});
}

// (offset, (source, start, end), tag) with a string-table source.
IValue Record(const IValue& source, int64_t start, int64_t end) {
  return Tuple::create({int64_t{0}, Tuple::create({source, start, end}), int64_t{0}});
}

IValue TableSource(std::vector<int64_t> text, int64_t filename) {
  return Tuple::create({Ints(std::move(text)), filename, int64_t{1}});
}

const char kWhere[] = "not a module torch.jit.save wrote: code/__torch__/m.py.debug_pkl: ";

TEST(ModuleScanTest, DebugRangesAsPyTorchWritesThemPass) {
  EXPECT_TRUE(ScanValue(WithTable(Record(TableSource({1}, 2), 0, 8))).ok());
  // The end may pass the text: LibTorch clamps it when it prints.
  EXPECT_TRUE(ScanValue(WithTable(Record(TableSource({1, 0}, 0), 4, 100))).ok());
  // Empty strings end a text after a newline, or make all of it; a last line
  // without a newline is fine when nothing follows it.
  EXPECT_TRUE(ScanValue(WithTable(Record(TableSource({1, 0, 0}, 2), 0, 8))).ok());
  EXPECT_TRUE(ScanValue(WithTable(Record(TableSource({0}, 2), 0, 0))).ok());
  EXPECT_TRUE(ScanValue(WithTable(Record(TableSource({2}, 2), 0, 4))).ok());
  // The older format: the records alone, each source (text, filename, line).
  IValue legacy_source = Tuple::create({std::string("def f():\n"), IValue(), int64_t{1}});
  EXPECT_TRUE(ScanValue(Tuple::create({Record(legacy_source, 0, 3)})).ok());
}

TEST(ModuleScanTest, EachMalformedShapeIsNamed) {
  const struct {
    IValue value;
    std::string message;
  } cases[] = {
      {int64_t{1}, "the value: expected a tuple of 1 or more items, found int"},
      {WithTable(Tuple::create({int64_t{0}})),
       "record 0 (offset, range, ...): expected a tuple of 2 or more items, found "
       "Tuple[int]"},
      {WithTable(Tuple::create({std::string("x"), Tuple::create({})})),
       "record 0 offset: expected an int, found str"},
      {WithTable(Record(TableSource({7}, 0), 0, 1)),
       "record 0 source text: expected an index into the string table of 3, found 7"},
      {WithTable(Record(TableSource({1}, -1), 0, 1)),
       "record 0 source filename: expected an index into the string table of 3, found -1"},
      {WithTable(Record(TableSource({2, 0}, 0), 0, 1)),
       "record 0 source text: expected a newline before the empty strings that end it, found "
       "piece 0 without one"},
      {WithTable(Record(TableSource({1, 0, 1}, 0), 0, 1)),
       "record 0 source text: expected empty strings only at its end, found an empty string "
       "(piece 1) before piece 2"},
      {WithTable(Record(TableSource({1}, 0), 5, 2)),
       "record 0 range: expected 0 <= start <= end, found start 5, end 2"},
      {WithTable(Record(Tuple::create({c10::impl::GenericList(c10::AnyType::get()), int64_t{0},
                                       int64_t{1}}),
                        0, 1)),
       "record 0 source text: expected a List[int], found List[Any]"},
      {WithTable(Tuple::create({int64_t{0}, Tuple::create({TableSource({1}, 0), int64_t{0},
                                                          int64_t{1}, int64_t{2}})})),
       "record 0 range: expected 3 items, found Tuple[Tuple[List[int], int, int], int, int, "
       "int]"},
      {Tuple::create({Record(Tuple::create({int64_t{3}, IValue(), int64_t{1}}), 0, 1)}),
       "record 0 source text: expected a str, found int"},
  };
  for (const auto& c : cases) {
    absl::Status s = ScanValue(c.value);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(s.message()), kWhere + c.message);
  }
}

// The fuzzer's record: a program ScanPickle lets through (no allocation, no
// underflow) that LibTorch's unpickler refuses, for want of a PROTO opcode.
TEST(ModuleScanTest, DebugRangesThatDoNotUnpickleAreRefused) {
  absl::Status s = Scan({'K', 1, '.'});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message().rfind(absl::StrCat(kWhere, "debug ranges do not unpickle: Expected PROTO"),
                              0),
            0u)
      << s.message();
  EXPECT_EQ(s.message().find('\n'), absl::string_view::npos) << s.message();
}

}  // namespace
}  // namespace tsb::runtime
