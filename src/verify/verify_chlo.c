/* Rules of chlo.ragged_dot and chlo.scan (ChloOps.cpp at StableHLO HEAD:
 * RaggedDotOp::verify / inferRaggedDotOp and ScanOp::verify /
 * inferReturnTypeComponents); messages follow upstream's. */
#include <stdio.h>

#include "rules.h"

/* ------------------------------------------------------------------ ragged_dot */

static const char *const ragged_fields[] = {"lhs_batching_dimensions",    "rhs_batching_dimensions",
                                            "lhs_contracting_dimensions", "rhs_contracting_dimensions",
                                            "lhs_ragged_dimensions",      "rhs_group_dimensions"};

/* #chlo.ragged_dot<...> holds only its six fields, each at most once. */
static shl_status ragged_attr(const shl_op *op, const shl_attr **out) {
  const shl_attr *dn = op_attr(op, "ragged_dot_dimension_numbers");
  if (!dn || dn->kind != AT_STRUCT || !str_eq_c(dn->u.st.name, "chlo.ragged_dot"))
    return VFY_ERR(op, "requires attribute 'ragged_dot_dimension_numbers' of kind #chlo.ragged_dot<...>");
  for (uint32_t i = 0; i < dn->u.st.n; i++) {
    shl_str f = dn->u.st.fields[i].name;
    bool known = false;
    for (size_t k = 0; k < sizeof ragged_fields / sizeof *ragged_fields; k++) known |= str_eq_c(f, ragged_fields[k]);
    if (!known) return VFY_ERR(op, "unknown ragged_dot field '%.*s'", (int)(f.n > 64 ? 64 : f.n), f.p);
    for (uint32_t j = 0; j < i; j++)
      if (str_eq(f, dn->u.st.fields[j].name)) return VFY_ERR(op, "duplicated `%.*s` entry", (int)(f.n > 64 ? 64 : f.n), f.p);
  }
  *out = dn;
  return NULL;
}

shl_status verify_ragged_dot(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 3, 1));
  ST_TRY(vfy_precision_config(op));
  const shl_type *l = vfy_otype(op, 0), *r = vfy_otype(op, 1), *gs = vfy_otype(op, 2);
  ST_TRY(vfy_elem_in(op, "operand #2 (group_sizes)", gs, EK_INT, "integer"));
  const shl_attr *dn = NULL;
  ST_TRY(ragged_attr(op, &dn));
  vfy_ints lb, rb, lc, rc, lr, rg;
  ST_TRY(vfy_dot_dims(op, l, r, dn, &lb, &rb, &lc, &rc));
  ST_TRY(vfy_ints_field(op, dn, "lhs_ragged_dimensions", true, &lr));
  ST_TRY(vfy_ints_field(op, dn, "rhs_group_dimensions", true, &rg));
  if (lr.n != 1) return VFY_ERR(op, "There must be exactly one ragged dimension in the lhs.");
  if (l->rank < 0 || r->rank < 0 || gs->rank < 0) return NULL;
  int64_t ragged = vfy_int_at(&lr, 0);
  if (ragged < 0 || ragged >= l->rank)
    return VFY_ERR(op, "lhs_ragged_dim (%lld) must be in range [0, lhs_rank) (%d)", (long long)ragged, l->rank);
  if (gs->rank < 1) return VFY_ERR(op, "group_sizes must have rank >= 1, got %s", vfy_tstr(gs));
  bool batch = vfy_ints_contains(&lb, ragged), contracting = !batch && vfy_ints_contains(&lc, ragged);
  /* group_sizes is [g] or [b..., x..., g]: b the lhs batching dims (those
   * before the ragged one when it is a batch dim), x the contracting dims
   * before it (mode 2) or the free dims before it (mode 1). */
  int64_t prefix[2 * 64 + 1];
  size_t np = 0;
  for (size_t i = 0; i < lb.n && np < 64; i++) {
    if (batch && vfy_int_at(&lb, i) == ragged) break;
    prefix[np++] = vfy_int_at(&lb, i);
  }
  if (contracting)
    for (size_t i = 0; i < lc.n && vfy_int_at(&lc, i) != ragged && np < 128; i++) prefix[np++] = vfy_int_at(&lc, i);
  if (!batch && !contracting)
    for (int64_t d = 0; d < ragged && np < 128; d++)
      if (!vfy_ints_contains(&lb, d) && !vfy_ints_contains(&lc, d)) prefix[np++] = d;
  if (gs->rank != 1) {
    if ((size_t)gs->rank != np + 1)
      return VFY_ERR(op, "expected group_sizes to have rank %zu, got %d", np + 1, gs->rank);
    for (size_t i = 0; i < np; i++) {
      if (vfy_dims_compat(gs->dims[i], l->dims[prefix[i]])) continue;
      char want[512], got[512];
      size_t w = 0, g = 0;
      for (size_t k = 0; k <= np; k++) {
        int64_t e = k < np ? l->dims[prefix[k]] : gs->dims[np], a = gs->dims[k];
        w += (size_t)snprintf(want + w, w < sizeof want ? sizeof want - w : 0, "%s%lld", k ? ", " : "", (long long)e);
        g += (size_t)snprintf(got + g, g < sizeof got ? sizeof got - g : 0, "%s%lld", k ? ", " : "", (long long)a);
        if (w >= sizeof want || g >= sizeof got) break;
      }
      return VFY_ERR(op, "group_sizes is expected to have shape [%s], got [%s]", want, got);
    }
  }
  int64_t groups = gs->dims[gs->rank - 1];
  ST_TRY(vfy_dims(op, &rg, r->rank, false));
  for (size_t i = 0; i < rg.n; i++) {
    int64_t g = vfy_int_at(&rg, i);
    if (vfy_ints_contains(&rb, g) || vfy_ints_contains(&rc, g))
      return VFY_ERR(op, "has duplicated dimension from rhs_group_dimensions and %s: %lld",
                     vfy_ints_contains(&rb, g) ? "rhs_batching_dimensions" : "rhs_contracting_dimensions", (long long)g);
  }
  if (batch || contracting) {
    if (rg.n)
      return VFY_ERR(op, "There must be zero group dimensions in the rhs when the ragged dimension is batch or "
                         "contracting.");
  } else {
    if (rg.n != 1)
      return VFY_ERR(op, "There must be exactly one group dimension in the rhs when the lhs ragged dimension is "
                         "non-contracting.");
    int64_t have = r->dims[vfy_int_at(&rg, 0)];
    if (!vfy_dims_compat(groups, have))
      return VFY_ERR(op, "rhs group dimension is expected to have size=%lld, got %lld", (long long)groups, (long long)have);
  }
  /* [g (mode 2)], lhs batch, lhs free, rhs free (not batch, contracting or group) */
  vfy_shape sh;
  if (!vfy_shape_init(&sh, (contracting ? 1 : 0) + (int64_t)l->rank + r->rank - (int64_t)(lc.n + rb.n + rc.n + rg.n)))
    return st_oom();
  int64_t k = 0;
  if (contracting) sh.d[k++] = groups;
  for (size_t i = 0; i < lb.n; i++) sh.d[k++] = l->dims[vfy_int_at(&lb, i)];
  for (int32_t d = 0; d < l->rank; d++)
    if (!vfy_ints_contains(&lb, d) && !vfy_ints_contains(&lc, d)) sh.d[k++] = l->dims[d];
  for (int32_t d = 0; d < r->rank; d++)
    if (!vfy_ints_contains(&rb, d) && !vfy_ints_contains(&rc, d) && !vfy_ints_contains(&rg, d)) sh.d[k++] = r->dims[d];
  return vfy_shape_check(op, "result", vfy_rtype(op, 0), &sh);
}

/* ------------------------------------------------------------------ scan */

/* array<i32: a, b> of a segment-size property. */
static shl_status segments(const shl_op *op, const char *name, uint32_t total, int64_t seg[2]) {
  size_t n = 0;
  if (!attr_as_ints(op_attr(op, name), seg, 2, &n) || n != 2 || seg[0] < 0 || seg[1] < 0 ||
      seg[0] + seg[1] != (int64_t)total)
    return VFY_ERR(op, "requires '%s' of two sizes adding up to %u", name, total);
  return NULL;
}

shl_status verify_scan(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  int64_t oseg[2], rseg[2];
  ST_TRY(segments(op, "operandSegmentSizes", op->n_operands, oseg));
  ST_TRY(segments(op, "resultSegmentSizes", op->n_results, rseg));
  uint32_t n_in = (uint32_t)oseg[0], n_carry = (uint32_t)oseg[1], n_out = (uint32_t)rseg[0];
  if (rseg[1] != oseg[1]) return VFY_ERR(op, "expects as many carries as inits (%u), got %lld", n_carry, (long long)rseg[1]);
  for (uint32_t i = 0; i < op->n_operands; i++) ST_TRY(vfy_tensor(op, vfy_otype(op, i), "operand", i));
  for (uint32_t i = 0; i < op->n_results; i++) ST_TRY(vfy_tensor(op, vfy_rtype(op, i), "result", i));
  int64_t dim, size;
  ST_TRY(vfy_int_attr(op, "dimension", false, 0, &dim));
  for (int i = 0; i < 2; i++) { /* I64Attr, as the pretty form prints them untyped */
    const shl_attr *a = op_attr(op, i ? "scan_dim_size" : "dimension");
    if (a && a->kind == AT_INT && a->type && a->type->dtype != DT_I64)
      return VFY_ERR(op, "attribute '%s' must be a 64-bit integer", i ? "scan_dim_size" : "dimension");
  }
  if (dim < 0) return VFY_ERR(op, "attribute 'dimension' must be non-negative, got %lld", (long long)dim);
  ST_TRY(vfy_int_attr(op, "scan_dim_size", true, -1, &size));
  if (op_attr(op, "scan_dim_size") && size < 0)
    return VFY_ERR(op, "attribute 'scan_dim_size' must be non-negative, got %lld", (long long)size);
  bool b;
  ST_TRY(vfy_bool_attr(op, "is_reverse", false, &b));
  ST_TRY(vfy_bool_attr(op, "is_associative", false, &b));
  if (n_in == 0 && n_out == 0) return VFY_ERR(op, "at least one of inputs or outputs must be present");
  for (uint32_t i = 0; i < n_in; i++) {
    const shl_type *t = vfy_otype(op, i);
    if (t->rank < 0) return VFY_ERR(op, "operand %u is not ranked", i);
    if (dim >= t->rank) return VFY_ERR(op, "scan dimension of operand %u is out of bounds", i);
    if (t->dims[dim] < 0) continue;
    if (size >= 0 && size != t->dims[dim]) return VFY_ERR(op, "invalid scan dimension size of operand %u", i);
    size = t->dims[dim];
  }
  const shl_block *blk;
  const shl_op *term;
  if (op->n_regions != 1 || op->regions[0].n_blocks != 1) return VFY_ERR(op, "expects one region with one block");
  blk = op->regions[0].blocks[0];
  if (blk->n_args != op->n_operands)
    return VFY_ERR(op, "expects %u arguments in the body, but got %u", op->n_operands, blk->n_args);
  for (uint32_t i = 0; i < op->n_operands; i++) {
    const shl_type *t = vfy_otype(op, i), *a = blk->args[i].type;
    bool ok = vfy_is_tensor(a) && vfy_elem_compat(t, a);
    if (ok && t->rank >= 0 && a->rank >= 0) {
      int32_t want = i < n_in ? t->rank - 1 : t->rank;
      ok = a->rank == want;
      for (int32_t d = 0, s = 0; ok && d < t->rank; d++) {
        if (i < n_in && d == dim) continue;
        ok = vfy_dims_compat(t->dims[d], a->dims[s++]);
      }
    }
    if (!ok) return VFY_ERR(op, "operand and body argument %u are incompatible", i);
  }
  ST_TRY(vfy_region(op, 0, OP_RETURN, &blk, &term));
  if (term->n_operands < n_carry)
    return VFY_ERR(op, "ScanOp body must return at least %u values (carries)", n_carry);
  if (term->n_operands != op->n_results)
    return VFY_ERR(op, "body returns %u values, but the op has %u results", term->n_operands, op->n_results);
  /* Inferred results: outputs are the body's with the scan dimension
   * inserted, carries the body's as they are. */
  for (uint32_t i = 0; i < op->n_results; i++) {
    const shl_type *e = vfy_otype(term, i), *res = vfy_rtype(op, i);
    if (!vfy_is_tensor(e) || e->rank < 0) return VFY_ERR(op, "terminator operand %u is not ranked", i);
    if (!vfy_elem_compat(e, res))
      return VFY_ERR(op, "result #%u type %s is incompatible with the body's result %s", i, vfy_tstr(res), vfy_tstr(e));
    if (res->rank < 0) continue;
    bool out = i < n_out;
    if (out && dim > e->rank) return VFY_ERR(op, "scan dimension of result %u is out of bounds", i);
    vfy_shape sh;
    if (!vfy_shape_init(&sh, e->rank + (out ? 1 : 0))) return st_oom();
    for (int64_t d = 0, s = 0; d < sh.rank; d++) sh.d[d] = out && d == dim ? (size >= 0 ? size : SHL_DYN) : e->dims[s++];
    ST_TRY(vfy_shape_check(op, vfy_fmt("result #%u", i), res, &sh));
  }
  return NULL;
}
