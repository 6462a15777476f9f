/* Helpers shared by the per-op rules: safe attribute readers, element-type
 * classes, compatibility checks, inferred-shape comparison and region
 * signatures. */
#include "rules.h"

#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------------ messages */

#define VFY_RING 8
#define VFY_BUF 320

static _Thread_local char ring[VFY_RING][VFY_BUF];
static _Thread_local unsigned ring_next;

static char *ring_take(void) {
  char *b = ring[ring_next++ % VFY_RING];
  b[0] = 0;
  return b;
}

const char *vfy_fmt(const char *fmt, ...) {
  char *b = ring_take();
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b, VFY_BUF, fmt, ap);
  va_end(ap);
  return b;
}

typedef struct {
  char *b;
  size_t n;
} tbuf;

static void tput(tbuf *t, const char *s, size_t len) {
  size_t room = VFY_BUF - 1 - t->n;
  if (len > room) len = room;
  memcpy(t->b + t->n, s, len);
  t->n += len;
  t->b[t->n] = 0;
}

static void tputs(tbuf *t, const char *s) { tput(t, s, strlen(s)); }

static void telem(tbuf *t, const shl_type *ty) {
  if (ty->dtype == DT_QUANT && ty->quant) tput(t, ty->quant->text.p, ty->quant->text.n);
  else if (ty->dtype > DT_INVALID && ty->dtype < DT_COUNT) tputs(t, dtype_name(ty->dtype));
  else tputs(t, "<invalid>");
}

static void ttype(tbuf *t, const shl_type *ty, int depth);

static void tlist(tbuf *t, const shl_type *const *v, uint32_t n, int depth) {
  for (uint32_t i = 0; i < n; i++) {
    if (i) tputs(t, ", ");
    ttype(t, v[i], depth + 1);
  }
}

static void ttype(tbuf *t, const shl_type *ty, int depth) {
  if (!ty) {
    tputs(t, "<null>");
    return;
  }
  if (depth > 8) {
    tputs(t, "...");
    return;
  }
  char num[32];
  switch (ty->kind) {
    case TY_TENSOR:
    case TY_MEMREF:
      tputs(t, ty->kind == TY_MEMREF ? "memref<" : "tensor<");
      if (ty->rank < 0) tputs(t, "*x");
      for (int32_t i = 0; i < ty->rank && t->n < VFY_BUF - 1; i++) {
        if (ty->dims[i] < 0) tputs(t, "?x");
        else {
          snprintf(num, sizeof num, "%lldx", (long long)ty->dims[i]);
          tputs(t, num);
        }
      }
      telem(t, ty);
      tputs(t, ">");
      return;
    case TY_SCALAR:
      telem(t, ty);
      return;
    case TY_TOKEN:
      tputs(t, "!stablehlo.token");
      return;
    case TY_NONE:
      tputs(t, "none");
      return;
    case TY_TUPLE:
      tputs(t, ty->future ? "!stablehlo.future<" : "tuple<");
      tlist(t, ty->in, ty->n_in, depth);
      tputs(t, ">");
      return;
    case TY_FUNCTION:
      tputs(t, "(");
      tlist(t, ty->in, ty->n_in, depth);
      tputs(t, ") -> (");
      tlist(t, ty->out, ty->n_out, depth);
      tputs(t, ")");
      return;
    case TY_OPAQUE:
      tput(t, ty->text.p, ty->text.n);
      return;
  }
}

const char *vfy_tstr(const shl_type *t) {
  tbuf b = {ring_take(), 0};
  ttype(&b, t, 0);
  return b.b;
}

/* ------------------------------------------------------------------ operands */

shl_status vfy_all_tensors(const shl_op *op, uint32_t n_operands, uint32_t n_results) {
  ST_TRY(vfy_count(op, n_operands, n_operands, n_results));
  for (uint32_t i = 0; i < op->n_operands; i++) ST_TRY(vfy_tensor(op, vfy_otype(op, i), "operand", i));
  for (uint32_t i = 0; i < op->n_results; i++) ST_TRY(vfy_tensor(op, vfy_rtype(op, i), "result", i));
  return NULL;
}

shl_status vfy_rank(const shl_op *op, const char *what, const shl_type *t, int32_t rank) {
  if (!vfy_is_tensor(t)) return VFY_ERR(op, "%s must be a tensor, got %s", what, vfy_tstr(t));
  if (t->rank >= 0 && t->rank != rank)
    return VFY_ERR(op, "%s must have rank %d, got %s", what, (int)rank, vfy_tstr(t));
  return NULL;
}

/* ------------------------------------------------------------------ elements */

unsigned vfy_elem_kind(const shl_type *t) {
  if (!t || (t->kind != TY_TENSOR && t->kind != TY_SCALAR)) return 0;
  if (t->dtype == DT_I1) return EK_PRED;
  if (t->dtype <= DT_INVALID || t->dtype >= DT_COUNT) return 0;
  switch (dtype_class(t->dtype)) {
    case DTC_BOOL: return EK_PRED;
    case DTC_SINT: return EK_SINT;
    case DTC_UINT: return EK_UINT;
    case DTC_FLOAT: return EK_FLOAT;
    case DTC_COMPLEX: return EK_COMPLEX;
    case DTC_QUANT: return EK_QUANT;
  }
  return 0;
}

shl_status vfy_elem_in(const shl_op *op, const char *what, const shl_type *t, unsigned kinds, const char *desc) {
  if (!(vfy_elem_kind(t) & kinds))
    return VFY_ERR(op, "%s must be a tensor of %s values, got %s", what, desc, vfy_tstr(t));
  return NULL;
}

static shl_dtype expressed(const shl_type *t) {
  return t->dtype == DT_QUANT && t->quant ? t->quant->expressed : t->dtype;
}

bool vfy_elem_compat(const shl_type *a, const shl_type *b) {
  if (a->dtype != DT_QUANT && b->dtype != DT_QUANT) return a->dtype == b->dtype;
  if (a->dtype == DT_QUANT && b->dtype == DT_QUANT) {
    if (!a->quant || !b->quant) return a->quant == b->quant;
    const shl_quant *qa = a->quant, *qb = b->quant;
    if (qa->storage != qb->storage || qa->storage_min != qb->storage_min || qa->storage_max != qb->storage_max)
      return false;
  }
  return expressed(a) == expressed(b);
}

bool vfy_elem_compat_fp(const shl_type *a, const shl_type *b) {
  if (vfy_elem_kind(a) == EK_FLOAT && vfy_elem_kind(b) == EK_FLOAT) return true;
  return vfy_elem_compat(a, b);
}

/* The spec's is_promotable with floats of any precision allowed (as
 * upstream's reducer check does): same kind (integers of either signedness
 * and i1 together; quantized with the same expressed type) and no more bits. */
static bool elem_promotable(const shl_type *from, const shl_type *to) {
  unsigned kf = vfy_elem_kind(from), kt = vfy_elem_kind(to), ints = EK_PRED | EK_SINT | EK_UINT;
  if (kf == EK_FLOAT && kt == EK_FLOAT) return true;
  if (!((kf & ints) && (kt & ints)) && kf != kt) return false;
  if (kf == EK_QUANT && (!from->quant || !to->quant || expressed(from) != expressed(to))) return false;
  return dtype_bits(type_storage_dtype(from)) <= dtype_bits(type_storage_dtype(to));
}

static bool shapes_compat(const shl_type *a, const shl_type *b) {
  if (a->rank < 0 || b->rank < 0) return true;
  if (a->rank != b->rank) return false;
  for (int32_t i = 0; i < a->rank; i++)
    if (!vfy_dims_compat(a->dims[i], b->dims[i])) return false;
  return true;
}

bool vfy_types_compat(const shl_type *a, const shl_type *b) {
  if (!a || !b) return a == b;
  if (a->kind == TY_TENSOR && b->kind == TY_TENSOR) return shapes_compat(a, b) && vfy_elem_compat(a, b);
  if (a->kind == TY_TUPLE && b->kind == TY_TUPLE) {
    if (a->future != b->future || a->n_in != b->n_in) return false;
    for (uint32_t i = 0; i < a->n_in; i++)
      if (!vfy_types_compat(a->in[i], b->in[i])) return false;
    return true;
  }
  return type_eq(a, b);
}

shl_status vfy_expect_compat(const shl_op *op, const char *what_a, const shl_type *a, const char *what_b,
                             const shl_type *b) {
  if (vfy_types_compat(a, b)) return NULL;
  return VFY_ERR(op, "%s type %s is incompatible with %s type %s", what_a, vfy_tstr(a), what_b, vfy_tstr(b));
}

shl_status vfy_expect_same_shape(const shl_op *op, const char *what_a, const shl_type *a, const char *what_b,
                                 const shl_type *b) {
  if (vfy_is_tensor(a) && vfy_is_tensor(b) && shapes_compat(a, b)) return NULL;
  return VFY_ERR(op, "%s type %s does not have the shape of %s type %s", what_a, vfy_tstr(a), what_b, vfy_tstr(b));
}

shl_dtype vfy_real_dtype(shl_dtype dt) {
  if (dt == DT_C64) return DT_F32;
  if (dt == DT_C128) return DT_F64;
  return dt;
}

/* ------------------------------------------------------------------ attributes */

static int64_t load_int(const unsigned char *p, shl_dtype dt) {
  switch (dtype_bytes(dt)) {
    case 1: return dtype_is_signed(dt) ? (int64_t)(int8_t)p[0] : (int64_t)p[0];
    case 2: {
      uint16_t u;
      memcpy(&u, p, 2);
      return dtype_is_signed(dt) ? (int64_t)(int16_t)u : (int64_t)u;
    }
    case 4: {
      uint32_t u;
      memcpy(&u, p, 4);
      return dtype_is_signed(dt) ? (int64_t)(int32_t)u : (int64_t)u;
    }
    default: {
      int64_t v;
      memcpy(&v, p, 8);
      return v;
    }
  }
}

int64_t vfy_int_at(const vfy_ints *v, size_t i) {
  const shl_attr *a = v->a;
  if (!a || i >= v->n) return 0;
  switch (a->kind) {
    case AT_INTLIST:
      return a->u.ints.v[i];
    case AT_DENSE_ARRAY:
      return load_int((const unsigned char *)a->u.darr.data + i * dtype_bytes(a->type->dtype), a->type->dtype);
    case AT_ARRAY: {
      int64_t x = 0;
      attr_as_int(a->u.arr.items[i], &x);
      return x;
    }
    case AT_DENSE: {
      size_t sz = dtype_bytes(a->type->dtype);
      return load_int((const unsigned char *)attr_dense_data(a) + (a->u.dense.splat ? 0 : i * sz), a->type->dtype);
    }
    default:
      return 0;
  }
}

static bool int_dtype(const shl_type *t) {
  return t && t->dtype > DT_INVALID && t->dtype < DT_COUNT && dtype_is_int(t->dtype) && dtype_bytes(t->dtype) > 0;
}

static shl_status ints_of(const shl_op *op, const shl_attr *a, const char *name, bool optional, bool two_d,
                          vfy_ints *out) {
  *out = (vfy_ints){NULL, 0, name};
  if (!a) return optional ? NULL : VFY_ERR(op, "requires attribute '%s'", name);
  switch (a->kind) {
    case AT_INTLIST:
      if (a->u.ints.n && !a->u.ints.v) break;
      *out = (vfy_ints){a, a->u.ints.n, name};
      return NULL;
    case AT_DENSE_ARRAY:
      if (!int_dtype(a->type) || a->u.darr.n < 0 || (a->u.darr.n && !a->u.darr.data)) break;
      *out = (vfy_ints){a, (size_t)a->u.darr.n, name};
      return NULL;
    case AT_ARRAY:
      for (uint32_t i = 0; i < a->u.arr.n; i++) {
        int64_t x;
        if (!attr_as_int(a->u.arr.items[i], &x)) return VFY_ERR(op, "attribute '%s' must hold integers", name);
      }
      *out = (vfy_ints){a, a->u.arr.n, name};
      return NULL;
    case AT_DENSE: {
      if (!a->type || !int_dtype(a->type) || a->type->kind != TY_TENSOR) break;
      if (a->type->rank > (two_d ? 2 : 1)) break;
      int64_t count = type_num_elements(a->type);
      size_t sz = dtype_bytes(a->type->dtype);
      if (count < 0 || !a->u.dense.storage) break;
      size_t need = a->u.dense.splat ? sz : (size_t)count * sz;
      if (count && a->u.dense.nbytes < need) break;
      *out = (vfy_ints){a, (size_t)count, name};
      return NULL;
    }
    default:
      break;
  }
  return VFY_ERR(op, "attribute '%s' must be a list of integers", name);
}

/* Lists beyond this length cannot describe dimensions of any tensor the parser
 * accepts (its rank limit); refusing them keeps the quadratic containment
 * checks of the rules cheap. */
#define VFY_MAX_LIST 4096

static shl_status capped(const shl_op *op, shl_status st, vfy_ints *out, size_t cap) {
  if (st || out->n <= cap) return st;
  return VFY_ERR(op, "attribute '%s' has too many entries (%zu)", out->name, out->n);
}

shl_status vfy_ints_of(const shl_op *op, const shl_attr *a, const char *name, bool optional, vfy_ints *out) {
  return capped(op, ints_of(op, a, name, optional, false, out), out, VFY_MAX_LIST);
}

shl_status vfy_padding_attr(const shl_op *op, const char *name, int64_t n, vfy_ints *out) {
  const shl_attr *a = op_attr(op, name);
  ST_TRY(capped(op, ints_of(op, a, name, true, true, out), out, 2 * VFY_MAX_LIST));
  if (!a) return NULL;
  if (a->kind == AT_DENSE && a->type->rank == 2 && (a->type->dims[0] != n || a->type->dims[1] != 2))
    return VFY_ERR(op, "expects '%s' to have shape [%lld, 2], got %s", name, (long long)n, vfy_tstr(a->type));
  if (out->n != (size_t)n * 2)
    return VFY_ERR(op, "expects '%s' to hold %lld pairs, got %zu values", name, (long long)n, out->n);
  return NULL;
}

shl_status vfy_ints_attr(const shl_op *op, const char *name, bool optional, vfy_ints *out) {
  return vfy_ints_of(op, op_attr(op, name), name, optional, out);
}

shl_status vfy_ints_field(const shl_op *op, const shl_attr *st, const char *field, bool optional, vfy_ints *out) {
  return vfy_ints_of(op, attr_struct_field(st, field), field, optional, out);
}

shl_status vfy_int_of(const shl_op *op, const shl_attr *a, const char *name, bool optional, int64_t dflt,
                      int64_t *out) {
  *out = dflt;
  if (!a) return optional ? NULL : VFY_ERR(op, "requires attribute '%s'", name);
  if (a->kind != AT_INT) return VFY_ERR(op, "attribute '%s' must be an integer", name);
  *out = a->u.i;
  return NULL;
}

shl_status vfy_int_attr(const shl_op *op, const char *name, bool optional, int64_t dflt, int64_t *out) {
  return vfy_int_of(op, op_attr(op, name), name, optional, dflt, out);
}

shl_status vfy_bool_attr(const shl_op *op, const char *name, bool dflt, bool *out) {
  const shl_attr *a = op_attr(op, name);
  *out = dflt;
  if (!a) return NULL;
  if (a->kind == AT_UNIT) *out = true;
  else if (a->kind == AT_BOOL) *out = a->u.b;
  else return VFY_ERR(op, "attribute '%s' must be a boolean", name);
  return NULL;
}

shl_status vfy_struct_attr(const shl_op *op, const char *name, const shl_attr **out) {
  const shl_attr *a = op_attr(op, name);
  *out = a;
  if (!a) return VFY_ERR(op, "requires attribute '%s'", name);
  if (a->kind != AT_STRUCT) return VFY_ERR(op, "attribute '%s' is malformed", name);
  return NULL;
}

shl_status vfy_enum_attr(const shl_op *op, const char *name, bool optional, const char *const *values, int *out) {
  const shl_attr *a = op_attr(op, name);
  *out = -1;
  if (!a) return optional ? NULL : VFY_ERR(op, "requires attribute '%s'", name);
  if (a->kind != AT_ENUM) return VFY_ERR(op, "attribute '%s' must be an enum value", name);
  for (int i = 0; values[i]; i++)
    if (str_eq_c(a->u.en.value, values[i])) {
      *out = i;
      return NULL;
    }
  return VFY_ERR(op, "attribute '%s' has unknown value '%.*s'", name, (int)(a->u.en.value.n > 64 ? 64 : a->u.en.value.n),
                 a->u.en.value.p);
}

shl_status vfy_dims(const shl_op *op, const vfy_ints *v, int64_t bound, bool sorted) {
  for (size_t i = 0; i < v->n; i++) {
    int64_t d = vfy_int_at(v, i);
    if (d < 0 || d >= bound)
      return VFY_ERR(op, "%s value %lld is out of range [0, %lld)", v->name, (long long)d, (long long)bound);
    if (sorted && i && d < vfy_int_at(v, i - 1)) return VFY_ERR(op, "%s must be sorted", v->name);
  }
  if (v->n < 2) return NULL;
  if (bound > (1 << 20)) {
    /* Never for parsed IR (ranks are bounded); avoids a huge bitmap. */
    for (size_t i = 0; i < v->n; i++)
      for (size_t j = 0; j < i; j++)
        if (vfy_int_at(v, i) == vfy_int_at(v, j))
          return VFY_ERR(op, "%s has duplicate value %lld", v->name, (long long)vfy_int_at(v, i));
    return NULL;
  }
  /* Distinctness with a bitmap over [0, bound): entries are in range now. */
  unsigned char *seen = calloc((size_t)(bound + 7) / 8, 1);
  if (!seen) return st_oom();
  shl_status st = NULL;
  for (size_t i = 0; i < v->n && !st; i++) {
    int64_t d = vfy_int_at(v, i);
    if (seen[d / 8] & (1u << (d % 8))) st = VFY_ERR(op, "%s has duplicate value %lld", v->name, (long long)d);
    seen[d / 8] |= (unsigned char)(1u << (d % 8));
  }
  free(seen);
  return st;
}

bool vfy_ints_contains(const vfy_ints *v, int64_t x) {
  for (size_t i = 0; i < v->n; i++)
    if (vfy_int_at(v, i) == x) return true;
  return false;
}

shl_status vfy_precision_config(const shl_op *op) {
  const shl_attr *a = op_attr(op, "precision_config");
  if (!a) return NULL;
  if (a->kind != AT_ARRAY) return VFY_ERR(op, "attribute 'precision_config' must be an array");
  if (a->u.arr.n > 2) return VFY_ERR(op, "expects precision_config to be empty or have <= 2 elements");
  static const char *const names[] = {"DEFAULT", "HIGH", "HIGHEST", NULL};
  for (uint32_t i = 0; i < a->u.arr.n; i++) {
    const shl_attr *e = a->u.arr.items[i];
    bool ok = false;
    for (int k = 0; e && e->kind == AT_ENUM && names[k]; k++) ok |= str_eq_c(e->u.en.value, names[k]);
    if (!ok) return VFY_ERR(op, "precision_config entry #%u must be DEFAULT, HIGH or HIGHEST", i);
  }
  return NULL;
}

/* ------------------------------------------------------------------ shapes */

bool vfy_shape_init(vfy_shape *s, int64_t rank) {
  s->rank = rank;
  s->d = s->small;
  if (rank > (int64_t)(sizeof s->small / sizeof s->small[0])) {
    s->d = malloc((size_t)rank * sizeof *s->d);
    if (!s->d) {
      s->d = s->small;
      s->rank = 0;
      return false;
    }
  }
  for (int64_t i = 0; i < rank; i++) s->d[i] = SHL_DYN;
  return true;
}

void vfy_shape_free(vfy_shape *s) {
  if (s->d != s->small) free(s->d);
  s->d = s->small;
  s->rank = 0;
}

static const char *shape_str(const vfy_shape *s) {
  tbuf b = {ring_take(), 0};
  char num[32];
  tputs(&b, "[");
  for (int64_t i = 0; i < s->rank && b.n < VFY_BUF - 1; i++) {
    if (i) tputs(&b, ", ");
    if (s->d[i] < 0) tputs(&b, "?");
    else {
      snprintf(num, sizeof num, "%lld", (long long)s->d[i]);
      tputs(&b, num);
    }
  }
  tputs(&b, "]");
  return b.b;
}

static _Thread_local verify_shape_fn sink_fn;
static _Thread_local void *sink_user;

void vfy_set_shape_sink(verify_shape_fn fn, void *user) {
  sink_fn = fn;
  sink_user = user;
}

shl_status vfy_shape_check(const shl_op *op, const char *what, const shl_type *t, vfy_shape *s) {
  shl_status st = NULL;
  if (sink_fn) sink_fn(sink_user, t, s->rank, s->d);
  if (!vfy_is_tensor(t)) {
    st = VFY_ERR(op, "%s must be a tensor, got %s", what, vfy_tstr(t));
  } else if (t->rank >= 0) {
    bool ok = t->rank == s->rank;
    for (int64_t i = 0; ok && i < s->rank; i++) ok = vfy_dims_compat(t->dims[i], s->d[i]);
    if (!ok)
      st = VFY_ERR(op, "inferred shape %s is incompatible with %s type %s", shape_str(s), what, vfy_tstr(t));
  }
  vfy_shape_free(s);
  return st;
}

/* ------------------------------------------------------------------ regions */

shl_status vfy_region(const shl_op *op, uint32_t r, shl_opid term_id, const shl_block **blk, const shl_op **term) {
  if (r >= op->n_regions) return VFY_ERR(op, "expects at least %u regions, got %u", r + 1, op->n_regions);
  const shl_region *rg = &op->regions[r];
  if (rg->n_blocks != 1) return VFY_ERR(op, "region #%u must have exactly one block, got %u", r, rg->n_blocks);
  const shl_block *b = rg->blocks[0];
  const shl_op *t = b->last;
  if (!t || op_id(t) != term_id)
    return VFY_ERR(op, "region #%u must end with '%s'", r, shl_op_table[term_id].name);
  *blk = b;
  *term = t;
  return NULL;
}

shl_status vfy_scalar_arg(const shl_op *op, const char *region, const shl_block *blk, uint32_t i,
                          const shl_type *want, bool ignore_fp) {
  const shl_type *t = blk->args[i].type;
  bool ok = vfy_is_tensor(t) && t->rank <= 0 && vfy_is_tensor(want);
  if (ok) ok = ignore_fp ? vfy_elem_compat_fp(t, want) : vfy_elem_compat(t, want);
  if (!ok) {
    tbuf b = {ring_take(), 0};
    tputs(&b, "tensor<");
    if (vfy_is_tensor(want)) telem(&b, want);
    tputs(&b, ">");
    return VFY_ERR(op, "%s argument #%u must have type %s, got %s", region, i, b.b, vfy_tstr(t));
  }
  return NULL;
}

shl_status vfy_reducer(const shl_op *op, uint32_t r, const shl_type *const *inputs, const shl_type *const *inits,
                       uint32_t n, const shl_op **term) {
  const shl_block *blk;
  ST_TRY(vfy_region(op, r, OP_RETURN, &blk, term));
  if (blk->n_args != 2 * n)
    return VFY_ERR(op, "reduction region must take %u arguments, but takes %u", 2 * n, blk->n_args);
  const shl_op *t = *term;
  if (t->n_operands != n) return VFY_ERR(op, "reduction region must return %u values, but returns %u", n, t->n_operands);
  for (uint32_t i = 0; i < n; i++) {
    const shl_type *acc = vfy_otype(t, i);
    if (!vfy_is_tensor(acc) || acc->rank > 0)
      return VFY_ERR(op, "reduction region result #%u must be a rank-0 tensor, got %s", i, vfy_tstr(acc));
    ST_TRY(vfy_scalar_arg(op, "reduction region", blk, i, acc, false));
    ST_TRY(vfy_scalar_arg(op, "reduction region", blk, n + i, acc, true));
    if (!vfy_is_tensor(inputs[i]) || !elem_promotable(inputs[i], blk->args[n + i].type))
      return VFY_ERR(op, "reduction region argument #%u type %s must be promotable from the element type of %s", n + i,
                     vfy_tstr(blk->args[n + i].type), vfy_tstr(inputs[i]));
    if (!vfy_is_tensor(inits[i]) || !elem_promotable(inits[i], acc))
      return VFY_ERR(op, "reduction region result #%u type %s must be promotable from the element type of %s", i,
                     vfy_tstr(acc), vfy_tstr(inits[i]));
  }
  return NULL;
}
