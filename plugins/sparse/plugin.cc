// The tsbridge side of torchsparse: every operator is already callable by
// name through the dispatcher (tsb_op_call); these lines add the named
// records hosts see for the results, and the functions that return them
// (with the operators' defaults, so both are called the same way).
#include <tsbridge/codecs/all.hpp>
#include <tsbridge/plugin.hpp>

#include "plugins/sparse/sparse.h"

TSB_PLUGIN("sparse", "0.1") {
  using namespace torchsparse;
  const tsb::Record pair = r.type<std::tuple<Tensor, Tensor>>("torchsparse.tensor_pair", {"first", "second"});
  const tsb::Record triple = r.type<Triple>("torchsparse.tensor_triple", {"first", "second", "third"});
  const tsb::Record spmm_result = r.type<std::tuple<Tensor, OptTensor>>("torchsparse.spmm_result", {"out", "arg_out"});
  r.function("torchsparse::spmm", &spmm, {"rowptr", "col", "value", "mat", tsb::arg("reduce") = "sum"}, spmm_result);
  r.function("torchsparse::spspmm", &spspmm, {"rowptr_a", "col_a", "value_a", "rowptr_b", "col_b", "value_b", "num_cols"}, triple);
  r.function("torchsparse::relabel", &relabel, {"col", "idx"}, pair);
  r.function("torchsparse::sample_adj", &sample_adj, {"rowptr", "col", "idx", "num_neighbors", tsb::arg("replace") = false, tsb::arg("seed") = std::nullopt}, triple);
  r.function("torchsparse::coalesce", &coalesce, {"row", "col", "value", "num_rows", "num_cols", tsb::arg("reduce") = "sum"}, triple);
  r.function("torchsparse::transpose", &transpose, {"row", "col", "value", "num_rows", "num_cols"}, triple);
  r.function("torchsparse::csr_to_csc", &csr_to_csc, {"rowptr", "col", "value", "num_cols"}, triple);
  r.function("torchsparse::csc_to_csr", &csc_to_csr, {"colptr", "row", "value", "num_rows"}, triple);
}
