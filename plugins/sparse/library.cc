// The torchsparse operator library: the class, then one line per operator.
// m.def(schema, fn) registers fn as the CompositeImplicitAutograd kernel:
// one kernel serves CPU and Autograd (autograd.cc holds the custom
// Functions), and the tracer records each call as one torchsparse:: node.
#include <torch/library.h>

#include "plugins/sparse/sparse.h"
#include "plugins/sparse/storage.h"

namespace torchsparse {
namespace {

SparseStorage::Ptr storage_from_coo(const Tensor& row, const Tensor& col,
                                    const OptTensor& value, c10::IntArrayRef sizes) {
  return SparseStorage::FromCoo(row, col, value, sizes.vec());
}
SparseStorage::Ptr storage_from_csr(const Tensor& rowptr, const Tensor& col,
                                    const OptTensor& value, c10::IntArrayRef sizes) {
  return SparseStorage::FromCsr(rowptr, col, value, sizes.vec());
}

}  // namespace
}  // namespace torchsparse

TORCH_LIBRARY(torchsparse, m) {
  using namespace torchsparse;
  RegisterStorage(m);  // before the schemas that name it
  m.def("storage_from_coo(Tensor row, Tensor col, Tensor? value, int[] sparse_sizes) -> __torch__.torch.classes.torchsparse.SparseStorage", &storage_from_coo);
  m.def("storage_from_csr(Tensor rowptr, Tensor col, Tensor? value, int[] sparse_sizes) -> __torch__.torch.classes.torchsparse.SparseStorage", &storage_from_csr);
  m.def("coalesce(Tensor row, Tensor col, Tensor? value, int num_rows, int num_cols, str reduce=\"sum\") -> (Tensor row, Tensor col, Tensor? value)", &coalesce);
  m.def("coo_to_csr(Tensor row, int num_rows) -> Tensor", &coo_to_csr);
  m.def("csr_to_coo(Tensor rowptr) -> Tensor", &csr_to_coo);
  m.def("csr2csc(Tensor rowptr, Tensor col, int num_cols) -> Tensor", &csr2csc);
  m.def("csr_to_csc(Tensor rowptr, Tensor col, Tensor? value, int num_cols) -> (Tensor colptr, Tensor row, Tensor? value)", &csr_to_csc);
  m.def("csc_to_csr(Tensor colptr, Tensor row, Tensor? value, int num_rows) -> (Tensor rowptr, Tensor col, Tensor? value)", &csc_to_csr);
  m.def("to_dense(Tensor row, Tensor col, Tensor? value, int num_rows, int num_cols) -> Tensor", &to_dense);
  m.def("transpose(Tensor row, Tensor col, Tensor? value, int num_rows, int num_cols) -> (Tensor row, Tensor col, Tensor? value)", &transpose);
  m.def("spmm(Tensor rowptr, Tensor col, Tensor? value, Tensor mat, str reduce=\"sum\") -> (Tensor out, Tensor? arg_out)", &spmm);
  m.def("spspmm(Tensor rowptr_a, Tensor col_a, Tensor? value_a, Tensor rowptr_b, Tensor col_b, Tensor? value_b, int num_cols) -> (Tensor rowptr, Tensor col, Tensor value)", &spspmm);
  m.def("relabel(Tensor col, Tensor idx) -> (Tensor col, Tensor n_id)", &relabel);
  m.def("sample_adj(Tensor rowptr, Tensor col, Tensor idx, int num_neighbors, bool replace=False, int? seed=None) -> (Tensor rowptr, Tensor col, Tensor e_id)", &sample_adj);
}
