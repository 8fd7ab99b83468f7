// Tensors. A tsb_tensor is an external pointer to a tsbridge handle: going
// in and out of calls costs a retain, no DLPack. DLPack is used where R
// memory meets a tensor: tsb_tensor(x) wraps an R vector, matrix or array
// without copying (R's column-major order as strides; the R object is kept
// alive until the tensor's deleter runs), and as.array() copies a tensor
// into R memory once, walking its strides.
#include <Rversion.h>  // R_VERSION: HandleBinding
#include <dlpack/dlpack.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "host.h"

namespace tsbr {
namespace {

// ------------------------------------------------------------ handles

void FinalizeHandle(SEXP xptr) {
  auto* h = static_cast<Handle*>(R_ExternalPtrAddr(xptr));
  if (h == nullptr) return;
  R_ClearExternalPtr(xptr);
  delete h;
}

// ------------------------------------------------------ R memory, shared

// What a DLManagedTensor made from an R vector owns.
struct RBuffer {
  DLManagedTensor managed;
  SEXP object;  // R_PreserveObject'd
  std::vector<int64_t> shape, strides;
};

std::thread::id g_r_thread;
std::mutex g_pending_mutex;
std::vector<SEXP> g_pending;  // released by the R thread (DrainDeleters)
// Whether g_pending may hold something: every entry point drains, and the
// mutex cost more than the rest of a no-op call's C++ (set under the mutex).
std::atomic<bool> g_has_pending{false};
std::atomic<int64_t> g_deleter_calls{0};
std::atomic<int64_t> g_live_buffers{0};

void DeleteRBuffer(DLManagedTensor* managed) {
  auto* buffer = static_cast<RBuffer*>(managed->manager_ctx);
  g_deleter_calls.fetch_add(1);
  g_live_buffers.fetch_sub(1);
  if (std::this_thread::get_id() == g_r_thread) {
    R_ReleaseObject(buffer->object);  // never fails
  } else {  // a LibTorch thread: R is not thread-safe; the R thread releases it
    std::lock_guard<std::mutex> lock(g_pending_mutex);
    g_pending.push_back(buffer->object);
    g_has_pending.store(true, std::memory_order_release);
  }
  delete buffer;
}

DLDataType DataTypeOf(SEXP x) {
  switch (TYPEOF(x)) {
    case REALSXP:
      if (Inherits(x, "integer64")) return {kDLInt, 64, 1};
      return {kDLFloat, 64, 1};
    case INTSXP: return {kDLInt, 32, 1};
    case LGLSXP: return {kDLInt, 32, 1};  // viewed as int32, then made bool
    case CPLXSXP: return {kDLComplex, 128, 1};
    case RAWSXP: return {kDLUInt, 8, 1};
    default:
      Fail(TSB_ERR_TYPE, "expected a numeric, integer, logical, complex or raw vector for a "
                         "tensor, got " + Describe(x));
  }
}

void CheckNoNA(SEXP x) {
  const R_xlen_t n = Rf_xlength(x);
  if (TYPEOF(x) == INTSXP || TYPEOF(x) == LGLSXP) {
    const int* p = TYPEOF(x) == INTSXP ? INTEGER(x) : LOGICAL(x);
    for (R_xlen_t i = 0; i < n; ++i) {
      if (p[i] == NA_INTEGER) {
        throw HostError{TSB_ERR_TYPE, tsb::kit::IndexSegment(static_cast<size_t>(i)),
                        "an integer or logical tensor has no NA (NA_integer_ is -2^31 in "
                        "memory); replace NAs first", ""};
      }
    }
  }
}

void Call(const char* op, const tsb_any* args, size_t n, tsb_any* out) {
  tsb_call_args a = tsb_call_args_make(args, n);
  CheckStatus(tsb_op_call(op, &a, out));
}

constexpr int32_t kBool = TSB_DTYPE_BOOL;

// DLPack of a tensor R can read: bool as uint8, float16/bfloat16 as
// float32 (R has neither), all through ATen on our side.
struct Exported {
  DLManagedTensor* managed = nullptr;
  int32_t dtype = -1;  // the tensor's own tsb_dtype_code
  ~Exported() {
    if (managed != nullptr && managed->deleter != nullptr) managed->deleter(managed);
  }
};

int32_t CodeOf(DLDataType t) {
  if (t.lanes != 1) return -1;
  switch (t.code) {
    case kDLFloat:
      return t.bits == 16 ? TSB_DTYPE_FLOAT16 : t.bits == 32 ? TSB_DTYPE_FLOAT32
                                                             : t.bits == 64 ? TSB_DTYPE_FLOAT64 : -1;
    case kDLBfloat: return t.bits == 16 ? TSB_DTYPE_BFLOAT16 : -1;
    case kDLInt:
      return t.bits == 8 ? TSB_DTYPE_INT8 : t.bits == 16 ? TSB_DTYPE_INT16
                                                         : t.bits == 32 ? TSB_DTYPE_INT32
                                                                        : t.bits == 64 ? TSB_DTYPE_INT64 : -1;
    case kDLUInt: return t.bits == 8 ? TSB_DTYPE_UINT8 : -1;
    case kDLComplex: return t.bits == 64 ? TSB_DTYPE_COMPLEX64 : t.bits == 128 ? TSB_DTYPE_COMPLEX128 : -1;
    // kDLBool (DLPack 0.8; the name is not in 0.6's header), which
    // tsbridge writes on both releases: one byte a value.
    case 6: return t.bits == 8 ? TSB_DTYPE_BOOL : -1;
    default: return -1;
  }
}

void Export(const tsb_any& t, bool readable, Exported* out) {
  CheckStatus(tsb_tensor_to_dlpack(&t, &out->managed));
  out->dtype = CodeOf(out->managed->dl_tensor.dtype);
  if (readable && (out->dtype == TSB_DTYPE_FLOAT16 || out->dtype == TSB_DTYPE_BFLOAT16)) {
    tsb::Value wide;
    tsb_any args[2] = {t, tsb_any_dtype(TSB_DTYPE_FLOAT32)};
    Call("aten::to", args, 2, wide.out());
    out->managed->deleter(out->managed);
    out->managed = nullptr;
    CheckStatus(tsb_tensor_to_dlpack(&wide.get(), &out->managed));
  }
}

// Copies a strided tensor into R's column-major order: R element k (with
// k = i0 + d0*(i1 + d1*(i2 ...))) is the tensor element (i0, i1, ...).
template <typename Src, typename Dst, typename Convert>
void CopyStrided(const DLTensor& t, Dst* dst, Convert convert) {
  const int nd = t.ndim;
  int64_t total = 1;
  for (int d = 0; d < nd; ++d) total *= t.shape[d];
  std::vector<int64_t> strides(nd), index(nd, 0);
  int64_t stride = 1;
  for (int d = nd - 1; d >= 0; --d) {  // NULL strides: C-contiguous
    strides[d] = t.strides != nullptr ? t.strides[d] : stride;
    stride *= t.shape[d];
  }
  const Src* base = reinterpret_cast<const Src*>(static_cast<const char*>(t.data) + t.byte_offset);
  int64_t offset = 0;
  for (int64_t k = 0; k < total; ++k) {
    dst[k] = convert(base[offset]);
    for (int d = 0; d < nd; ++d) {  // first dimension fastest, as R
      if (++index[d] < t.shape[d]) {
        offset += strides[d];
        break;
      }
      offset -= strides[d] * (t.shape[d] - 1);
      index[d] = 0;
    }
  }
}

// A new R vector of type R (unprotected) holding the tensor's items, each
// read as Src: doubles and integers by value, logicals as 0/1, complex
// numbers by their parts.
template <typename Src, SEXPTYPE R>
SEXP ReadInto(const DLTensor& d, R_xlen_t n) {
  SEXP out = PROTECT(cpp11::safe[Rf_allocVector](R, n));
  if constexpr (R == REALSXP) {
    CopyStrided<Src>(d, REAL(out), [](Src v) { return static_cast<double>(v); });
  } else if constexpr (R == INTSXP) {
    CopyStrided<Src>(d, INTEGER(out), [](Src v) { return static_cast<int>(v); });
  } else if constexpr (R == LGLSXP) {
    CopyStrided<Src>(d, LOGICAL(out), [](Src v) { return v != 0 ? 1 : 0; });
  } else {
    CopyStrided<Src>(d, COMPLEX(out), [](Src v) {
      Rcomplex c;
      c.r = v.r;
      c.i = v.i;
      return c;
    });
  }
  UNPROTECT(1);
  return out;
}

struct Complex64 {
  float r, i;
};

// The R vector each DLPack dtype is read into (int64: exact up to 2^53).
struct ArrayReader {
  uint8_t code, bits;
  SEXP (*read)(const DLTensor&, R_xlen_t);
};
constexpr ArrayReader kArrayReaders[] = {
    {kDLFloat, 64, ReadInto<double, REALSXP>},    {kDLFloat, 32, ReadInto<float, REALSXP>},
    {kDLInt, 64, ReadInto<int64_t, REALSXP>},     {kDLInt, 32, ReadInto<int32_t, INTSXP>},
    {kDLInt, 16, ReadInto<int16_t, INTSXP>},      {kDLInt, 8, ReadInto<int8_t, INTSXP>},
    {kDLUInt, 8, ReadInto<uint8_t, INTSXP>},      {kDLComplex, 128, ReadInto<Rcomplex, CPLXSXP>},
    {kDLComplex, 64, ReadInto<Complex64, CPLXSXP>},
};

}  // namespace

void InitTensors() { g_r_thread = std::this_thread::get_id(); }

void DrainDeleters() {
  if (!g_has_pending.load(std::memory_order_acquire)) return;
  std::vector<SEXP> pending;
  {
    std::lock_guard<std::mutex> lock(g_pending_mutex);
    pending.swap(g_pending);
    g_has_pending.store(false, std::memory_order_relaxed);
  }
  for (SEXP x : pending) R_ReleaseObject(x);
}

int64_t DeleterCalls() { return g_deleter_calls.load(); }
int64_t LiveBuffers() { return g_live_buffers.load(); }

SEXP WrapHandle(tsb_any v, const char* no_serialize) {
  auto* h = new Handle(v);
  SEXP xptr = R_MakeExternalPtr(h, R_NilValue, R_NilValue);  // allocation: see below
  PROTECT(xptr);
  R_RegisterCFinalizerEx(xptr, FinalizeHandle, TRUE);
  R_SetExternalPtrTag(xptr, NewValueState(xptr, no_serialize));  // what serialize() writes
  UNPROTECT(1);
  return xptr;
}

SEXP HandleBinding(SEXP x) {
  if (TYPEOF(x) != ENVSXP) return R_NilValue;
  static SEXP handle = Rf_install(".handle");
  // Reading an active binding runs its R function, which could change the
  // environment or raise an error through the C++ frames: no R code runs
  // inside a conversion (docs/r.md, "Memory safety").
  if (R_existsVarInFrame(x, handle) && R_BindingIsActive(handle, x)) {
    Fail(TSB_ERR_INVALID_ARGUMENT,
         "expected a tsbridge object, got an environment whose .handle is an active binding");
  }
#if R_VERSION >= R_Version(4, 5, 0)
  // R 4.5 put R_getVarEx in the API and 4.6 took Rf_findVarInFrame out of it.
  return R_getVarEx(handle, x, FALSE, R_NilValue);
#else
  SEXP v = Rf_findVarInFrame(x, handle);
  return v == R_UnboundValue ? R_NilValue : v;
#endif
}

const tsb_any& HandleOf(SEXP xptr, const char* what) {
  if (TYPEOF(xptr) != EXTPTRSXP) {
    Fail(TSB_ERR_INVALID_ARGUMENT, std::string("expected a tsbridge ") + what + ", got " + Describe(xptr));
  }
  auto* h = static_cast<Handle*>(R_ExternalPtrAddr(xptr));
  if (h == nullptr && (h = static_cast<Handle*>(ReviveValue(xptr))) != nullptr) {
    R_RegisterCFinalizerEx(xptr, FinalizeHandle, TRUE);
  }
  if (h == nullptr) {
    if (const char* reason = UnserializeFailure(xptr)) {
      Fail(TSB_ERR_INVALID_ARGUMENT,
           std::string("this ") + what + " did not survive serialize(): " + reason);
    }
    Fail(TSB_ERR_INVALID_ARGUMENT, std::string("this ") + what +
                                       " is no longer valid (released with tsb_release())");
  }
  return h->v;
}

void ReleaseHandle(SEXP xptr) { FinalizeHandle(xptr); }

SEXP TensorToR(const tsb_any& v) {
  tsb_any handle;  // a new reference, from a handle or a borrowed tensor alike
  CheckStatus(tsb_any_keep(&v, &handle));
  SEXP xptr = PROTECT(WrapHandle(handle));
  static SEXP cls = [] {
    SEXP c = Rf_mkString("tsb_tensor");
    R_PreserveObject(c);
    return c;
  }();
  Rf_setAttrib(xptr, R_ClassSymbol, cls);
  UNPROTECT(1);
  return xptr;
}

void* VectorData(SEXP x) {
  // One accessor per type: R 4.6 took the generic DATAPTR out of its API.
  switch (TYPEOF(x)) {
    case REALSXP: return REAL(x);
    case INTSXP: return INTEGER(x);
    case LGLSXP: return LOGICAL(x);
    case RAWSXP: return RAW(x);
    case CPLXSXP: return COMPLEX(x);
    default: Fail(TSB_ERR_INVALID_ARGUMENT, "expected a numeric, logical, raw or complex vector, got " + Describe(x));
  }
}

bool IsArrayLike(SEXP x) {
  return Rf_isVectorAtomic(x) && Rf_getAttrib(x, R_DimSymbol) != R_NilValue;
}

// A plain (non-ALTREP) vector holding x's items and attributes. An ALTREP
// class may move its data: a wrapper that sort() makes swaps in a copy of
// the vector it wraps when written to while that vector is shared, which
// frees the memory a tensor made from it earlier would still point to.
SEXP Materialized(SEXP x) {
  const R_xlen_t n = Rf_xlength(x);
  SEXP plain = PROTECT(cpp11::safe[Rf_allocVector](TYPEOF(x), n));
  const void* from = nullptr;
  size_t size = 0;
  switch (TYPEOF(x)) {
    case REALSXP: from = REAL_RO(x), size = sizeof(double); break;
    case INTSXP: from = INTEGER_RO(x), size = sizeof(int); break;
    case LGLSXP: from = LOGICAL_RO(x), size = sizeof(int); break;
    case CPLXSXP: from = COMPLEX_RO(x), size = sizeof(Rcomplex); break;
    case RAWSXP: from = RAW_RO(x), size = 1; break;
    default: break;  // DataTypeOf refused the others
  }
  if (n > 0) std::memcpy(VectorData(plain), from, static_cast<size_t>(n) * size);
  SHALLOW_DUPLICATE_ATTRIB(plain, x);
  UNPROTECT(1);
  return plain;
}

void TensorFromArray(SEXP x, int32_t dtype, tsb_any* out) {
  if (!Rf_isVectorAtomic(x)) {
    Fail(TSB_ERR_TYPE, "expected a tensor (a tsb_tensor, or an R vector, matrix or array), got " +
                           Describe(x));
  }
  const DLDataType type = DataTypeOf(x);
  CheckNoNA(x);
  // The tensor shares a plain vector's memory; an ALTREP one is copied once
  // (Materialized), and the copy is what the tensor keeps alive.
  cpp11::sexp kept(ALTREP(x) ? Materialized(x) : x);
  x = kept;
  auto* buffer = new RBuffer;
  SEXP dim = Rf_getAttrib(x, R_DimSymbol);
  if (dim != R_NilValue) {
    for (R_xlen_t d = 0; d < Rf_xlength(dim); ++d) buffer->shape.push_back(INTEGER(dim)[d]);
  } else {
    buffer->shape.push_back(Rf_xlength(x));
  }
  int64_t stride = 1;  // column-major: the first dimension is contiguous
  for (int64_t extent : buffer->shape) {
    buffer->strides.push_back(stride);
    stride *= extent;
  }
  DLTensor& t = buffer->managed.dl_tensor;
  t.data = VectorData(x);
  t.device = {kDLCPU, 0};
  t.ndim = static_cast<int>(buffer->shape.size());
  t.dtype = type;
  t.shape = buffer->shape.data();
  t.strides = buffer->strides.data();
  t.byte_offset = 0;
  buffer->managed.manager_ctx = buffer;
  buffer->managed.deleter = DeleteRBuffer;
  buffer->object = x;
  R_PreserveObject(x);
  MARK_NOT_MUTABLE(x);  // R copies before it writes into x from now on
  g_live_buffers.fetch_add(1);
  tsb::Value shared;
  tsb_status* s = tsb_tensor_from_dlpack(&buffer->managed, shared.out());
  if (s != nullptr) {  // ownership stayed with us
    DeleteRBuffer(&buffer->managed);
    CheckStatus(s);
  }
  int32_t natural = CodeOf(type);
  if (TYPEOF(x) == LGLSXP && dtype < 0) dtype = kBool;  // logical: one copy to bool
  if (dtype < 0 || dtype == natural) {
    *out = shared.release();
    return;
  }
  tsb_any args[2] = {shared.get(), tsb_any_dtype(dtype)};
  Call("aten::to", args, 2, out);
}

// What a tensor is, from tsb_tensor_get_info (no export: a sparse tensor has
// a dim() too); its data's address and DLPack device only for a strided one.
SEXP TensorInfo(const tsb_any& t) {
  tsb_tensor_info info{};
  info.struct_size = sizeof info;
  CheckStatus(tsb_tensor_get_info(&t, &info));
  const auto nd = static_cast<R_xlen_t>(info.ndim);
  cpp11::writable::doubles shape(nd), strides(nd);
  for (R_xlen_t i = 0; i < nd; ++i) {
    shape[i] = static_cast<double>(info.sizes[i]);
    strides[i] = info.strides != nullptr ? static_cast<double>(info.strides[i]) : NA_REAL;
  }
  double address = NA_REAL;
  int dl_device = NA_INTEGER;
  if (info.layout == TSB_LAYOUT_STRIDED) {
    Exported e;
    Export(t, false, &e);
    const DLTensor& d = e.managed->dl_tensor;
    address = static_cast<double>(reinterpret_cast<uintptr_t>(d.data) + d.byte_offset);
    dl_device = static_cast<int>(d.device.device_type);
  }
  NamedList out({"dtype", "shape", "strides", "address", "dl_device", "layout"});
  out.Set(0, TorchEnumToR(TSB_TYPE_DTYPE, info.dtype)).Set(1, shape).Set(2, strides);
  out.Set(3, cpp11::as_sexp(address)).Set(4, cpp11::as_sexp(dl_device));
  out.Set(5, TorchEnumToR(TSB_TYPE_LAYOUT, info.layout));
  return out;
}

SEXP TensorToArray(const tsb_any& t) {
  Exported e;
  Export(t, true, &e);
  const DLTensor& d = e.managed->dl_tensor;
  if (d.device.device_type != kDLCPU) {
    Fail(TSB_ERR_UNSUPPORTED, "as.array() reads CPU tensors only; move it with aten::to first");
  }
  int64_t total = 1;
  for (int i = 0; i < d.ndim; ++i) total *= d.shape[i];
  const R_xlen_t n = static_cast<R_xlen_t>(total);
  SEXP out = R_NilValue;
  if (e.dtype == kBool) {
    out = ReadInto<uint8_t, LGLSXP>(d, n);
  } else {
    for (const ArrayReader& reader : kArrayReaders) {
      if (reader.code == d.dtype.code && reader.bits == d.dtype.bits) out = reader.read(d, n);
    }
  }
  if (out == R_NilValue) {
    Fail(TSB_ERR_UNSUPPORTED, "as.array() cannot read this tensor's dtype into R");
  }
  PROTECT(out);
  if (d.ndim >= 1) {
    SEXP dim = PROTECT(cpp11::safe[Rf_allocVector](INTSXP, d.ndim));
    for (int i = 0; i < d.ndim; ++i) INTEGER(dim)[i] = static_cast<int>(d.shape[i]);
    Rf_setAttrib(out, R_DimSymbol, dim);
    UNPROTECT(1);
  }
  UNPROTECT(1);
  return out;
}

}  // namespace tsbr
