/* Structural verification: operands are defined before use and visible,
 * regions end in the right terminator, symbols resolve; then each op's own
 * rule from the op table. */
#include "verify.h"

#include "support/ptrset.h"

static const verify_fn verify_table[OP_COUNT] = {
#define OP(id, name, traits, syn, ver, ker) [OP_##id] = verify_##ver,
#include "ir/ops.def"
#undef OP
};

static shl_status verify_region(const verify_ctx *vc, shl_ptrset *vs, const shl_region *r);

static shl_status verify_op(const verify_ctx *vc, shl_ptrset *vs, const shl_op *op) {
  for (uint32_t i = 0; i < op->n_operands; i++) {
    if (!op->operands[i]) return op_error(op, SHLOC_ERR_VERIFY, "operand #%u is null", i);
    if (!ptrset_has(vs, op->operands[i]))
      return op_error(op, SHLOC_ERR_VERIFY, "operand #%u does not dominate this use (defined later, in another region, or not visible)", i);
  }
  if ((op->def->traits & T_TERM) && op->next)
    return op_error(op, SHLOC_ERR_VERIFY, "must be the last operation of its block");
  size_t mark = ptrset_mark(vs);
  bool isolated = op->def->traits & T_ISO;
  if (isolated) {
    /* Nothing from outside is visible inside. */
    shl_ptrset inner = {0};
    shl_status st = NULL;
    for (uint32_t r = 0; r < op->n_regions && !st; r++) st = verify_region(vc, &inner, &op->regions[r]);
    bool oom = inner.oom;
    ptrset_free(&inner);
    if (st) return st;
    if (oom) return st_oom();
  } else {
    for (uint32_t r = 0; r < op->n_regions; r++) {
      ST_TRY(verify_region(vc, vs, &op->regions[r]));
      ptrset_rewind(vs, mark);
    }
  }
  ST_TRY(verify_table[op_id(op)](vc, op));
  for (uint32_t i = 0; i < op->n_results; i++) ptrset_add(vs, &op->results[i]);
  return vs->oom ? st_oom() : NULL;
}

static shl_status verify_region(const verify_ctx *vc, shl_ptrset *vs, const shl_region *r) {
  size_t mark = ptrset_mark(vs);
  for (uint32_t b = 0; b < r->n_blocks; b++) {
    const shl_block *blk = r->blocks[b];
    for (uint32_t i = 0; i < blk->n_args; i++) ptrset_add(vs, &blk->args[i]);
    for (const shl_op *op = blk->first; op; op = op->next) ST_TRY(verify_op(vc, vs, op));
  }
  ptrset_rewind(vs, mark);
  return NULL;
}

shl_status shloc_module_verify(shloc_module *m) {
  verify_ctx vc = {m};
  shl_ptrset vs = {0};
  shl_status st = verify_op(&vc, &vs, m->top);
  ptrset_free(&vs);
  return st;
}

/* ------------------------------------------------------------------ helpers */

shl_status vfy_tensor(const shl_op *op, const shl_type *t, const char *what, uint32_t i) {
  if (!t || t->kind != TY_TENSOR) return op_error(op, SHLOC_ERR_VERIFY, "%s #%u must be a tensor", what, i);
  return NULL;
}

shl_status vfy_count(const shl_op *op, uint32_t min_operands, uint32_t max_operands, uint32_t n_results) {
  if (op->n_operands < min_operands || op->n_operands > max_operands) {
    if (min_operands == max_operands)
      return op_error(op, SHLOC_ERR_VERIFY, "expects %u operands, got %u", min_operands, op->n_operands);
    return op_error(op, SHLOC_ERR_VERIFY, "expects %u to %u operands, got %u", min_operands, max_operands, op->n_operands);
  }
  if (op->n_results != n_results)
    return op_error(op, SHLOC_ERR_VERIFY, "expects %u results, got %u", n_results, op->n_results);
  return NULL;
}

bool vfy_shapes_compatible(const shl_type *a, const shl_type *b) {
  if (a->kind != TY_TENSOR || b->kind != TY_TENSOR) return type_eq(a, b);
  if (a->rank < 0 || b->rank < 0) return true;
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] >= 0 && b->dims[i] >= 0 && a->dims[i] != b->dims[i]) return false;
  return true;
}

const shl_op *vfy_lookup_func(const verify_ctx *vc, const shl_attr *symref) {
  if (!symref || symref->kind != AT_SYMREF) return NULL;
  return module_find_func(vc->m, symref->u.sym.root);
}
