/* Structural verification: operands are defined before use and visible,
 * regions end in the right terminator, symbols resolve; then each op's own
 * rule from the op table. */
#include "verify.h"
#include "rules.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "dialects/sdy/sdy.h"

static const verify_fn verify_table[OP_COUNT] = {
#define OP(id, name, traits, syn, ver, ker) [OP_##id] = verify_##ver,
#include "ir/ops.def"
#undef OP
};

/* The values visible at the op being checked carry the current scope's
 * token in their scratch field (shl_value.id): set when the value is
 * defined, cleared when its region ends, so a use checks one field of a
 * value it reads anyway.  Each region isolated from above gets a fresh
 * token, which hides everything outside it.  `defined` lists the marked
 * values in definition order, for clearing. */
typedef struct {
  const verify_ctx *vc;
  uint32_t token;
  shl_value **defined;
  size_t len, cap;
} scope;

/* Tokens are unique in the process, so values of another module (which a
 * built module may wrongly reference) never look visible. */
static atomic_uint next_token = 1;

static uint32_t fresh_token(void) {
  uint32_t t;
  do t = atomic_fetch_add(&next_token, 1);
  while (t == 0);
  return t;
}

static shl_status define(scope *sc, shl_value *v) {
  if (sc->len == sc->cap) {
    size_t ncap = sc->cap ? sc->cap * 2 : 1024;
    shl_value **nd = realloc(sc->defined, ncap * sizeof *nd);
    if (!nd) return st_oom();
    sc->defined = nd;
    sc->cap = ncap;
  }
  v->id = sc->token;
  sc->defined[sc->len++] = v;
  return NULL;
}

/* Hides the values defined since `mark`. */
static void forget(scope *sc, size_t mark) {
  while (sc->len > mark) sc->defined[--sc->len]->id = 0;
}

static shl_status verify_region(scope *sc, const shl_region *r);

static shl_status verify_op(scope *sc, const shl_op *op) {
  for (uint32_t i = 0; i < op->n_operands; i++) {
    if (!op->operands[i]) return op_error(op, SHLOC_ERR_VERIFY, "operand #%u is null", i);
    if (op->operands[i]->id != sc->token)
      return op_error(op, SHLOC_ERR_VERIFY, "operand #%u does not dominate this use (defined later, in another region, or not visible)", i);
  }
  if ((op->def->traits & T_TERM) && op->next)
    return op_error(op, SHLOC_ERR_VERIFY, "must be the last operation of its block");
  uint32_t outer = sc->token;
  if (op->def->traits & T_ISO) sc->token = fresh_token();
  shl_status st = NULL;
  for (uint32_t r = 0; r < op->n_regions && !st; r++) st = verify_region(sc, &op->regions[r]);
  sc->token = outer;
  ST_TRY(st);
  ST_TRY(verify_table[op_id(op)](sc->vc, op));
  ST_TRY(sdy_verify_op_attrs(sc->vc->m, op));
  for (uint32_t i = 0; i < op->n_results; i++) ST_TRY(define(sc, &op->results[i]));
  return NULL;
}

static shl_status verify_region(scope *sc, const shl_region *r) {
  size_t mark = sc->len;
  shl_status st = NULL;
  for (uint32_t b = 0; b < r->n_blocks && !st; b++) {
    shl_block *blk = r->blocks[b];
    for (uint32_t i = 0; i < blk->n_args && !st; i++) st = define(sc, &blk->args[i]);
    for (const shl_op *op = blk->first; op && !st; op = op->next) st = verify_op(sc, op);
  }
  forget(sc, mark);
  return st;
}

shl_status shloc_module_verify(shloc_module *m) {
  verify_ctx vc = {m};
  scope sc = {&vc, fresh_token(), NULL, 0, 0};
  shl_status st = verify_op(&sc, m->top);
  forget(&sc, 0);
  free(sc.defined);
  return st;
}

/* ------------------------------------------------------------------ helpers */

shl_status verify_op_rule(const shloc_module *m, const shl_op *op, verify_shape_fn fn, void *user) {
  verify_ctx vc = {.m = m};
  vfy_set_shape_sink(fn, user);
  shl_status st = verify_table[op_id(op)](&vc, op);
  vfy_set_shape_sink(NULL, NULL);
  return st;
}

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
