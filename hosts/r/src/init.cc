// Registration of the .Call entry points (what cpp11::cpp_register would
// write; written by hand so the build needs no code generator).
#include <R.h>
#include <R_ext/Rdynload.h>
#include <Rinternals.h>

extern "C" {
SEXP tsbr_init(SEXP);
void tsbr_init_serialization(DllInfo* dll);
SEXP tsbr_set_integer64(SEXP);
SEXP tsbr_parse_type(SEXP, SEXP);
SEXP tsbr_type_info(SEXP);
SEXP tsbr_convert(SEXP, SEXP);
SEXP tsbr_to_json(SEXP, SEXP);
SEXP tsbr_from_json(SEXP, SEXP);
SEXP tsbr_handle_count();
SEXP tsbr_release(SEXP);
SEXP tsbr_value_repr(SEXP);
SEXP tsbr_tensor_from_r(SEXP, SEXP);
SEXP tsbr_tensor_info(SEXP);
SEXP tsbr_tensor_to_r(SEXP);
SEXP tsbr_r_address(SEXP);
SEXP tsbr_dlpack_stats();
SEXP tsbr_module_load(SEXP);
SEXP tsbr_module_parameter_set(SEXP, SEXP, SEXP, SEXP);
SEXP tsbr_graph_for(SEXP, SEXP);
SEXP tsbr_module_state_get(SEXP);
SEXP tsbr_module_state_set(SEXP, SEXP, SEXP);
SEXP tsbr_module_save_for_mobile(SEXP, SEXP);
SEXP tsbr_module_write(SEXP);
SEXP tsbr_module_read(SEXP);
SEXP tsbr_module_compile(SEXP);
SEXP tsbr_module_save(SEXP, SEXP);
SEXP tsbr_module_methods(SEXP);
SEXP tsbr_method_caller(SEXP, SEXP);
SEXP tsbr_op_caller(SEXP);
SEXP tsbr_op_names(SEXP);
SEXP tsbr_op_overloads(SEXP);
SEXP tsbr_call_values(SEXP);
SEXP tsbr_call_list(SEXP, SEXP);
SEXP tsbr_object_call(SEXP, SEXP, SEXP);
SEXP tsbr_object_field(SEXP, SEXP);
SEXP tsbr_object_type(SEXP);
SEXP tsbr_trace(SEXP, SEXP, SEXP, SEXP);
SEXP tsbr_loaded_load(SEXP, SEXP);
SEXP tsbr_loaded_count(SEXP);
SEXP tsbr_loaded_info(SEXP, SEXP);
SEXP tsbr_requires_grad_get(SEXP);
SEXP tsbr_requires_grad_set(SEXP, SEXP);
SEXP tsbr_grad(SEXP);
SEXP tsbr_zero_grad(SEXP);
SEXP tsbr_detach(SEXP);
SEXP tsbr_backward(SEXP, SEXP, SEXP);
SEXP tsbr_grad_mode_set(SEXP);
SEXP tsbr_grad_mode_get();
SEXP tsbr_module_training_set(SEXP, SEXP);
SEXP tsbr_module_training_get(SEXP);
SEXP tsbr_module_parameters(SEXP);
SEXP tsbr_module_buffers(SEXP);
SEXP tsbr_module_children(SEXP);
SEXP tsbr_module_attribute_names(SEXP);
SEXP tsbr_module_attribute_get(SEXP, SEXP);
SEXP tsbr_module_attribute_set(SEXP, SEXP, SEXP);
SEXP tsbr_module_code(SEXP);
SEXP tsbr_module_graph(SEXP, SEXP);

#define TSB_ENTRY(name, n) {#name, (DL_FUNC)&name, n}

static const R_CallMethodDef kCallEntries[] = {
    TSB_ENTRY(tsbr_init, 1),           TSB_ENTRY(tsbr_set_integer64, 1),
    TSB_ENTRY(tsbr_parse_type, 2),     TSB_ENTRY(tsbr_type_info, 1),
    TSB_ENTRY(tsbr_convert, 2),        TSB_ENTRY(tsbr_to_json, 2),
    TSB_ENTRY(tsbr_from_json, 2),      TSB_ENTRY(tsbr_handle_count, 0),
    TSB_ENTRY(tsbr_release, 1),        TSB_ENTRY(tsbr_value_repr, 1),
    TSB_ENTRY(tsbr_tensor_from_r, 2),  TSB_ENTRY(tsbr_tensor_info, 1),
    TSB_ENTRY(tsbr_tensor_to_r, 1),    TSB_ENTRY(tsbr_r_address, 1),
    TSB_ENTRY(tsbr_dlpack_stats, 0),   TSB_ENTRY(tsbr_module_load, 1),
    TSB_ENTRY(tsbr_module_compile, 1), TSB_ENTRY(tsbr_module_save, 2),
    TSB_ENTRY(tsbr_module_write, 1),   TSB_ENTRY(tsbr_module_read, 1),
    TSB_ENTRY(tsbr_op_names, 1),       TSB_ENTRY(tsbr_module_save_for_mobile, 2),
    TSB_ENTRY(tsbr_module_methods, 1), TSB_ENTRY(tsbr_method_caller, 2),
    TSB_ENTRY(tsbr_op_caller, 1),      TSB_ENTRY(tsbr_op_overloads, 1),
    TSB_ENTRY(tsbr_call_list, 2),
    TSB_ENTRY(tsbr_object_call, 3),    TSB_ENTRY(tsbr_object_field, 2),
    TSB_ENTRY(tsbr_object_type, 1),
    TSB_ENTRY(tsbr_trace, 4),          TSB_ENTRY(tsbr_loaded_load, 2),
    TSB_ENTRY(tsbr_loaded_count, 1),   TSB_ENTRY(tsbr_loaded_info, 2),
    // autograd.cc
    TSB_ENTRY(tsbr_requires_grad_get, 1), TSB_ENTRY(tsbr_requires_grad_set, 2),
    TSB_ENTRY(tsbr_grad, 1),               TSB_ENTRY(tsbr_zero_grad, 1),
    TSB_ENTRY(tsbr_detach, 1),             TSB_ENTRY(tsbr_backward, 3),
    TSB_ENTRY(tsbr_grad_mode_set, 1),      TSB_ENTRY(tsbr_grad_mode_get, 0),
    TSB_ENTRY(tsbr_module_training_set, 2), TSB_ENTRY(tsbr_module_training_get, 1),
    TSB_ENTRY(tsbr_module_parameters, 1),  TSB_ENTRY(tsbr_module_buffers, 1),
    TSB_ENTRY(tsbr_module_children, 1),    TSB_ENTRY(tsbr_module_attribute_names, 1),
    TSB_ENTRY(tsbr_module_attribute_get, 2), TSB_ENTRY(tsbr_module_attribute_set, 3),
    TSB_ENTRY(tsbr_module_code, 1),        TSB_ENTRY(tsbr_module_graph, 2),
    TSB_ENTRY(tsbr_module_state_get, 1),   TSB_ENTRY(tsbr_module_state_set, 3),
    TSB_ENTRY(tsbr_module_parameter_set, 4), TSB_ENTRY(tsbr_graph_for, 2),
    {NULL, NULL, 0}};

// Method and operator calls: R evaluates every formal before the routine
// runs (no promise forced in C++), with one routine for any arity.
static const R_ExternalMethodDef kExternalEntries[] = {
    TSB_ENTRY(tsbr_call_values, -1), {NULL, NULL, 0}};

void R_init_tsbridge(DllInfo* dll) {
  R_registerRoutines(dll, NULL, kCallEntries, NULL, kExternalEntries);
  R_useDynamicSymbols(dll, FALSE);
  R_forceSymbols(dll, TRUE);
  tsbr_init_serialization(dll);
}
}
