/* Structural verification: operands are defined before use and visible,
 * regions end in the right terminator, symbols resolve; then each op's own
 * rule from the op table. */
#include "verify.h"

#include <stdlib.h>


typedef struct {
  const shl_value **key;
  size_t cap, len;
  const shl_value **undo;
  size_t undo_len, undo_cap;
  bool oom;
} value_set;

static size_t vhash(const void *p) { return (size_t)(((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull); }

static bool set_has(const value_set *s, const shl_value *v) {
  if (!s->cap) return false;
  size_t j = vhash(v) & (s->cap - 1);
  while (s->key[j]) {
    if (s->key[j] == v) return true;
    j = (j + 1) & (s->cap - 1);
  }
  return false;
}

static void raw_insert(const shl_value **keys, size_t cap, const shl_value *v) {
  size_t j = vhash(v) & (cap - 1);
  while (keys[j] && keys[j] != v) j = (j + 1) & (cap - 1);
  keys[j] = v;
}

static void set_add(value_set *s, const shl_value *v) {
  if ((s->len + 1) * 2 > s->cap) {
    size_t ncap = s->cap ? s->cap * 2 : 256;
    const shl_value **nk = calloc(ncap, sizeof *nk);
    if (!nk) {
      s->oom = true;
      return;
    }
    for (size_t i = 0; i < s->cap; i++)
      if (s->key[i]) raw_insert(nk, ncap, s->key[i]);
    free(s->key);
    s->key = nk;
    s->cap = ncap;
  }
  raw_insert(s->key, s->cap, v);
  s->len++;
  if (s->undo_len == s->undo_cap) {
    size_t ncap = s->undo_cap ? s->undo_cap * 2 : 256;
    const shl_value **nu = realloc(s->undo, ncap * sizeof *nu);
    if (!nu) {
      s->oom = true;
      return;
    }
    s->undo = nu;
    s->undo_cap = ncap;
  }
  s->undo[s->undo_len++] = v;
}

/* Removes everything added after `mark` (linear probing needs a rebuild). */
static void set_rewind(value_set *s, size_t mark) {
  if (s->undo_len == mark) return;
  s->undo_len = mark;
  memset(s->key, 0, s->cap * sizeof *s->key);
  s->len = 0;
  for (size_t i = 0; i < mark; i++) raw_insert(s->key, s->cap, s->undo[i]), s->len++;
}

static const verify_fn verify_table[OP_COUNT] = {
#define OP(id, name, traits, syn, ver, ker) [OP_##id] = verify_##ver,
#include "ir/ops.def"
#undef OP
};

static shl_status verify_region(const verify_ctx *vc, value_set *vs, const shl_region *r);

static shl_status verify_op(const verify_ctx *vc, value_set *vs, const shl_op *op) {
  for (uint32_t i = 0; i < op->n_operands; i++) {
    if (!op->operands[i]) return op_error(op, SHLOC_ERR_VERIFY, "operand #%u is null", i);
    if (!set_has(vs, op->operands[i]))
      return op_error(op, SHLOC_ERR_VERIFY, "operand #%u does not dominate this use (defined later, in another region, or not visible)", i);
  }
  if ((op->def->traits & T_TERM) && op->next)
    return op_error(op, SHLOC_ERR_VERIFY, "must be the last operation of its block");
  size_t mark = vs->undo_len;
  bool isolated = op->def->traits & T_ISO;
  if (isolated) {
    /* Nothing from outside is visible inside. */
    value_set inner = {0};
    shl_status st = NULL;
    for (uint32_t r = 0; r < op->n_regions && !st; r++) st = verify_region(vc, &inner, &op->regions[r]);
    free(inner.key);
    free(inner.undo);
    if (st) return st;
    if (inner.oom) return st_oom();
  } else {
    for (uint32_t r = 0; r < op->n_regions; r++) {
      ST_TRY(verify_region(vc, vs, &op->regions[r]));
      set_rewind(vs, mark);
    }
  }
  ST_TRY(verify_table[op_id(op)](vc, op));
  for (uint32_t i = 0; i < op->n_results; i++) set_add(vs, &op->results[i]);
  return vs->oom ? st_oom() : NULL;
}

static shl_status verify_region(const verify_ctx *vc, value_set *vs, const shl_region *r) {
  size_t mark = vs->undo_len;
  for (uint32_t b = 0; b < r->n_blocks; b++) {
    const shl_block *blk = r->blocks[b];
    for (uint32_t i = 0; i < blk->n_args; i++) set_add(vs, &blk->args[i]);
    for (const shl_op *op = blk->first; op; op = op->next) ST_TRY(verify_op(vc, vs, op));
  }
  set_rewind(vs, mark);
  return NULL;
}

shl_status shloc_module_verify(shloc_module *m) {
  verify_ctx vc = {m};
  value_set vs = {0};
  shl_status st = verify_op(&vc, &vs, m->top);
  free(vs.key);
  free(vs.undo);
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
