/* Public lowering passes and shim generation (include/shloc/lower.h). */
#include <string.h>

#include "codegen/shim.h"
#include "passes/lower_custom_calls.h"
#include "passes/lower_linalg.h"
#include "shloc/lower.h"

/* Whether a declaration the pass made carries call_target_name `target`. */
static bool lowered_target(const shloc_module *m, const char *target) {
  for (shl_op *op = m->top->regions[0].blocks[0]->first; op; op = op->next) {
    const shl_attr *cfg = op_attr(op, PASS_CUSTOM_CALL_ATTR);
    const shl_attr *t =
        cfg && cfg->kind == AT_DICT ? attr_dict_get(cfg->u.dict.items, cfg->u.dict.n, "call_target_name") : NULL;
    if (t && t->kind == AT_STRING && str_eq_c(t->u.str, target)) return true;
  }
  return false;
}

shloc_status shloc_lower_custom_calls(shloc_module *m, const char *const *targets, size_t n_targets, bool *found) {
  pass_lcc_options opts = {targets, n_targets};
  ST_TRY(pass_lower_custom_calls(m, n_targets ? &opts : NULL));
  for (size_t i = 0; found && i < n_targets; i++) found[i] = lowered_target(m, targets[i]);
  return NULL;
}

shloc_status shloc_lower_linalg(shloc_module *m, char **out, size_t *out_len) {
  return pass_lower_linalg(m, out, out_len);
}

bool shloc_is_c_identifier(const char *s) { return shim_is_c_identifier(str_of(s)); }

shloc_status shloc_shim_generate(shloc_module *m, const shloc_shim_binding *bindings, size_t n_bindings,
                                 const char *source_name, char **out, size_t *out_len) {
  shim_options so = {bindings, n_bindings, source_name};
  return shim_emit(m, &so, out, out_len);
}
