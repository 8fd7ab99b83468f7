#include "core/binary/zip_sizes.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include <caffe2/serialize/read_adapter_interface.h>

#include "absl/strings/str_cat.h"

namespace tsb::binary {
namespace {

// The zip format's little-endian fields and signatures (APPNOTE 4.3).
uint64_t Le(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | p[i];
  return v;
}
constexpr uint64_t kEnd = 0x06054b50, kEnd64Locator = 0x07064b50, kEnd64 = 0x06064b50,
                   kEntry = 0x02014b50;
constexpr size_t kEndSize = 22, kEntrySize = 46, kMaxComment = 65535;
constexpr uint64_t kDeflateRatio = 1032;

// n bytes at pos, or nothing past the end.
bool ReadAt(const caffe2::serialize::ReadAdapterInterface& in, uint64_t pos, size_t n,
            std::string& out) {
  const uint64_t total = in.size();
  if (pos > total || n > total - pos) return false;
  out.resize(n);
  return n == 0 || in.read(pos, out.data(), n, "reading the zip directory") == n;
}

const unsigned char* Bytes(const std::string& s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

}  // namespace

absl::Status CheckZipRecordSizes(const caffe2::serialize::ReadAdapterInterface& in) {
  const uint64_t total = in.size();
  // The end record: 22 bytes and a comment of up to 64 KiB, last.
  const size_t tail_size = static_cast<size_t>(std::min<uint64_t>(total, kEndSize + kMaxComment));
  std::string tail;
  if (tail_size < kEndSize || !ReadAt(in, total - tail_size, tail_size, tail)) {
    return absl::OkStatus();
  }
  const unsigned char* t = Bytes(tail);
  size_t end = tail_size - kEndSize;  // the last end signature
  while (Le(t + end, 4) != kEnd) {
    if (end == 0) return absl::OkStatus();
    --end;
  }
  uint64_t entries = Le(t + end + 10, 2), dir_size = Le(t + end + 12, 4),
           dir_offset = Le(t + end + 16, 4);
  if (entries == 0xFFFF || dir_size == 0xFFFFFFFF || dir_offset == 0xFFFFFFFF) {  // zip64
    std::string end64;
    if (end < 20 || Le(t + end - 20, 4) != kEnd64Locator ||
        !ReadAt(in, Le(t + end - 20 + 8, 8), 56, end64) || Le(Bytes(end64), 4) != kEnd64) {
      return absl::OkStatus();
    }
    entries = Le(Bytes(end64) + 32, 8);
    dir_size = Le(Bytes(end64) + 40, 8);
    dir_offset = Le(Bytes(end64) + 48, 8);
  }
  std::string dir;
  if (!ReadAt(in, dir_offset, static_cast<size_t>(std::min(dir_size, total)), dir)) {
    return absl::OkStatus();
  }
  const unsigned char* d = Bytes(dir);
  size_t at = 0;  // the entry's offset in the directory
  for (uint64_t k = 0; k < entries && dir.size() - at >= kEntrySize; ++k) {
    const unsigned char* e = d + at;
    if (Le(e, 4) != kEntry) return absl::OkStatus();
    const uint64_t method = Le(e + 10, 2);
    uint64_t compressed = Le(e + 20, 4), size = Le(e + 24, 4);
    const size_t name = Le(e + 28, 2), extra = Le(e + 30, 2), comment = Le(e + 32, 2);
    if (dir.size() - at - kEntrySize < name + extra + comment) return absl::OkStatus();
    // zip64's sizes (extra field 1): the uncompressed, then the compressed
    // size, each there only where its 32-bit field is all ones.
    const unsigned char* x = e + kEntrySize + name;
    for (size_t i = 0; extra - i >= 4;) {
      const size_t id = Le(x + i, 2), n = std::min<size_t>(Le(x + i + 2, 2), extra - i - 4);
      if (id == 1) {
        size_t f = i + 4;
        if (size == 0xFFFFFFFF && n >= 8) {
          size = Le(x + f, 8);
          f += 8;
        }
        if (compressed == 0xFFFFFFFF && i + 4 + n - f >= 8) compressed = Le(x + f, 8);
        break;
      }
      i += 4 + n;
    }
    const uint64_t most = method == 0 ? total : std::min(compressed, total) * kDeflateRatio;
    if (size > most) {
      return absl::InvalidArgumentError(absl::StrCat(
          "record \"", std::string(reinterpret_cast<const char*>(e + kEntrySize), name),
          "\" claims ", size, " bytes, more than an archive of ", total, " bytes holds"));
    }
    at += kEntrySize + name + extra + comment;
  }
  return absl::OkStatus();
}

}  // namespace tsb::binary
