// Every input the fuzz targets (tests/fuzz/*_fuzzer.cc) crashed on, fed to
// the library the way the target fed it: each must now give a status.
#include <string>

#include <caffe2/serialize/inline_container.h>
#include <gtest/gtest.h>
#include <torch/version.h>

#include "core/binary/pickle_scan.h"
#include "tests/testing/abi_test.h"

namespace tsb::testing {
namespace {

// A torch.save archive whose data.pkl is `pickle`, as pickle_fuzzer.cc's 'P'
// inputs are.
std::string Archive(const std::string& pickle) {
  std::string out;
  caffe2::serialize::PyTorchStreamWriter writer([&](const void* buf, size_t n) -> size_t {
    out.append(static_cast<const char*>(buf), n);
    return n;
  });
  writer.writeRecord("data.pkl", pickle.data(), pickle.size());
  writer.writeEndOfFile();
  return out;
}

class FuzzRegressionTest : public AbiTest {
 protected:
  // The pickle loads to a status whose detail names `words`.
  void ExpectRejected(const std::string& pickle, const std::string& words) {
    const std::string bytes = Archive(pickle);
    tsb_any out{};
    Status s(tsb_pickle_read(bytes.data(), bytes.size(), &out));
    ASSERT_NE(s.get(), nullptr);
    EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tsb_status_get_message(s.get())).find(words), std::string::npos)
        << tsb_status_get_message(s.get());
  }
};

// pickle fuzzer, crash-5b3bb463: LONG_BINPUT 0x6f745374 made LibTorch's
// unpickler resize its memo table to 30 GB.
TEST_F(FuzzRegressionTest, PickleMemoIndexPastTheEnd) {
  ExpectRejected(std::string("\x80\x02J\xf9ShortStorag\xff\xff\xff.", 19),
                 "memo index past the end");
}

// The same unbounded size through a string length (BINUNICODE of 4 GB).
TEST_F(FuzzRegressionTest, PickleLengthPastTheEnd) {
  ExpectRejected(std::string("\x80\x02X\xff\xff\xff\xff" "ab.", 10), "length past the end");
}

// pickle fuzzer, crash-5c2914a0: TUPLE3 with one item on the stack made
// LibTorch's unpickler read before its stack (SEGV).
TEST_F(FuzzRegressionTest, PickleStackUnderflow) {
  ExpectRejected(std::string("\x80\x02]q\x00(K\x87\x87\x87\x87.", 12), "stack underflow");
  ExpectRejected(std::string("\x80\x02K\x01" "e.", 6), "no MARK before it");
}

// pickle fuzzer, crash-e9db9aba: DICT (and SETITEMS) over an odd number of
// items made LibTorch's unpickler copy a destroyed value from past its
// stack's end into the dict (a heap-use-after-free when tsbridge walked it).
TEST_F(FuzzRegressionTest, PickleKeyWithoutItsValue) {
  ExpectRejected(std::string("\x80\x02(K\x14]q\x01K\x42" "d.", 12), "a key without its value");
  ExpectRejected(std::string("\x80\x02}(K\x01K\x02K\x03u.", 12), "a key without its value");
}

// pickle fuzzer, crash-68fbfbf1: a torch.save archive whose directory points
// past its end. LibTorch's in-memory read adapters copy whatever range the
// zip reader asks for (a heap overflow under ASan); tsbridge's is bounded.
TEST_F(FuzzRegressionTest, ArchiveReadPastItsEnd) {
  static const char kArchive[] =
    "\x50\x4b\x03\x04\x00\x00\x08\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    "\x00\x00\x10\x00\x12\x00\x61\x72\x63\x68\x69\x76\x65\x2f\x64\x61\x74\x61\x2e\x70\x6b\x6c\x46\x42"
    "\x0e\x00\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x80\x02\x5d\x71\x00\x28\x47\x3f"
    "\xf0\x00\x00\x9c\x00\x00\x00\x47\x40\x00\x00\x00\x00\x00\x00\x00\x65\x2e\x50\x4b\x07\x08\xc5\x71"
    "\xb1\x41\x1a\x00\x00\x00\x1a\x00\x00\x00\x50\x4b\x03\x04\x00\x00\x08\x08\x00\x00\x00\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x0f\x00\x29\x00\x61\x72\x63\x68\x69\x76\x65\x2f"
    "\x76\x65\x72\x73\x69\x6f\x6e\x46\x42\x25\x00\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a"
    "\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a"
    "\x33\x0a\x50\x4b\x07\x08\xd1\x9e\x67\x55\x02\x00\x00\x00\x02\x00\x00\x00\x50\x4b\x01\x02\x00\x00"
    "\xff\x00\x08\x08\x00\x00\x00\x00\x00\x00\xc5\x71\xb1\x41\x1a\x00\x00\x00\x1a\x00\x00\x00\x10\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x61\x72\x63\x68\x69\x76\x65\x2f"
    "\x64\x61\x74\x61\x2e\x70\x6b\x6c\x50\x4b\x01\x02\x00\x00\x00\x00\x08\x08\x00\x00\x00\x00\x00\x00"
    "\xd1\x9e\x67\x55\x02\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x00\x02\x00"
    "\x00\x00\x0f\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x6a\x00\x00\x00\x61\x72\x63\x68"
    "\x69\x76\x65\x2f\x76\x65\x72\x73\x69\x6f\x6e\x50\x4b\x06\x06\x2c\x00\x00\x00\x00\x00\x00\x00\x1e"
    "\x03\x2d\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00"
    "\x00\x00\x00\x7b\x00\x00\x00\x00\x00\x00\x00\xd2\x00\x00\x00\x00\x00\x00\x21\x4e\x00\x00\x5a\x5a"
    "\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x80\x02\x00\x00\x50\x4b\x05\x06\x00\x00\x00\x00\x02\x00\x02\x00"
    "\x7b\x00\x00\x00\xd2\x00\x00\x00\x00\x00";
  tsb_any out{};
  Status s(tsb_pickle_read(kArchive, sizeof(kArchive) - 1, &out));
  ASSERT_NE(s.get(), nullptr);
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_INVALID_ARGUMENT);
}

// pickle fuzzer (scripts/fuzz_long.sh, 2026-11-26), crash-a41be35a: a list
// appended to itself, which LibTorch's unpickler builds; tsb_any_repr then
// recursed in LibTorch's printer until the stack overflowed. Python's pickle
// writes such lists itself (a = []; a.append(a)), and dicts and tuples
// through a list. Since the corpus leak check of 2026-11-26 (a cycle built,
// then a later opcode failed, and LibTorch dropped it with its stack: a
// leak), the scan refuses each before LibTorch's unpickler runs.
TEST_F(FuzzRegressionTest, PickleValueThatContainsItself) {
  const std::string cycle = "a container added into itself or into one it holds (a cycle)";
  ExpectRejected(std::string("\x80\x02]q\x01(]h\x01K\x01" "a]q\x02(K\x02K\x03" "ee.", 23),
                 cycle + " at byte 21");
  ExpectRejected(std::string("\x80\x02]q\x00h\x00" "a.", 9), cycle + " at byte 7");
  ExpectRejected(std::string("\x80\x02}q\x00X\x01\x00\x00\x00xq\x01]q\x02h\x00" "as.", 21),
                 cycle + " at byte 19");
  ExpectRejected(std::string("\x80\x02]q\x00h\x00\x85q\x01" "a.", 12), cycle + " at byte 10");
}

// pickle fuzzer's corpus leak check (scripts/fuzz_long.sh, 2026-11-26): a
// list appended into one it holds, then SETITEM on a list, which LibTorch's
// unpickler fails on after building the cycle (272 bytes leaked). Shortened
// from the fuzzer's 600 bytes to its shape.
TEST_F(FuzzRegressionTest, PickleCycleThenAFailureLeaksNothing) {
  ExpectRejected(std::string("\x80\x02]q\x00]q\x01h\x00" "a0h\x01" "aK\x01K\x02s.", 21),
                 "(a cycle) at byte 14");
  // A memo entry fetched before it was stored fails inside LibTorch too.
  ExpectRejected(std::string("\x80\x02h\x01.", 5), "a memo index never stored at byte 2");
}

// Nested deeper than any walk of tsbridge follows (JSON's limit): refused
// at the read, one level less reads.
TEST_F(FuzzRegressionTest, PickleNestedTooDeep) {
  auto nested = [](int depth) {
    return "\x80\x02" + std::string(depth, ']') + std::string(depth - 1, 'a') + ".";
  };
  ExpectRejected(nested(513), "nested at most 512 containers deep");
  const std::string bytes = Archive(nested(512));
  tsb_any out{};
  TSB_ASSERT_OK(tsb_pickle_read(bytes.data(), bytes.size(), &out));
  tsb_any_release(&out);
}

// pickle fuzzer (the sanitizer stage, seed 1, from one checkout path),
// crash-f51116a9: torch.save(torch.arange(3)) with its size byte changed to
// 9. LibTorch's unpickler gives the tensor the sizes the file wrote,
// unchecked against its 24-byte storage (Python's torch.load checks), and
// tsb_json_write read past it (a heap-buffer-overflow). LibTorch 2.14's
// unpickler checks it itself: the same refusal, in its words.
TEST_F(FuzzRegressionTest, PickleTensorPastItsStorage) {
  auto archive = [](char size) {
    const std::string pickle =
        std::string("\x80\x02" "ctorch._utils\n_rebuild_tensor_v2\n(("
                    "X\x07\0\0\0" "storage" "ctorch\nLongStorage\n"
                    "X\x01\0\0\0" "0" "X\x03\0\0\0" "cpu" "K\x03tQK\0K", 89) +
        size + "\x85K\x01\x85\x89" "ccollections\nOrderedDict\n)RtR.";
    const int64_t data[] = {0, 1, 2};
    std::string out;
    caffe2::serialize::PyTorchStreamWriter writer([&](const void* buf, size_t n) -> size_t {
      out.append(static_cast<const char*>(buf), n);
      return n;
    });
    writer.writeRecord("data.pkl", pickle.data(), pickle.size());
    writer.writeRecord("data/0", data, sizeof(data));
    writer.writeEndOfFile();
    return out;
  };
  tsb_any out{};
  const std::string good = archive(3);
  TSB_ASSERT_OK(tsb_pickle_read(good.data(), good.size(), &out));
  tsb_any_release(&out);
  const std::string bad = archive(9);
  Status s(tsb_pickle_read(bad.data(), bad.size(), &out));
  ASSERT_NE(s.get(), nullptr);
  EXPECT_EQ(tsb_status_get_code(s.get()), TSB_ERR_INVALID_ARGUMENT);
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 14)
  EXPECT_EQ(std::string(tsb_status_get_message(s.get())),
            "not a value torch.save wrote (zip format): Tensor: sizes 9, strides 1, storage "
            "offset 0 and itemsize 8 require a storage of at least 72 bytes, but storage only "
            "has 24 bytes");
#else
  EXPECT_EQ(std::string(tsb_status_get_message(s.get())),
            "not a value tsbridge can carry: expected a tensor whose elements lie inside its "
            "storage, found sizes [9], strides [1] and offset 0 that need 72 bytes of a "
            "24-byte storage (the value itself)");
#endif
}

TEST(PickleScanTest, AcceptsWhatPicklersWrite) {
  // [1, "ab"] as Python's protocol 2 writes it, memo entries 0 and 1.
  const std::string list("\x80\x02]q\x00(K\x01X\x02\x00\x00\x00" "abq\x01" "e.", 19);
  EXPECT_TRUE(binary::ScanPickle(list.data(), list.size()).ok());
  EXPECT_FALSE(binary::ScanPickle(list.data(), 7).ok());  // cut before BININT1's argument
  // {1: 2, "a": [3]}: SETITEMS over two pairs (the list's APPEND inside).
  const std::string dict(
      "\x80\x02}q\x00(K\x01K\x02X\x01\x00\x00\x00" "aq\x01]q\x02K\x03" "au.", 26);
  EXPECT_TRUE(binary::ScanPickle(dict.data(), dict.size()).ok());
  // a = [1]; [a, a, {"k": a}]: one list held three times (a memo GET each
  // time) is no cycle, in protocol 2 and in protocol 0's text PUT and GET.
  const std::string shared(
      "\x80\x02]q\x00(]q\x01K\x01" "ah\x01}q\x02X\x01\x00\x00\x00" "kq\x03h\x01" "se.", 30);
  EXPECT_TRUE(binary::ScanPickle(shared.data(), shared.size()).ok());
  const std::string text = "(lp0\n(lp1\nI1\naag1\na(dp2\nVk\np3\ng1\nsa.";
  EXPECT_TRUE(binary::ScanPickle(text.data(), text.size()).ok());
  const std::string itself = "(lp0\ng0\na.";  // a = []; a.append(a)
  EXPECT_EQ(binary::ScanPickle(itself.data(), itself.size()).message(),
            "not a pickle LibTorch can read: a container added into itself or into one it "
            "holds (a cycle) at byte 8");
}

}  // namespace
}  // namespace tsb::testing
