// Statuses and host-side conversion failures as Python exceptions.
#include <cstring>
#include <string>

#include "host.h"

namespace tsbpy {
namespace {

constexpr int kNumCodes = TSB_ERR_INTERNAL + 1;
PyObject* g_classes[kNumCodes] = {};  // tsbridge.Error subclasses by code

// Sets attribute `name` of `obj` to the text, invalid UTF-8 replaced.
void SetText(PyObject* obj, const char* name, const std::string& text) {
  Ref value(PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace"));
  if (value.p == nullptr || PyObject_SetAttrString(obj, name, value.p) < 0) PyErr_Clear();
}

// A missing operator library's advice names this host's call.
std::string InOurWords(const std::string& text) {
  return tsb::SayLoadLibrary(text, "tsbridge.load_library(\"{}\")");
}

}  // namespace

void InitErrors(PyObject* errors_module) {
  Ref by_code(Check(PyObject_GetAttrString(errors_module, "BY_CODE")));
  for (int code = 0; code < kNumCodes; ++code) {
    PyObject* cls = PyDict_GetItemWithError(by_code.p, Ref(PyLong_FromLong(code)).p);
    if (cls == nullptr) {
      if (PyErr_Occurred()) throw PyErrorSet{};
      cls = PyDict_GetItemString(by_code.p, "default");
    }
    Py_XINCREF(cls);
    g_classes[code] = cls;
  }
}

PyObject* Check(PyObject* result) {
  if (result == nullptr) throw PyErrorSet{};
  return result;
}

void Raise(tsb_status* status) {
  if (status == nullptr) return;
  SetStatusError(status);
  throw PyErrorSet{};
}

PyObject* Text(const char* s) {
  return Check(PyUnicode_DecodeUTF8(s ? s : "", static_cast<Py_ssize_t>(s ? std::strlen(s) : 0),
                                    "replace"));
}

PyObject* StringList(const char* const* items, size_t n) {
  Ref list(Check(PyList_New(static_cast<Py_ssize_t>(n))));
  for (size_t i = 0; i < n; ++i) PyList_SET_ITEM(list.p, i, Text(items[i]));
  return list.release();
}

std::string KeySegment(PyObject* key) {
  if (PyUnicode_Check(key)) {
    Py_ssize_t len = 0;
    const char* text = PyUnicode_AsUTF8AndSize(key, &len);
    if (text != nullptr) return tsb::kit::StrKeySegment(std::string_view(text, len));
    PyErr_Clear();
  } else if (PyFloat_Check(key)) {
    return tsb::FloatKeySegment(PyFloat_AS_DOUBLE(key));
  } else if (PyLong_Check(key) && !PyBool_Check(key)) {
    int overflow = 0;
    const long long i = PyLong_AsLongLongAndOverflow(key, &overflow);
    if (overflow == 0 && !(i == -1 && PyErr_Occurred())) return tsb::kit::IntKeySegment(i);
    PyErr_Clear();  // beyond 64 bits: its repr below
  }
  Ref repr(PyObject_Repr(key));
  if (repr.p == nullptr) PyErr_Clear();
  const char* text = repr.p ? PyUnicode_AsUTF8(repr.p) : nullptr;
  if (text == nullptr) PyErr_Clear();
  return std::string("key ") + (text ? text : "?");
}

void SetError(const ConvertError& e, const std::string& where) {
  const std::string path = tsb::JoinPath(where, e.path);
  const std::string message = InOurWords(e.Message(where));
  int code = static_cast<int>(e.code);
  if (code <= 0 || code >= kNumCodes) code = TSB_ERR_INTERNAL;
  PyObject* cls = g_classes[code] ? g_classes[code] : PyExc_RuntimeError;
  Ref args(Py_BuildValue("(s#)", message.data(), static_cast<Py_ssize_t>(message.size())));
  Ref exc(args.p ? PyObject_Call(cls, args.p, nullptr) : nullptr);
  if (exc.p == nullptr) return;  // the error building it stays set
  PyObject_SetAttrString(exc.p, "code", Ref(PyLong_FromLong(code)).p);
  SetText(exc.p, "path", path);
  SetText(exc.p, "detail", InOurWords(e.detail));
  // The C++ backtrace stays out of the message, as in the C ABI.
  if (!e.backtrace.empty()) SetText(exc.p, "backtrace", e.backtrace);
  PyErr_SetObject(cls, exc.p);
}

void SetStatusError(tsb_status* status, const std::string& where) {
  try {
    CheckStatus(status);
  } catch (const ConvertError& e) {
    SetError(e, where);
  }
}

}  // namespace tsbpy
