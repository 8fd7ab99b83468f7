// Registration of the .Call entry points (what cpp11::cpp_register would
// write; written by hand so the build needs no code generator). Each entry
// point is named once, with its number of arguments, in TSBR_CALLS: that
// list declares it and registers it.
#include <R.h>
#include <R_ext/Rdynload.h>
#include <Rinternals.h>

#define TSBR_CALLS(X) \
    X(tsbr_init, 1) X(tsbr_set_integer64, 1) X(tsbr_parse_type, 2) X(tsbr_type_info, 1) \
    X(tsbr_convert, 2) X(tsbr_to_json, 2) X(tsbr_from_json, 2) X(tsbr_handle_count, 0) \
    X(tsbr_release, 1) X(tsbr_value_repr, 1) X(tsbr_tensor_from_r, 2) X(tsbr_tensor_info, 1) \
    X(tsbr_tensor_to_r, 1) X(tsbr_r_address, 1) X(tsbr_dlpack_stats, 0) X(tsbr_module_load, 1) \
    X(tsbr_module_compile, 1) X(tsbr_module_save, 2) X(tsbr_module_write, 1) \
    X(tsbr_module_read, 1) X(tsbr_op_names, 1) X(tsbr_module_save_for_mobile, 2) \
    X(tsbr_module_methods, 1) X(tsbr_method_caller, 2) X(tsbr_op_caller, 1) \
    X(tsbr_op_overloads, 1) X(tsbr_call_list, 2) X(tsbr_object_call, 3) X(tsbr_object_field, 2) \
    X(tsbr_object_type, 1) X(tsbr_trace, 4) X(tsbr_loaded_load, 2) X(tsbr_loaded_count, 1) \
    X(tsbr_loaded_info, 2) \
    /* autograd.cc */ \
    X(tsbr_requires_grad_get, 1) X(tsbr_requires_grad_set, 2) X(tsbr_grad, 1) \
    X(tsbr_zero_grad, 1) X(tsbr_detach, 1) X(tsbr_backward, 3) X(tsbr_grad_mode_set, 1) \
    X(tsbr_grad_mode_get, 0) X(tsbr_module_training_set, 2) X(tsbr_module_training_get, 1) \
    X(tsbr_module_parameters, 1) X(tsbr_module_buffers, 1) X(tsbr_module_children, 1) \
    X(tsbr_module_attribute_names, 1) X(tsbr_module_attribute_get, 2) \
    X(tsbr_module_attribute_set, 3) X(tsbr_module_code, 1) X(tsbr_module_graph, 2) \
    X(tsbr_module_state_get, 1) X(tsbr_module_state_set, 3) X(tsbr_module_parameter_set, 4) \
    X(tsbr_graph_for, 2)

#define TSBR_PARAMS_0 void
#define TSBR_PARAMS_1 SEXP
#define TSBR_PARAMS_2 SEXP, SEXP
#define TSBR_PARAMS_3 SEXP, SEXP, SEXP
#define TSBR_PARAMS_4 SEXP, SEXP, SEXP, SEXP
#define TSBR_DECLARE(name, n) SEXP name(TSBR_PARAMS_##n);
#define TSBR_ENTRY(name, n) {#name, (DL_FUNC)&name, n},

extern "C" {
TSBR_CALLS(TSBR_DECLARE)
SEXP tsbr_call_values(SEXP);
void tsbr_init_serialization(DllInfo* dll);

static const R_CallMethodDef kCallEntries[] = {TSBR_CALLS(TSBR_ENTRY) {NULL, NULL, 0}};

// Method and operator calls: R evaluates every formal before the routine
// runs (no promise forced in C++), with one routine for any arity.
static const R_ExternalMethodDef kExternalEntries[] = {
    TSBR_ENTRY(tsbr_call_values, -1) {NULL, NULL, 0}};

void R_init_tsbridge(DllInfo* dll) {
  R_registerRoutines(dll, NULL, kCallEntries, NULL, kExternalEntries);
  R_useDynamicSymbols(dll, FALSE);
  R_forceSymbols(dll, TRUE);
  tsbr_init_serialization(dll);
}
}
