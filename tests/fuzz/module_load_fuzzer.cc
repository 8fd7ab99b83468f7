// libFuzzer: a module file to tsb_module_load, then its methods' schemas
// read the way a host reads them. The first byte picks the layer: 'R' is a
// list of records, each "<u8 name length><name><u32 LE length><data>",
// written into a fresh archive by LibTorch's own zip writer (so mutations
// reach the TorchScript importer and unpickler, past the zip CRCs); the
// seeds are the records of modules PyTorch saved (make_seeds.py). Anything
// else is the archive itself. Whatever the input: a module or a status, no
// crash, no handle left alive.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#include <caffe2/serialize/inline_container.h>

#include "tsbridge/tsbridge.h"
#include "tsbridge/host/tsbridge.hpp"
#include "no_backtraces.h"

namespace {

std::string WriteRecords(const uint8_t* data, size_t size);

// The archive, or "" when LibTorch's writer refuses the records (it throws
// for some names, e.g. ones its zip writer cannot store): an input the
// harness skips, not a finding.
std::string FromRecords(const uint8_t* data, size_t size) {
  try {
    return WriteRecords(data, size);
  } catch (const c10::Error&) {
    return "";
  }
}

std::string WriteRecords(const uint8_t* data, size_t size) {
  std::string out;
  caffe2::serialize::PyTorchStreamWriter writer([&](const void* buf, size_t n) -> size_t {
    out.append(static_cast<const char*>(buf), n);
    return n;
  });
  std::set<std::string> written;  // the writer takes each name once
  size_t at = 0;
  while (at < size) {
    const size_t name_len = data[at++];
    if (name_len == 0 || at + name_len + 4 > size) break;
    const std::string name(reinterpret_cast<const char*>(data + at), name_len);
    at += name_len;
    uint32_t len = 0;
    for (int i = 0; i < 4; ++i) len |= static_cast<uint32_t>(data[at++]) << (8 * i);
    if (len > size - at) len = static_cast<uint32_t>(size - at);
    if (name.find('\0') == std::string::npos && written.insert(name).second) {
      writer.writeRecord(name, data + at, len);
    }
    at += len;
  }
  writer.writeEndOfFile();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  tsb::fuzz::DropLibTorchBacktraces();
  // In memory when the machine has /dev/shm: a disk file cost a tenth of the time.
  static const std::string path =
      std::string(access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + "/tsb_fuzz_module_" +
      std::to_string(getpid()) + ".pt";
  const std::string bytes = data[0] == 'R'
                                ? FromRecords(data + 1, size - 1)
                                : std::string(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (bytes.empty() && data[0] == 'R') return 0;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  const size_t live_before = ::tsb::LiveHandles();
  tsb_module* module = nullptr;
  if (tsb_status* s = tsb_module_load(path.c_str(), &module)) {
    tsb_status_free(s);
  } else {
    size_t n = 0;
    if (tsb_status* s = tsb_module_count_methods(module, &n)) std::abort();
    for (size_t i = 0; i < n; ++i) {
      tsb_schema_info info{};
      info.struct_size = sizeof info;
      if (tsb_status* s = tsb_module_get_method(module, i, &info)) tsb_status_free(s);
    }
    tsb_module_free(module);
  }
  if (::tsb::LiveHandles() != live_before) std::abort();  // a leak is a finding
  return 0;
}
