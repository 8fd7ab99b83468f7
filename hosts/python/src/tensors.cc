// Tensors cross as themselves through the torch fast path when the
// companion tsbridge._torch is there (torch_fastpath.h: the at::Tensor
// inside a torch.Tensor becomes a handle and back, autograd included);
// otherwise through torch's DLPack C exchange API where torch has it (torch
// 2.10+: DLManagedTensorVersioned both ways, no Python call); otherwise as
// DLPack capsules: torch._C._to_dlpack / _from_dlpack on the Python side,
// tsb_tensor_{from,to}_dlpack on ours. All but the first are zero copy and
// carry data, not the autograd graph.
// A bool tensor leaves tsbridge as kDLBool; torch 1.x reads no bool from
// DLPack nor writes one, so with it a bool tensor crosses as a uint8 view
// of the same memory, viewed back as bool on the other side (zero copy).
#include <dlpack/dlpack.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "host.h"
#include "torch_fastpath.h"

// DLPack 1.2 added the C exchange API (DLPackExchangeAPI); Debian 12's
// dlpack.h is 0.6 and Debian 13's 1.0: built there, the host has no use of it.
#if defined(DLPACK_MAJOR_VERSION) && \
    (DLPACK_MAJOR_VERSION > 1 || (DLPACK_MAJOR_VERSION == 1 && DLPACK_MINOR_VERSION >= 2))
#define TSBPY_DLPACK_EXCHANGE 1
#else
#define TSBPY_DLPACK_EXCHANGE 0
#endif

namespace tsbpy {
namespace {

Torch g_torch;
// The innermost identity scope: where a value walked out finds the Python
// object of a tensor that went in (calls run without the GIL).
thread_local IdentityScope* g_scope = nullptr;
const char* const kDLTensor = "dltensor";
const char* const kUsedDLTensor = "used_dltensor";

void DeleteUnusedCapsule(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kDLTensor)) return;  // consumed
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kDLTensor));
  if (managed != nullptr && managed->deleter != nullptr) managed->deleter(managed);
}

// The tsb value as a DLPack capsule.
PyObject* ToCapsule(const tsb_any& v) {
  DLManagedTensor* managed = nullptr;
  CheckStatus(tsb_tensor_to_dlpack(&v, &managed));
  PyObject* capsule = PyCapsule_New(managed, kDLTensor, DeleteUnusedCapsule);
  if (capsule == nullptr) {
    managed->deleter(managed);
    throw PyErrorSet{};
  }
  return capsule;
}

constexpr uint8_t kDLBoolCode = 6;  // DLPack 0.8's kDLBool; not in 0.6's header

// A capsule (or a torch tensor) into a tsb tensor; the capsule is consumed.
void FromCapsule(PyObject* capsule, tsb_any* out) {
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kDLTensor));
  if (managed == nullptr) throw PyErrorSet{};  // not a DLPack capsule, or used
  CheckStatus(tsb_tensor_from_dlpack(managed, out));
  PyCapsule_SetName(capsule, kUsedDLTensor);  // the tensor owns it now
}

// Whether an environment variable turns something off: set, not "" or "0".
bool TurnedOff(const char* name) {
  const char* off = std::getenv(name);
  return off != nullptr && *off != '\0' && std::strcmp(off, "0") != 0;
}

// The companion's capsule, unless the environment turns it off; the reason
// it is not used goes to fast_reason (tsbridge.TORCH_FASTPATH_REASON).
void InitFastPath() {
  if (TurnedOff(TSBPY_NO_FASTPATH_ENV)) {
    g_torch.fast_reason = TSBPY_NO_FASTPATH_ENV " is set";
    return;
  }
  // PyCapsule_Import reads attributes after the first name: import first.
  Ref companion(PyImport_ImportModule("tsbridge._torch"));
  const void* api =
      companion.p != nullptr ? PyCapsule_Import(TSBPY_TORCH_API_CAPSULE, 0) : nullptr;
  if (api == nullptr) {
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    Ref text(value != nullptr ? PyObject_Str(value) : nullptr);
    const char* why = text.p != nullptr ? PyUnicode_AsUTF8(text.p) : nullptr;
    g_torch.fast_reason = why != nullptr ? why : "tsbridge._torch did not load";
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(traceback);
    PyErr_Clear();
    return;
  }
  const auto* fast = static_cast<const tsbpy_torch_api*>(api);
  if (fast->struct_size < offsetof(tsbpy_torch_api, borrow_torch)) {
    g_torch.fast_reason = "tsbridge._torch is older than tsbridge._native";
    return;
  }
  g_torch.fast = fast;
  g_torch.fast_borrows = fast->struct_size >= sizeof(tsbpy_torch_api);
}

// torch's DLPack C exchange API, unless the environment turns it off; the
// reason it is not used goes to exchange_reason (tsbridge.TORCH_EXCHANGE_REASON).
void InitExchange() {
  if (TurnedOff(TSBPY_NO_EXCHANGE_ENV)) {
    g_torch.exchange_reason = TSBPY_NO_EXCHANGE_ENV " is set";
    return;
  }
#if TSBPY_DLPACK_EXCHANGE
  Ref capsule(PyObject_GetAttrString(g_torch.tensor_type, "__dlpack_c_exchange_api__"));
  const auto* api = capsule.p != nullptr ? static_cast<const DLPackExchangeAPI*>(
                                               PyCapsule_GetPointer(capsule.p, "dlpack_exchange_api"))
                                         : nullptr;
  if (api == nullptr) {
    PyErr_Clear();
    g_torch.exchange_reason =
        "expected torch.Tensor.__dlpack_c_exchange_api__, a \"dlpack_exchange_api\" capsule "
        "(torch 2.10 and newer), found none";
    return;
  }
  if (api->header.version.major != DLPACK_MAJOR_VERSION) {
    g_torch.exchange_reason = "expected torch's DLPack exchange API of major version " +
                              std::to_string(DLPACK_MAJOR_VERSION) + ", found " +
                              std::to_string(api->header.version.major);
    return;
  }
  // The core must take versioned DLPack (LibTorch 2.9+); asked with NULLs it
  // says TSB_ERR_UNSUPPORTED before it looks at them.
  tsb_status* probe = tsb_tensor_from_dlpack_versioned(nullptr, nullptr);
  if (tsb_status_get_code(probe) == TSB_ERR_UNSUPPORTED) {
    g_torch.exchange_reason = tsb_status_get_message(probe);
    tsb_status_free(probe);
    return;
  }
  tsb_status_free(probe);
  g_torch.exchange = api;
  g_torch.exchange_capsule = capsule.release();
#else
  g_torch.exchange_reason =
      "expected a dlpack.h of DLPack 1.2 or newer (its DLPackExchangeAPI) when tsbridge._native "
      "was built, found an older one";
#endif
}

#if TSBPY_DLPACK_EXCHANGE
// Whether `obj`'s type hands out the exchange API found on torch.Tensor: the
// API takes only objects of that type (a subclass inherits the attribute;
// one that overrides it crosses as a capsule).
bool ExchangeTakes(PyObject* obj) {
  if (Py_TYPE(obj) == reinterpret_cast<PyTypeObject*>(g_torch.tensor_type)) return true;
  Ref own(PyObject_GetAttrString(reinterpret_cast<PyObject*>(Py_TYPE(obj)),
                                 "__dlpack_c_exchange_api__"));
  if (own.p == nullptr) PyErr_Clear();
  return own.p == g_torch.exchange_capsule;
}

// A torch.Tensor in: torch's DLManagedTensorVersioned, taken over by the core.
void ExchangeIn(PyObject* obj, tsb_any* out) {
  DLManagedTensorVersioned* managed = nullptr;
  if (g_torch.exchange->managed_tensor_from_py_object_no_sync(obj, &managed) != 0) {
    throw PyErrorSet{};
  }
  tsb_status* s = tsb_tensor_from_dlpack_versioned(managed, out);
  if (s != nullptr && managed->deleter != nullptr) managed->deleter(managed);  // still ours
  CheckStatus(s);
}

// A tensor out: the core's DLManagedTensorVersioned, which torch takes over
// (also when it fails: the API steals it).
PyObject* ExchangeOut(const tsb_any& v) {
  DLManagedTensorVersioned* managed = nullptr;
  CheckStatus(tsb_tensor_to_dlpack_versioned(&v, &managed));
  void* obj = nullptr;
  if (g_torch.exchange->managed_tensor_to_py_object_no_sync(managed, &obj) != 0) {
    throw PyErrorSet{};
  }
  return static_cast<PyObject*>(obj);
}
#endif

}  // namespace

void InitTorch() {
  Ref torch(PyImport_ImportModule("torch"));
  if (torch.p == nullptr) {  // no torch: tensors stay DLPack capsules
    PyErr_Clear();
    return;
  }
  Ref c(Check(PyObject_GetAttrString(torch.p, "_C")));
  g_torch.tensor_type = Check(PyObject_GetAttrString(torch.p, "Tensor"));
  g_torch.to_dlpack = Check(PyObject_GetAttrString(c.p, "_to_dlpack"));
  g_torch.from_dlpack = Check(PyObject_GetAttrString(c.p, "_from_dlpack"));
  g_torch.device_ctor = Check(PyObject_GetAttrString(torch.p, "device"));
  g_torch.bool_dtype = Check(PyObject_GetAttrString(torch.p, "bool"));
  g_torch.uint8_dtype = Check(PyObject_GetAttrString(torch.p, "uint8"));
  Ref version(Check(PyObject_GetAttrString(torch.p, "__version__")));
  const char* v = PyUnicode_AsUTF8(version.p);
  if (v == nullptr) throw PyErrorSet{};
  g_torch.dlpack_bool = std::strncmp(v, "1.", 2) != 0;  // 2.x: kDLBool both ways
  g_torch.dtype_type = Py_NewRef(reinterpret_cast<PyObject*>(Py_TYPE(g_torch.bool_dtype)));
  Ref strided(Check(PyObject_GetAttrString(torch.p, "strided")));
  g_torch.layout_type = Py_NewRef(reinterpret_cast<PyObject*>(Py_TYPE(strided.p)));
  Ref contiguous(Check(PyObject_GetAttrString(torch.p, "contiguous_format")));
  g_torch.memory_format_type = Py_NewRef(reinterpret_cast<PyObject*>(Py_TYPE(contiguous.p)));
  Ref cpu(Check(PyObject_CallFunction(g_torch.device_ctor, "s", "cpu")));
  g_torch.device_type = Py_NewRef(reinterpret_cast<PyObject*>(Py_TYPE(cpu.p)));
  g_torch.torch_module = torch.release();
  g_torch.available = true;
  InitFastPath();
  InitExchange();
}

const Torch& GetTorch() { return g_torch; }

const char* TensorPathName() {
  if (!g_torch.available) return "none";
  if (g_torch.fast != nullptr) return "companion";
  return g_torch.exchange != nullptr ? "exchange" : "dlpack";
}

bool IsTensor(PyObject* obj) {
  if (g_torch.available && PyObject_TypeCheck(obj, reinterpret_cast<PyTypeObject*>(
                                                       g_torch.tensor_type))) {
    return true;
  }
  return PyCapsule_IsValid(obj, kDLTensor);
}

PyObject* TensorToPython(const tsb_any& v) {
  IdentityScope* const innermost = g_scope;
  for (IdentityScope* scope = innermost; scope != nullptr; scope = scope->outer()) {
    if (PyObject* same = scope->FindObject(v)) return Py_NewRef(same);  // none if empty
  }
  for (IdentityScope* scope = innermost; scope != nullptr; scope = scope->outer()) {
    if (!scope->graph) continue;
    if (PyObject* kept = GraphTensorToPython(v)) return kept;
    break;
  }
  Ref result;
  if (g_torch.fast != nullptr) {  // the tensor itself; its own object if it has one
    result.p = Check(g_torch.fast->to_torch(&v));
    ++g_torch.crossings[kCompanion][kOut];
    if (IdentityScope* keeper = IdentityScope::Keeper()) keeper->Remember(v, result.p);
    return result.release();
  }
#if TSBPY_DLPACK_EXCHANGE
  if (g_torch.exchange != nullptr) {
    result.p = ExchangeOut(v);
    ++g_torch.crossings[kExchange][kOut];
    if (IdentityScope* keeper = IdentityScope::Keeper()) keeper->Remember(v, result.p);
    return result.release();
  }
#endif
  Ref capsule(ToCapsule(v));
  if (!g_torch.available) return capsule.release();
  // A bool tensor leaves as kDLBool, which torch 1.x cannot read: its bytes
  // as uint8 then, viewed back as bool.
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.p, kDLTensor));
  const bool as_bytes = !g_torch.dlpack_bool && managed->dl_tensor.dtype.code == kDLBoolCode;
  if (as_bytes) managed->dl_tensor.dtype.code = kDLUInt;
  result.p = Check(PyObject_CallOneArg(g_torch.from_dlpack, capsule.p));
  if (as_bytes) {
    Ref bytes(result.release());
    result.p = Check(PyObject_CallMethod(bytes.p, "view", "O", g_torch.bool_dtype));
  }
  ++g_torch.crossings[kDLPack][kOut];
  if (IdentityScope* keeper = IdentityScope::Keeper()) keeper->Remember(v, result.p);
  return result.release();
}

void TensorFromPython(PyObject* obj, const TensorsIn& tensors, tsb_any* out) {
  for (IdentityScope* scope = tensors.scope; scope != nullptr; scope = scope->outer()) {
    if (scope->empty()) continue;
    if (const tsb_any* same = scope->FindHandle(obj)) {  // the same tensor again
      *out = *same;
      tsb_any_retain(out);
      return;
    }
  }
  if (!g_torch.available || PyCapsule_CheckExact(obj)) return FromCapsule(obj, out);
  if (g_torch.fast != nullptr) {  // no scope entry: the tensor keeps its object
    const int done = tensors.lend && g_torch.fast_borrows ? g_torch.fast->borrow_torch(obj, out)
                                                          : g_torch.fast->from_torch(obj, out);
    if (done < 0) throw PyErrorSet{};
    if (done > 0) return void(++g_torch.crossings[kCompanion][kIn]);
  }
#if TSBPY_DLPACK_EXCHANGE
  if (g_torch.exchange != nullptr && ExchangeTakes(obj)) {
    ExchangeIn(obj, out);
    ++g_torch.crossings[kExchange][kIn];
    if (tensors.scope != nullptr) tensors.scope->Remember(*out, obj);
    return;
  }
#endif
  // torch 1.x has no bool in DLPack: a bool tensor's bytes as uint8,
  // marked kDLBool for tsbridge. Its dtype is asked first: LibTorch 1.13's
  // at::toDLPack allocates its wrapper before it throws for bool, so trying
  // _to_dlpack first leaked about 600 bytes per bool tensor (LeakSanitizer,
  // docs/reliability.md).
  Ref dtype(Check(PyObject_GetAttrString(obj, "dtype")));
  const bool as_bytes = dtype.p == g_torch.bool_dtype && !g_torch.dlpack_bool;
  Ref source(as_bytes ? Check(PyObject_CallMethod(obj, "view", "O", g_torch.uint8_dtype))
                      : Py_NewRef(obj));
  Ref capsule(Check(PyObject_CallOneArg(g_torch.to_dlpack, source.p)));
  if (as_bytes) {
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.p, kDLTensor));
    if (managed == nullptr) throw PyErrorSet{};
    managed->dl_tensor.dtype.code = kDLBoolCode;
  }
  FromCapsule(capsule.p, out);
  ++g_torch.crossings[kDLPack][kIn];
  if (tensors.scope != nullptr) tensors.scope->Remember(*out, obj);
}

// ------------------------------------------------------------ identity

void KeepLent(tsb_any* v) {
  if (v->flags != TSB_FLAG_BORROWED) return;
  const tsb_any lent = *v;
  CheckStatus(tsb_any_keep(&lent, v));
}

TensorsIn TensorsIn::OfThread() { return TensorsIn{g_scope, false}; }

void MarkGraphCall() {
  if (g_scope != nullptr) g_scope->graph = true;
}

IdentityScope::IdentityScope() : outer_(g_scope) { g_scope = this; }

IdentityScope::~IdentityScope() {
  g_scope = outer_;
  for (Entry& e : entries_) {
    Py_DECREF(e.obj);
    tsb_any_release(&e.handle);
  }
}

IdentityScope* IdentityScope::Keeper() {
  for (IdentityScope* scope = g_scope; scope != nullptr; scope = scope->outer_) {
    if (scope->keep_outputs) return scope;
  }
  return nullptr;
}

namespace {

// tsb_any_get_id of a handle or a lent tensor, or 0.
uint64_t IdOf(const tsb_any& handle) {
  uint64_t id = 0;
  tsb_status* s = tsb_any_get_id(&handle, &id);
  if (s == nullptr) return id;
  tsb_status_free(s);
  return 0;
}

}  // namespace

void IdentityScope::Remember(const tsb_any& handle, PyObject* obj) {
  if (FindHandle(obj) != nullptr) return;
  tsb_any kept = handle;
  tsb_any_retain(&kept);  // a handle: a new reference
  KeepLent(&kept);        // a lent tensor: a handle of it
  const uint64_t id = IdOf(kept);
  if (id == 0) return tsb_any_release(&kept);
  entries_.push_back({id, Py_NewRef(obj), kept});
}

void IdentityScope::Index() const {
  for (; indexed_ < entries_.size(); ++indexed_) {
    by_id_.emplace(entries_[indexed_].id, indexed_);
    by_object_.emplace(entries_[indexed_].obj, indexed_);
  }
}

PyObject* IdentityScope::FindObject(const tsb_any& handle) const {
  if (entries_.empty()) return nullptr;
  const uint64_t id = IdOf(handle);  // a lent tensor's too: the id a handle of it has
  if (entries_.size() <= kLinear) {
    for (const Entry& e : entries_) {
      if (e.id == id) return e.obj;
    }
    return nullptr;
  }
  Index();
  auto found = by_id_.find(id);
  return found == by_id_.end() ? nullptr : entries_[found->second].obj;
}

const tsb_any* IdentityScope::FindHandle(PyObject* obj) const {
  if (entries_.size() <= kLinear) {
    for (const Entry& e : entries_) {
      if (e.obj == obj) return &e.handle;
    }
    return nullptr;
  }
  Index();
  auto found = by_object_.find(obj);
  return found == by_object_.end() ? nullptr : &entries_[found->second].handle;
}

}  // namespace tsbpy
