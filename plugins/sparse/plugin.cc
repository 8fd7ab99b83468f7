// The tsbridge side of torchsparse: every operator is already callable by
// name through the dispatcher (tsb_op_call); these lines add the named
// records hosts see for the results, and offer the operators that return
// them as functions (tsb_function_call) whose results cross as the records.
#include <tsbridge/plugin/codecs/all.hpp>
#include <tsbridge/plugin/plugin.hpp>

#include "plugins/sparse/sparse.h"

TSB_PLUGIN("sparse", "0.1") {
  using namespace torchsparse;
  const tsb::Record pair = r.type<std::tuple<Tensor, Tensor>>("torchsparse.tensor_pair", {"first", "second"});
  const tsb::Record triple = r.type<Triple>("torchsparse.tensor_triple", {"first", "second", "third"});
  const tsb::Record spmm_result = r.type<std::tuple<Tensor, OptTensor>>("torchsparse.spmm_result", {"out", "arg_out"});
  // The operators of library.cc (TORCH_LIBRARY), each registered once: here
  // only the record its result crosses as.
  r.op("torchsparse::spmm", spmm_result);
  r.op("torchsparse::spspmm", triple);
  r.op("torchsparse::relabel", pair);
  r.op("torchsparse::sample_adj", triple);
  r.op("torchsparse::coalesce", triple);
  r.op("torchsparse::transpose", triple);
  r.op("torchsparse::csr_to_csc", triple);
  r.op("torchsparse::csc_to_csr", triple);
}
