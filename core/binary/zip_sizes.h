// The record sizes a zip archive's central directory claims, held to the
// archive's own size before LibTorch's reader reads a record.
// PyTorchStreamReader::getRecord allocates the size the directory claims
// before it reads (and LibTorch 1.13 has no getRecordSize to ask first), so
// a few changed bytes of an 8 KB module file made it allocate 3 GB (found
// by fuzz_module_load): miniz holds a stored record's sizes to the archive,
// not a deflated one's. torch.jit.save and torch.save store records
// uncompressed; a record larger than the archive, or a deflated one past
// deflate's own limit (1032 bytes out per byte in), is refused.
#ifndef TSBRIDGE_CORE_BINARY_ZIP_SIZES_H_
#define TSBRIDGE_CORE_BINARY_ZIP_SIZES_H_

#include "absl/status/status.h"

namespace caffe2::serialize {
class ReadAdapterInterface;
}  // namespace caffe2::serialize

namespace tsb::binary {

// OK, or INVALID_ARGUMENT naming the first record that claims more than the
// archive can hold. A directory this reader cannot follow is OK: LibTorch's
// reader, which read it already, says what is wrong with it, if anything.
absl::Status CheckZipRecordSizes(const caffe2::serialize::ReadAdapterInterface& in);

}  // namespace tsb::binary

#endif  // TSBRIDGE_CORE_BINARY_ZIP_SIZES_H_
