// An out-of-tree plugin in the shape torchsparse needed: a named record
// type, a struct crossing as a NamedTuple, and functions, one line each.
#include <ATen/ATen.h>
#include <tsbridge/plugin/codecs/all.hpp>
#include <tsbridge/plugin/plugin.hpp>

namespace mysparse {

// Renumbers the values of `col` that appear in `idx` as 0, 1, 2, ... and
// returns (the renumbered col, a mask of the kept entries).
std::tuple<at::Tensor, at::Tensor> relabel(const at::Tensor& col, const at::Tensor& idx) {
  at::Tensor mapping = at::full({col.max().item<int64_t>() + 1}, -1, col.options());
  mapping.index_put_({idx}, at::arange(idx.numel(), col.options()));
  at::Tensor renumbered = mapping.index({col});
  at::Tensor kept = renumbered.ge(0);
  return {renumbered.masked_select(kept), kept};
}

struct Summary {
  int64_t nnz;
  double density;
  std::optional<at::Tensor> row_counts;
};

Summary summarize(const at::Tensor& row, int64_t num_rows, int64_t num_cols,
                  bool with_counts) {
  TORCH_CHECK(num_rows > 0 && num_cols > 0, "the matrix must not be empty");
  Summary s{row.numel(), static_cast<double>(row.numel()) / (num_rows * num_cols),
            std::nullopt};
  if (with_counts) s.row_counts = at::bincount(row, {}, num_rows);
  return s;
}

}  // namespace mysparse

BOOST_HANA_ADAPT_STRUCT(mysparse::Summary, nnz, density, row_counts);

TSB_PLUGIN("mysparse", "1.0") {
  const tsb::Record pair =
      r.type<std::tuple<at::Tensor, at::Tensor>>("mysparse.tensor_pair", {"first", "second"});
  r.type<mysparse::Summary>();  // NamedTuple "mysparse.Summary", before its use below
  r.function("mysparse::relabel", &mysparse::relabel, {"col", "idx"}, pair);
  r.function("mysparse::summarize", &mysparse::summarize,
             {"row", "num_rows", "num_cols", tsb::arg("with_counts") = false});
  // A lambda needs the unary + that turns it into a function pointer.
  r.function("mysparse::nnz", +[](const at::Tensor& row) { return row.numel(); }, {"row"});
}
