// The spmm kernel: CSR (rowptr, col, value?) times a dense matrix, reduced
// per row by sum, mean, max or min. Rows are independent, so they are split
// over at::parallel_for; each output row is written by one thread only.
#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>

#include "plugins/sparse/sparse.h"

namespace torchsparse {
namespace {

enum class Reduce { kSum, kMean, kMax, kMin };

// The row loops are built twice, for AVX2 and for the baseline x86-64, and
// the loader picks one for the CPU (an ifunc), as LibTorch's own kernels do.
// gcc only: clang (the sanitizer stage) has no target_clones on templates.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TSB_SPARSE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TSB_SPARSE_CLONES
#endif

Reduce ReduceOf(const std::string& reduce) {
  if (reduce == "mean") return Reduce::kMean;
  if (reduce == "max") return Reduce::kMax;
  if (reduce == "min") return Reduce::kMin;
  return Reduce::kSum;
}

// One output row of sum or mean: out[0, n) from the entries [begin, end).
// __restrict lets the compiler vectorise the j loops.
template <Reduce R, typename T>
TSB_SPARSE_CLONES void SumRow(int64_t begin, int64_t end, const int64_t* col,
                              const T* value, const T* mat, int64_t n, T* __restrict out) {
  for (int64_t j = 0; j < n; ++j) out[j] = T(0);
  for (int64_t e = begin; e < end; ++e) {
    const T w = value != nullptr ? value[e] : T(1);
    const T* __restrict x = mat + col[e] * n;
    for (int64_t j = 0; j < n; ++j) out[j] += w * x[j];
  }
  if (R == Reduce::kMean && end - begin > 1) {
    const T scale = T(1) / static_cast<T>(end - begin);
    for (int64_t j = 0; j < n; ++j) out[j] *= scale;
  }
}

// One output row of max or min, the chosen entries in arg. I is an index as
// wide as T where it fits (int32 for float): gcc vectorises the compare and
// the two selects only when the lanes have one width. Masks, not `?:`, for
// the same reason.
template <Reduce R, typename T, typename I>
TSB_SPARSE_CLONES void ArgRow(int64_t begin, int64_t end, const int64_t* col,
                              const T* value, const T* mat, int64_t n, T* __restrict out,
                              I* __restrict arg) {
  const T w0 = value != nullptr ? value[begin] : T(1);
  const T* __restrict x0 = mat + col[begin] * n;
  for (int64_t j = 0; j < n; ++j) {
    out[j] = w0 * x0[j];
    arg[j] = static_cast<I>(begin);
  }
  for (int64_t e = begin + 1; e < end; ++e) {
    const T w = value != nullptr ? value[e] : T(1);
    const T* __restrict x = mat + col[e] * n;
    const I entry = static_cast<I>(e);
    for (int64_t j = 0; j < n; ++j) {
      const T candidate = w * x[j];
      const T old = out[j];
      const bool better = R == Reduce::kMax ? candidate > old : candidate < old;
      out[j] = better ? candidate : old;
      const I mask = -static_cast<I>(better);
      arg[j] = (arg[j] & ~mask) | (entry & mask);
    }
  }
}

template <Reduce R, typename T, typename I>
void Rows(const Tensor& rowptr, const Tensor& col, const OptTensor& value, const Tensor& mat,
          Tensor& out, OptTensor& arg) {
  const int64_t rows = rowptr.numel() - 1;
  const int64_t n = mat.size(1);
  const int64_t nnz = col.numel();
  const int64_t* ptr = rowptr.data_ptr<int64_t>();
  const int64_t* c = col.data_ptr<int64_t>();
  const T* v = value.has_value() ? value->data_ptr<T>() : nullptr;
  const T* x = mat.data_ptr<T>();
  T* o = out.data_ptr<T>();
  int64_t* a = arg.has_value() ? arg->data_ptr<int64_t>() : nullptr;
  // About 32k multiply-adds per task: small matrices stay on one thread.
  const int64_t work_per_row = std::max<int64_t>(1, (nnz / std::max<int64_t>(rows, 1)) * n);
  const int64_t grain = std::max<int64_t>(1, 32768 / work_per_row);
  at::parallel_for(0, rows, grain, [&](int64_t first, int64_t last) {
    if constexpr (R == Reduce::kSum || R == Reduce::kMean) {
      for (int64_t i = first; i < last; ++i) {
        SumRow<R, T>(ptr[i], ptr[i + 1], c, v, x, n, o + i * n);
      }
    } else {
      std::vector<I> chosen(n);
      for (int64_t i = first; i < last; ++i) {
        int64_t* row_arg = a + i * n;
        if (ptr[i] == ptr[i + 1]) {  // an empty row: 0, and arg nnz as in torch_sparse
          std::fill(o + i * n, o + (i + 1) * n, T(0));
          std::fill(row_arg, row_arg + n, nnz);
          continue;
        }
        ArgRow<R, T, I>(ptr[i], ptr[i + 1], c, v, x, n, o + i * n, chosen.data());
        std::copy(chosen.begin(), chosen.end(), row_arg);
      }
    }
  });
}

template <Reduce R, typename T>
void Dispatch(const Tensor& rowptr, const Tensor& col, const OptTensor& value, const Tensor& mat,
              Tensor& out, OptTensor& arg) {
  using Narrow = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  if constexpr (R == Reduce::kSum || R == Reduce::kMean) {  // no index
    Rows<R, T, int64_t>(rowptr, col, value, mat, out, arg);
  } else if (col.numel() > std::numeric_limits<Narrow>::max()) {
    Rows<R, T, int64_t>(rowptr, col, value, mat, out, arg);
  } else {
    Rows<R, T, Narrow>(rowptr, col, value, mat, out, arg);
  }
}

}  // namespace

void CheckSpmm(const char* op, const Tensor& rowptr, const Tensor& col, const OptTensor& value,
               const Tensor& mat, const std::string& reduce) {
  CheckReduce(op, reduce);
  TORCH_CHECK(mat.defined() && mat.dim() == 2, "torchsparse::", op,
              "(): argument 'mat': expected a 2-D tensor, got ",
              mat.defined() ? std::to_string(mat.dim()) + "-D" : "an undefined tensor");
  TORCH_CHECK(at::isFloatingType(mat.scalar_type()) && mat.device().is_cpu(), "torchsparse::",
              op, "(): argument 'mat': expected a floating-point CPU tensor, got ",
              mat.scalar_type(), " on ", mat.device());
  CheckCsr(op, rowptr, col, value, mat.size(0));
  if (value.has_value()) {
    TORCH_CHECK(value->dim() == 1 && value->scalar_type() == mat.scalar_type(),
                "torchsparse::", op,
                "(): argument 'value': expected a 1-D tensor of mat's dtype (",
                mat.scalar_type(), "), got a ", value->dim(), "-D ", value->scalar_type(),
                " tensor");
  }
}

std::tuple<Tensor, OptTensor> spmm_kernel(const Tensor& rowptr, const Tensor& col,
                                          const OptTensor& value, const Tensor& mat_in,
                                          const std::string& reduce) {
  const Tensor mat = mat_in.contiguous();
  const Tensor ptr = rowptr.contiguous();
  const Tensor c = col.contiguous();
  const OptTensor v = value.has_value() ? OptTensor(value->contiguous()) : c10::nullopt;
  const Reduce r = ReduceOf(reduce);
  Tensor out = at::empty({ptr.numel() - 1, mat.size(1)}, mat.options());
  OptTensor arg;
  if (r == Reduce::kMax || r == Reduce::kMin) arg = at::empty(out.sizes(), c.options());
  AT_DISPATCH_FLOATING_TYPES(mat.scalar_type(), "torchsparse::spmm", [&] {
    switch (r) {
      case Reduce::kSum: Dispatch<Reduce::kSum, scalar_t>(ptr, c, v, mat, out, arg); break;
      case Reduce::kMean: Dispatch<Reduce::kMean, scalar_t>(ptr, c, v, mat, out, arg); break;
      case Reduce::kMax: Dispatch<Reduce::kMax, scalar_t>(ptr, c, v, mat, out, arg); break;
      case Reduce::kMin: Dispatch<Reduce::kMin, scalar_t>(ptr, c, v, mat, out, arg); break;
    }
  });
  return {out, arg};
}

}  // namespace torchsparse
