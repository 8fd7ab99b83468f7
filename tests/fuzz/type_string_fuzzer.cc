// libFuzzer: TorchScript type strings to interned types. Any input must give
// an index or a status, never a crash, a leak or a hang.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tsbridge/tsbridge.h"
#include "no_backtraces.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tsb::fuzz::DropLibTorchBacktraces();
  std::string text(reinterpret_cast<const char*>(data), size);
  int32_t index = TSB_TYPE_INVALID;
  tsb_status* status = tsb_type_parse(text.c_str(), &index);
  if (status == nullptr) {
    tsb_type_info info{};
    info.struct_size = sizeof(info);
    tsb_status_free(tsb_type_get_info(index, &info));
  }
  tsb_status_free(status);
  return 0;
}
