/* Result-type inference for the builder: the result types the StableHLO spec
 * derives from operands, attributes and regions.  Ops whose result shape is an
 * input (broadcast_in_dim, reshape, iota, convert, custom_call, ...) have no
 * rule here; their typed builders or callers give the types.  The verifier
 * rule still checks everything afterwards, so a rule here only has to get the
 * valid cases right and fail clearly on the rest. */
#include "builder_impl.h"

#define INFER_ERR(s, ...) bld_error(SHLOC_ERR_VERIFY, (s)->name.p, "cannot infer result types: " __VA_ARGS__)

static const shl_attr *spec_attr(const bld_spec *s, const char *name) {
  for (uint32_t i = 0; i < s->n_attrs; i++)
    if (str_eq_c(s->attrs[i].name, name)) return s->attrs[i].attr;
  return NULL;
}

/* Integers of attribute `name` (or of `a`) into an arena array. */
static shl_status ints_of(shl_arena *a, const bld_spec *s, const char *name, const shl_attr *at, int64_t **out,
                          size_t *n) {
  if (!at) at = spec_attr(s, name);
  if (!at || !attr_as_ints(at, NULL, 0, n)) return INFER_ERR(s, "attribute '%s' is missing or not integers", name);
  *out = ARENA_ARRAY(a, int64_t, *n ? *n : 1);
  if (!*out) return st_oom();
  attr_as_ints(at, *out, *n, n);
  return NULL;
}

/* Three integer attributes with one entry per dimension of `t` (slice's
 * bounds and strides, pad's paddings). */
static shl_status per_dim_lists(shl_arena *a, const bld_spec *s, const shl_type *t, const char *const names[3],
                                int64_t *v[3]) {
  for (int k = 0; k < 3; k++) {
    size_t n;
    ST_TRY(ints_of(a, s, names[k], NULL, &v[k], &n));
    if (n != (size_t)t->rank) return INFER_ERR(s, "attribute '%s' must have %d entries", names[k], t->rank);
  }
  return NULL;
}

static shl_status ranked(const bld_spec *s, uint32_t i, const shl_type **out) {
  if (i >= s->n_operands) return INFER_ERR(s, "expected at least %u operands", i + 1);
  const shl_type *t = s->operands[i]->type;
  if (t->kind != TY_TENSOR || t->rank < 0) return INFER_ERR(s, "operand #%u must be a ranked tensor", i);
  *out = t;
  return NULL;
}

/* A tensor of `like`'s element type (quantization included) and the given shape. */
static const shl_type *shaped(shl_arena *a, const shl_type *like, int64_t rank, const int64_t *dims) {
  shl_type *t = type_tensor(a, like->dtype, (int32_t)rank, dims);
  if (t) t->quant = like->quant;
  return t;
}

static shl_dtype real_of(shl_dtype dt) { return dt == DT_C64 ? DT_F32 : dt == DT_C128 ? DT_F64 : dt; }

/* The terminator of region #r's (single) block, or NULL. */
static const shl_op *region_term(const bld_spec *s, uint32_t r) {
  if (r >= s->n_regions || !s->regions[r] || !s->regions[r]->r.n_blocks) return NULL;
  const shl_op *t = s->regions[r]->r.blocks[0]->last;
  return t && (t->def->traits & T_TERM) ? t : NULL;
}

typedef struct {
  const shl_type **v;
  uint32_t n;
} type_list;

static shl_status list_new(shl_arena *a, uint32_t n, type_list *out) {
  out->v = ARENA_ARRAY(a, const shl_type *, n ? n : 1);
  out->n = n;
  return out->v ? NULL : st_oom();
}

static shl_status one(shl_arena *a, const shl_type *t, type_list *out) {
  if (!t) return st_oom();
  ST_TRY(list_new(a, 1, out));
  out->v[0] = t;
  return NULL;
}

/* Types of operands [from, from + n). */
static shl_status operand_types(shl_arena *a, const bld_spec *s, uint32_t from, uint32_t n, type_list *out) {
  if (from + n > s->n_operands) return INFER_ERR(s, "expected at least %u operands", from + n);
  ST_TRY(list_new(a, n, out));
  for (uint32_t i = 0; i < n; i++) out->v[i] = s->operands[from + i]->type;
  return NULL;
}

static shl_status terminator_types(shl_arena *a, const bld_spec *s, uint32_t r, type_list *out) {
  const shl_op *t = region_term(s, r);
  if (!t) return INFER_ERR(s, "region #%u must end with its return", r);
  ST_TRY(list_new(a, t->n_operands, out));
  for (uint32_t i = 0; i < t->n_operands; i++) out->v[i] = t->operands[i]->type;
  return NULL;
}

/* Result types of calling the function a symbol attribute names. */
static shl_status callee_types(shloc_module *m, const bld_spec *s, const char *attr, type_list *out) {
  const shl_attr *sym = spec_attr(s, attr);
  if (!sym || sym->kind != AT_SYMREF) return INFER_ERR(s, "attribute '%s' must name a function", attr);
  const shl_op *f = module_find_func(m, sym->u.sym.root);
  const shl_type *ft = f ? func_type(f) : NULL;
  if (!ft) return INFER_ERR(s, "no function %.*s in this module", (int)(sym->u.str.n > 64 ? 64 : sym->u.str.n), sym->u.str.p);
  ST_TRY(list_new(&m->arena, ft->n_out, out));
  for (uint32_t i = 0; i < ft->n_out; i++) out->v[i] = ft->out[i];
  return NULL;
}

/* ------------------------------------------------------------------ rules */

static bool ew_inferable(shl_opid id) {
  return (shl_op_table[id].traits & T_EW) && id != OP_CONVERT && id != OP_UNIFORM_QUANTIZE &&
         id != OP_UNIFORM_DEQUANTIZE;
}

static shl_status infer_ew(shl_arena *a, const bld_spec *s, type_list *out) {
  shl_opid id = s->def->id;
  if (!s->n_operands) return INFER_ERR(s, "no operands");
  const shl_type *t = s->operands[0]->type;
  switch (id) {
    case OP_SELECT:
    case OP_CLAMP:
      if (s->n_operands < 2) return INFER_ERR(s, "expected 3 operands");
      return one(a, s->operands[1]->type, out);
    default:
      break;
  }
  if (t->kind != TY_TENSOR) return one(a, t, out);
  switch (id) {
    case OP_COMPARE:
    case OP_IS_FINITE:
    case OP_CHLO_IS_INF:
    case OP_CHLO_IS_NEG_INF:
    case OP_CHLO_IS_POS_INF:
      return one(a, bld_tensor_like(a, t, DT_I1), out);
    case OP_REAL:
    case OP_IMAG:
    case OP_ABS:
      return one(a, dtype_is_complex(t->dtype) ? bld_tensor_like(a, t, real_of(t->dtype)) : t, out);
    case OP_COMPLEX:
      if (t->dtype != DT_F32 && t->dtype != DT_F64) return INFER_ERR(s, "operands must be f32 or f64");
      return one(a, bld_tensor_like(a, t, t->dtype == DT_F32 ? DT_C64 : DT_C128), out);
    default:
      return one(a, t, out);
  }
}

static shl_status infer_transpose(shl_arena *a, const bld_spec *s, type_list *out) {
  const shl_type *t = NULL;
  int64_t *perm;
  size_t n;
  ST_TRY(ranked(s, 0, &t));
  ST_TRY(ints_of(a, s, "permutation", NULL, &perm, &n));
  if (n != (size_t)t->rank) return INFER_ERR(s, "permutation has %zu entries for rank %d", n, t->rank);
  int64_t *d = ARENA_ARRAY(a, int64_t, n ? n : 1);
  if (!d) return st_oom();
  for (size_t i = 0; i < n; i++) {
    if (perm[i] < 0 || perm[i] >= t->rank) return INFER_ERR(s, "permutation entry %lld is out of range", (long long)perm[i]);
    d[i] = t->dims[perm[i]];
  }
  return one(a, shaped(a, t, (int64_t)n, d), out);
}

static shl_status infer_slice(shl_arena *a, const bld_spec *s, type_list *out) {
  static const char *const names[3] = {"start_indices", "limit_indices", "strides"};
  const shl_type *t = NULL;
  int64_t *v[3];
  ST_TRY(ranked(s, 0, &t));
  ST_TRY(per_dim_lists(a, s, t, names, v));
  const int64_t *lo = v[0], *hi = v[1], *st = v[2];
  int64_t *d = ARENA_ARRAY(a, int64_t, t->rank ? (size_t)t->rank : 1);
  if (!d) return st_oom();
  for (int32_t i = 0; i < t->rank; i++) {
    if (st[i] <= 0 || lo[i] < 0 || hi[i] < lo[i]) return INFER_ERR(s, "bad slice bounds in dimension %d", i);
    d[i] = (int64_t)(((__int128)hi[i] - lo[i] + st[i] - 1) / st[i]); /* wide: user-given bounds */
  }
  return one(a, shaped(a, t, t->rank, d), out);
}

static shl_status infer_concatenate(shl_arena *a, const bld_spec *s, type_list *out) {
  const shl_type *t0 = NULL;
  ST_TRY(ranked(s, 0, &t0));
  int64_t dim;
  if (!attr_as_int(spec_attr(s, "dimension"), &dim) || dim < 0 || dim >= t0->rank)
    return INFER_ERR(s, "attribute 'dimension' is missing or out of range");
  int64_t *d = ARENA_ARRAY(a, int64_t, (size_t)t0->rank);
  if (!d) return st_oom();
  memcpy(d, t0->dims, (size_t)t0->rank * sizeof *d);
  d[dim] = 0;
  for (uint32_t i = 0; i < s->n_operands; i++) {
    const shl_type *t = NULL;
    ST_TRY(ranked(s, i, &t));
    if (t->rank != t0->rank) return INFER_ERR(s, "operands must have the same rank");
    if (d[dim] == SHL_DYN || t->dims[dim] == SHL_DYN) d[dim] = SHL_DYN;
    else d[dim] += t->dims[dim];
  }
  return one(a, shaped(a, t0, t0->rank, d), out);
}

static shl_status infer_pad(shl_arena *a, const bld_spec *s, type_list *out) {
  static const char *const names[3] = {"edge_padding_low", "edge_padding_high", "interior_padding"};
  const shl_type *t = NULL;
  int64_t *v[3];
  ST_TRY(ranked(s, 0, &t));
  ST_TRY(per_dim_lists(a, s, t, names, v));
  const int64_t *lo = v[0], *hi = v[1], *in = v[2];
  int64_t *d = ARENA_ARRAY(a, int64_t, t->rank ? (size_t)t->rank : 1);
  if (!d) return st_oom();
  for (int32_t i = 0; i < t->rank; i++) {
    int64_t x = t->dims[i];
    if (x == SHL_DYN) {
      d[i] = SHL_DYN;
      continue;
    }
    if (in[i] < 0) return INFER_ERR(s, "interior padding cannot be negative: %lld", (long long)in[i]);
    __int128 n = (__int128)x + lo[i] + hi[i] + (__int128)(x > 0 ? x - 1 : 0) * in[i]; /* wide: user-given paddings */
    if (n < 0 || n > INT64_MAX) return INFER_ERR(s, "padding makes dimension %d %s", i, n < 0 ? "negative" : "too large");
    d[i] = (int64_t)n;
  }
  return one(a, shaped(a, t, t->rank, d), out);
}

static bool listed(const int64_t *v, size_t n, int64_t x) {
  for (size_t i = 0; i < n; i++)
    if (v[i] == x) return true;
  return false;
}

static shl_status infer_dot_general(shl_arena *a, const bld_spec *s, type_list *out) {
  const shl_type *l = NULL, *r = NULL;
  ST_TRY(ranked(s, 0, &l));
  ST_TRY(ranked(s, 1, &r));
  const shl_attr *dn = spec_attr(s, "dot_dimension_numbers");
  if (!dn || dn->kind != AT_STRUCT) return INFER_ERR(s, "attribute 'dot_dimension_numbers' is missing");
  int64_t *lb = NULL, *rb = NULL, *lc = NULL, *rc = NULL;
  size_t nlb = 0, nrb = 0, nlc = 0, nrc = 0;
  const char *f[4] = {"lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions",
                      "rhs_contracting_dimensions"};
  int64_t **v[4] = {&lb, &rb, &lc, &rc};
  size_t *n[4] = {&nlb, &nrb, &nlc, &nrc};
  for (int k = 0; k < 4; k++) {
    const shl_attr *fa = attr_struct_field(dn, f[k]);
    if (fa) ST_TRY(ints_of(a, s, f[k], fa, v[k], n[k]));
  }
  if (nlb != nrb || nlc != nrc) return INFER_ERR(s, "batching/contracting dimension counts differ");
  size_t rank = nlb + ((size_t)l->rank - nlb - nlc) + ((size_t)r->rank - nrb - nrc);
  if (nlb + nlc > (size_t)l->rank || nrb + nrc > (size_t)r->rank) return INFER_ERR(s, "too many dimensions listed");
  int64_t *d = ARENA_ARRAY(a, int64_t, rank ? rank : 1);
  if (!d) return st_oom();
  size_t k = 0;
  for (size_t i = 0; i < nlb; i++) {
    if (lb[i] < 0 || lb[i] >= l->rank) return INFER_ERR(s, "lhs batching dimension out of range");
    d[k++] = l->dims[lb[i]];
  }
  for (int64_t i = 0; i < l->rank; i++)
    if (!listed(lb, nlb, i) && !listed(lc, nlc, i) && k < rank) d[k++] = l->dims[i];
  for (int64_t i = 0; i < r->rank; i++)
    if (!listed(rb, nrb, i) && !listed(rc, nrc, i) && k < rank) d[k++] = r->dims[i];
  if (k != rank) return INFER_ERR(s, "dimension numbers repeat a dimension");
  return one(a, shaped(a, l, (int64_t)rank, d), out);
}

static shl_status infer_dot(shl_arena *a, const bld_spec *s, type_list *out) {
  const shl_type *l = NULL, *r = NULL;
  ST_TRY(ranked(s, 0, &l));
  ST_TRY(ranked(s, 1, &r));
  if (l->rank < 1 || l->rank > 2 || r->rank < 1 || r->rank > 2) return INFER_ERR(s, "operands must have rank 1 or 2");
  int64_t d[2];
  int64_t rank = 0;
  if (l->rank == 2) d[rank++] = l->dims[0];
  if (r->rank == 2) d[rank++] = r->dims[1];
  return one(a, shaped(a, l, rank, d), out);
}

/* reduce: inputs minus `dimensions`, element types from the body's return. */
static shl_status infer_reduce(shl_arena *a, const bld_spec *s, type_list *out) {
  if (s->n_operands == 0 || s->n_operands % 2) return INFER_ERR(s, "expected inputs followed by as many init values");
  uint32_t n = s->n_operands / 2;
  int64_t *dims;
  size_t nd;
  ST_TRY(ints_of(a, s, "dimensions", NULL, &dims, &nd));
  const shl_op *term = region_term(s, 0);
  if (!term || term->n_operands != n) return INFER_ERR(s, "the body must return %u values", n);
  ST_TRY(list_new(a, n, out));
  for (uint32_t i = 0; i < n; i++) {
    const shl_type *t = NULL, *et = term->operands[i]->type;
    ST_TRY(ranked(s, i, &t));
    if (et->kind != TY_TENSOR) return INFER_ERR(s, "body result #%u must be a tensor", i);
    int64_t *d = ARENA_ARRAY(a, int64_t, (size_t)t->rank + 1);
    if (!d) return st_oom();
    int64_t k = 0;
    for (int64_t j = 0; j < t->rank; j++)
      if (!listed(dims, nd, j)) d[k++] = t->dims[j];
    if ((size_t)(t->rank - k) != nd) return INFER_ERR(s, "'dimensions' must list distinct dimensions of input #%u", i);
    if (!(out->v[i] = shaped(a, et, k, d))) return st_oom();
  }
  return NULL;
}

/* map: operand shape, element type from the body's return. */
static shl_status infer_map(shl_arena *a, const bld_spec *s, type_list *out) {
  const shl_type *t = NULL;
  ST_TRY(ranked(s, 0, &t));
  const shl_op *term = region_term(s, 0);
  if (!term || term->n_operands != 1) return INFER_ERR(s, "the body must return one value");
  return one(a, shaped(a, term->operands[0]->type, t->rank, t->dims), out);
}

static shl_status infer_dynamic_slice(shl_arena *a, const bld_spec *s, type_list *out) {
  const shl_type *t = NULL;
  int64_t *sizes;
  size_t n;
  ST_TRY(ranked(s, 0, &t));
  ST_TRY(ints_of(a, s, "slice_sizes", NULL, &sizes, &n));
  return one(a, shaped(a, t, (int64_t)n, sizes), out);
}

static shl_status infer_get_tuple_element(shl_arena *a, const bld_spec *s, type_list *out) {
  int64_t idx;
  if (!s->n_operands || s->operands[0]->type->kind != TY_TUPLE) return INFER_ERR(s, "operand must be a tuple");
  const shl_type *t = s->operands[0]->type;
  if (!attr_as_int(spec_attr(s, "index"), &idx) || idx < 0 || idx >= t->n_in)
    return INFER_ERR(s, "attribute 'index' is missing or out of range");
  return one(a, t->in[idx], out);
}

static shl_status infer_tuple(shl_arena *a, const bld_spec *s, type_list *out) {
  shl_type *t = ARENA_NEW(a, shl_type);
  const shl_type **in = ARENA_ARRAY(a, const shl_type *, s->n_operands ? s->n_operands : 1);
  if (!t || !in) return st_oom();
  for (uint32_t i = 0; i < s->n_operands; i++) in[i] = s->operands[i]->type;
  t->kind = TY_TUPLE;
  t->n_in = s->n_operands;
  t->in = in;
  return one(a, t, out);
}

static shl_status infer_batch_norm(shl_arena *a, const bld_spec *s, type_list *out) {
  if (s->n_operands < 2) return INFER_ERR(s, "expected operand and scale");
  if (s->def->id == OP_BATCH_NORM_INFERENCE) return one(a, s->operands[0]->type, out);
  ST_TRY(list_new(a, 3, out));
  out->v[0] = s->operands[0]->type;
  out->v[1] = out->v[2] = s->operands[1]->type;
  return NULL;
}

static shl_status infer_top_k(shl_arena *a, const bld_spec *s, type_list *out) {
  const shl_type *t = NULL;
  int64_t k;
  ST_TRY(ranked(s, 0, &t));
  if (t->rank < 1 || !attr_as_int(spec_attr(s, "k"), &k)) return INFER_ERR(s, "needs a ranked operand and 'k'");
  int64_t *d = ARENA_ARRAY(a, int64_t, (size_t)t->rank);
  if (!d) return st_oom();
  memcpy(d, t->dims, (size_t)t->rank * sizeof *d);
  d[t->rank - 1] = k;
  ST_TRY(list_new(a, 2, out));
  out->v[0] = shaped(a, t, t->rank, d);
  out->v[1] = type_tensor(a, DT_I32, t->rank, d);
  return out->v[0] && out->v[1] ? NULL : st_oom();
}

bool bld_can_infer(const shl_opdef *def) {
  switch (def->id) {
    case OP_TRANSPOSE: case OP_REVERSE: case OP_SLICE: case OP_CONCATENATE: case OP_PAD: case OP_DOT_GENERAL:
    case OP_DOT: case OP_REDUCE: case OP_MAP: case OP_SORT: case OP_WHILE: case OP_IF: case OP_CASE:
    case OP_OPTIMIZATION_BARRIER: case OP_FUNC_CALL: case OP_COMPOSITE: case OP_TUPLE: case OP_GET_TUPLE_ELEMENT:
    case OP_AFTER_ALL: case OP_CREATE_TOKEN: case OP_GET_DIMENSION_SIZE: case OP_DYNAMIC_SLICE:
    case OP_DYNAMIC_UPDATE_SLICE: case OP_BATCH_NORM_INFERENCE: case OP_BATCH_NORM_TRAINING:
    case OP_BATCH_NORM_GRAD: case OP_CHOLESKY: case OP_TRIANGULAR_SOLVE: case OP_SCATTER:
    case OP_SELECT_AND_SCATTER: case OP_REPLICA_ID: case OP_PARTITION_ID: case OP_CHLO_TOP_K:
      return true;
    default:
      return ew_inferable(def->id);
  }
}

shl_status bld_infer(shloc_module *m, const bld_spec *s, const shl_type ***types, uint32_t *n) {
  shl_arena *a = &m->arena;
  type_list out = {0};
  shl_status st;
  switch (s->def->id) {
    case OP_TRANSPOSE: st = infer_transpose(a, s, &out); break;
    case OP_SLICE: st = infer_slice(a, s, &out); break;
    case OP_CONCATENATE: st = infer_concatenate(a, s, &out); break;
    case OP_PAD: st = infer_pad(a, s, &out); break;
    case OP_DOT_GENERAL: st = infer_dot_general(a, s, &out); break;
    case OP_DOT: st = infer_dot(a, s, &out); break;
    case OP_REDUCE: st = infer_reduce(a, s, &out); break;
    case OP_MAP: st = infer_map(a, s, &out); break;
    case OP_DYNAMIC_SLICE: st = infer_dynamic_slice(a, s, &out); break;
    case OP_GET_TUPLE_ELEMENT: st = infer_get_tuple_element(a, s, &out); break;
    case OP_TUPLE: st = infer_tuple(a, s, &out); break;
    case OP_BATCH_NORM_INFERENCE:
    case OP_BATCH_NORM_TRAINING:
    case OP_BATCH_NORM_GRAD: st = infer_batch_norm(a, s, &out); break;
    case OP_CHLO_TOP_K: st = infer_top_k(a, s, &out); break;
    case OP_REVERSE:
    case OP_DYNAMIC_UPDATE_SLICE:
    case OP_CHOLESKY:
    case OP_SELECT_AND_SCATTER: st = operand_types(a, s, 0, 1, &out); break;
    case OP_TRIANGULAR_SOLVE: st = operand_types(a, s, 1, 1, &out); break;
    case OP_SORT:
    case OP_WHILE:
    case OP_OPTIMIZATION_BARRIER: st = operand_types(a, s, 0, s->n_operands, &out); break;
    case OP_SCATTER: st = operand_types(a, s, 0, (s->n_operands - (s->n_operands ? 1 : 0)) / 2, &out); break;
    case OP_IF:
    case OP_CASE: st = terminator_types(a, s, 0, &out); break;
    case OP_FUNC_CALL: st = callee_types(m, s, "callee", &out); break;
    case OP_COMPOSITE: st = callee_types(m, s, "decomposition", &out); break;
    case OP_AFTER_ALL:
    case OP_CREATE_TOKEN: st = one(a, type_token(a), &out); break;
    case OP_GET_DIMENSION_SIZE: st = one(a, type_tensor(a, DT_I32, 0, NULL), &out); break;
    case OP_REPLICA_ID:
    case OP_PARTITION_ID: st = one(a, type_tensor(a, DT_UI32, 0, NULL), &out); break;
    default:
      if (!ew_inferable(s->def->id))
        return bld_error(SHLOC_ERR_INVALID_ARG, s->name.p, "has no result-type inference; give the result types");
      st = infer_ew(a, s, &out);
  }
  if (st) return st;
  *types = out.v;
  *n = out.n;
  return NULL;
}
