// Statuses and host-side conversion failures as Python exceptions.
#include <string>

#include "host.h"

namespace tsbpy {
namespace {

constexpr int kNumCodes = TSB_ERR_INTERNAL + 1;
PyObject* g_classes[kNumCodes] = {};  // tsbridge.Error subclasses by code

std::string Join(const std::string& where, const std::string& path) {
  if (where.empty()) return path;
  if (path.empty()) return where;
  return where + " → " + path;
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

void CheckStatus(tsb_status* status) {
  if (status == nullptr) return;
  ConvertError e{tsb_status_get_code(status), tsb_status_get_path(status),
                 tsb_status_get_detail(status)};
  tsb_status_free(status);
  throw e;
}

void Rethrow(ConvertError& e, const std::string& segment) {
  e.path = e.path.empty() ? segment : segment + " → " + e.path;
  throw;
}

std::string KeySegment(PyObject* key) {
  if (PyUnicode_Check(key)) {
    const char* text = PyUnicode_AsUTF8(key);
    if (text != nullptr) return std::string("key \"") + text + "\"";
    PyErr_Clear();
  } else if (PyLong_Check(key) && !PyBool_Check(key)) {
    Ref text(PyObject_Str(key));
    if (text.p != nullptr) return std::string("key ") + PyUnicode_AsUTF8(text.p);
    PyErr_Clear();
  }
  Ref repr(PyObject_Repr(key));
  if (repr.p == nullptr) PyErr_Clear();
  return std::string("key ") + (repr.p ? PyUnicode_AsUTF8(repr.p) : "?");
}

void SetError(const ConvertError& e, const std::string& where) {
  const std::string path = Join(where, e.path);
  const std::string message = path.empty() ? e.detail : path + ": " + e.detail;
  int code = static_cast<int>(e.code);
  if (code <= 0 || code >= kNumCodes) code = TSB_ERR_INTERNAL;
  PyObject* cls = g_classes[code] ? g_classes[code] : PyExc_RuntimeError;
  Ref args(Py_BuildValue("(s#)", message.data(), static_cast<Py_ssize_t>(message.size())));
  Ref exc(args.p ? PyObject_Call(cls, args.p, nullptr) : nullptr);
  if (exc.p == nullptr) return;  // the error building it stays set
  PyObject_SetAttrString(exc.p, "code", Ref(PyLong_FromLong(code)).p);
  PyObject_SetAttrString(exc.p, "path",
                         Ref(PyUnicode_DecodeUTF8(path.data(), path.size(), "replace")).p);
  PyObject_SetAttrString(exc.p, "detail",
                         Ref(PyUnicode_DecodeUTF8(e.detail.data(), e.detail.size(),
                                                  "replace")).p);
  PyErr_SetObject(cls, exc.p);
}

void SetStatusError(tsb_status* status, const std::string& where) {
  ConvertError e{tsb_status_get_code(status), tsb_status_get_path(status),
                 tsb_status_get_detail(status)};
  const std::string backtrace = tsb_status_get_backtrace(status);
  tsb_status_free(status);
  SetError(e, where);
  if (backtrace.empty()) return;
  // The C++ backtrace stays out of the message, as in the C ABI.
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  if (value != nullptr) {
    PyObject_SetAttrString(value, "backtrace",
                           Ref(PyUnicode_DecodeUTF8(backtrace.data(), backtrace.size(),
                                                    "replace")).p);
  }
  PyErr_Restore(type, value, tb);
}

}  // namespace tsbpy
