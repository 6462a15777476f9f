/* Helpers shared by the reduction, window, sorting and linear-algebra
 * kernels: attribute reading, index arithmetic, body-pattern recognition and
 * calling a scalar region per element. */
#ifndef SHLOC_EXEC_KERNELS_KUTIL_H
#define SHLOC_EXEC_KERNELS_KUTIL_H

#include "support/cmplx.h"
#include <stdlib.h>

#include "exec/plan.h"
#include "support/scalar.h"

#define KU_MAX_RANK 64
/* Reductions with more inputs than this run only when no operand needs widening. */
#define KU_MAX_PROMOTED 16

/* Integer-list attribute (missing -> false); values beyond `cap` are an error. */
static inline bool ku_ints(const shl_op *op, const char *name, int64_t *out, size_t cap, size_t *n) {
  const shl_attr *a = op_attr(op, name);
  *n = 0;
  if (!a) return false;
  if (!attr_as_ints(a, out, cap, n)) return false;
  return *n <= cap;
}

/* Boolean list attribute (array<i1: ...>, dense<[true, false]>), 0/1 per entry. */
static inline bool ku_bools(const shl_op *op, const char *name, bool *out, size_t cap, size_t *n) {
  const shl_attr *a = op_attr(op, name);
  *n = 0;
  if (!a) return false;
  if (a->kind == AT_DENSE_ARRAY) {
    if ((size_t)a->u.darr.n > cap) return false;
    for (int64_t i = 0; i < a->u.darr.n; i++) out[i] = ((const uint8_t *)a->u.darr.data)[i] != 0;
    *n = (size_t)a->u.darr.n;
    return true;
  }
  if (a->kind == AT_DENSE && a->type && a->type->kind == TY_TENSOR) {
    int64_t cnt = type_num_elements(a->type);
    if (cnt < 0 || (size_t)cnt > cap) return false;
    for (int64_t i = 0; i < cnt; i++)
      out[i] = ((const uint8_t *)attr_dense_data(a))[a->u.dense.splat ? 0 : i] != 0;
    *n = (size_t)cnt;
    return true;
  }
  if (a->kind == AT_ARRAY) {
    if (a->u.arr.n > cap) return false;
    for (uint32_t i = 0; i < a->u.arr.n; i++) out[i] = a->u.arr.items[i]->kind == AT_BOOL && a->u.arr.items[i]->u.b;
    *n = a->u.arr.n;
    return true;
  }
  return false;
}

static inline bool ku_bool(const shl_op *op, const char *name, bool dflt) {
  const shl_attr *a = op_attr(op, name);
  if (a && a->kind == AT_BOOL) return a->u.b;
  return dflt;
}

/* Enum attribute value text equals `v`. */
static inline bool ku_enum_is(const shl_attr *a, const char *v) {
  return a && a->kind == AT_ENUM && str_eq_c(a->u.en.value, v);
}

/* Row-major strides of a shape (elements). */
static inline void ku_strides(int32_t rank, const int64_t *dims, int64_t *strides) {
  int64_t s = 1;
  for (int32_t d = rank - 1; d >= 0; d--) {
    strides[d] = s;
    s *= dims[d];
  }
}

/* A body's terminator: stablehlo.return, or func.return for a body taken
 * from a function (the called_computations of JAX's dynamic targets). */
static inline bool ku_is_return(const shl_op *o) { return op_is(o, OP_RETURN) || op_is(o, OP_FUNC_RETURN); }

/* The body of a region with two scalar arguments that applies one
 * commutative binary op to them and returns it: that op's id, else OP_UNKNOWN. */
static inline shl_opid ku_body_binop(const shl_region *r) {
  if (r->n_blocks != 1) return OP_UNKNOWN;
  const shl_block *b = r->blocks[0];
  if (b->n_args != 2) return OP_UNKNOWN;
  const shl_op *o = b->first;
  if (!o || !o->next || o->next->next) return OP_UNKNOWN;
  const shl_op *ret = o->next;
  if (!ku_is_return(ret) || ret->n_operands != 1 || ret->operands[0] != &o->results[0]) return OP_UNKNOWN;
  if (o->n_operands != 2 || o->n_results != 1) return OP_UNKNOWN;
  const shl_value *x = o->operands[0], *y = o->operands[1];
  const shl_value *a0 = &b->args[0], *a1 = &b->args[1];
  if (!((x == a0 && y == a1) || (x == a1 && y == a0))) return OP_UNKNOWN;
  if (!type_eq(a0->type, a1->type) || !type_eq(a0->type, o->results[0].type)) return OP_UNKNOWN;
  /* On quantized scalars only max/min act on the storage values (scales are
   * positive, so they keep the order); sums and products need the region. */
  bool quant = a0->type->dtype == DT_QUANT;
  switch (op_id(o)) {
    case OP_ADD:
    case OP_MULTIPLY: return quant ? OP_UNKNOWN : op_id(o);
    case OP_MAXIMUM:
    case OP_MINIMUM:
    case OP_AND:
    case OP_OR:
    case OP_XOR: return op_id(o);
    default: return OP_UNKNOWN;
  }
}

/* Integer dtypes whose storage is exactly their width (no i1/i2/i4). */
static inline bool ku_plain_int(shl_dtype t) {
  return (dtype_class(t) == DTC_SINT || dtype_class(t) == DTC_UINT) && dtype_bits(t) == 8 * dtype_bytes(t);
}

/* Runs a region whose arguments and results are scalars: args[k] points to
 * the k-th argument's element, results are copied to res[k]. */
typedef struct {
  exec_plan *plan;
  uint32_t n_args, n_res;
  shl_buf *argbuf;   /* n_args */
  shl_buf **argptr;  /* n_args */
} ku_scalar_fn;

static inline shl_status ku_scalar_fn_init(ku_scalar_fn *f, exec_plan *plan, const shl_region *r) {
  const shl_block *b = r->blocks[0];
  f->plan = plan;
  f->n_args = b->n_args;
  f->n_res = plan_num_results(plan);
  f->argbuf = malloc((f->n_args + 1) * sizeof *f->argbuf);
  f->argptr = malloc((f->n_args + 1) * sizeof *f->argptr);
  if (!f->argbuf || !f->argptr) {
    free(f->argbuf);
    free(f->argptr);
    return st_oom();
  }
  for (uint32_t k = 0; k < f->n_args; k++) {
    buf_init(&f->argbuf[k], b->args[k].type, NULL);
    f->argptr[k] = &f->argbuf[k];
  }
  return NULL;
}

static inline void ku_scalar_fn_free(ku_scalar_fn *f) {
  free(f->argbuf);
  free(f->argptr);
}

static inline shl_status ku_scalar_call(exec_ctx *ec, ku_scalar_fn *f, void *const *args, void *const *res) {
  for (uint32_t k = 0; k < f->n_args; k++) f->argbuf[k].data = args[k];
  shl_buf **out;
  shl_buf *saved = ec->slots;
  shl_status st = exec_region(ec, f->plan, f->argptr, &out);
  ec->slots = saved;
  ST_TRY(st);
  /* Staged: a result may be another result's argument (a body that swaps). */
  uint8_t stage[16 * 8];
  if (f->n_res <= 8) {
    for (uint32_t k = 0; k < f->n_res; k++) memcpy(stage + 16 * k, out[k]->data, out[k]->nbytes <= 16 ? out[k]->nbytes : 16);
    for (uint32_t k = 0; k < f->n_res; k++) memcpy(res[k], stage + 16 * k, out[k]->nbytes <= 16 ? out[k]->nbytes : 16);
  } else {
    for (uint32_t k = 0; k < f->n_res; k++)
      if (res[k] != out[k]->data) memmove(res[k], out[k]->data, out[k]->nbytes);
  }
  return NULL;
}

/* Runs the region and returns its (single, i1) result as a bool. */
static inline shl_status ku_scalar_pred(exec_ctx *ec, ku_scalar_fn *f, void *const *args, bool *r) {
  for (uint32_t k = 0; k < f->n_args; k++) f->argbuf[k].data = args[k];
  shl_buf **out;
  shl_buf *saved = ec->slots;
  shl_status st = exec_region(ec, f->plan, f->argptr, &out);
  ec->slots = saved;
  ST_TRY(st);
  *r = out[0]->nbytes && (*(const uint8_t *)out[0]->data & 1);
  return NULL;
}

/* Loads element i of a buffer of dtype t converted to double (floats, ints). */
static inline double ku_load_f64(shl_dtype t, const void *base, int64_t i) {
  const uint8_t *p = (const uint8_t *)base + (size_t)i * dtype_bytes(t);
  if (dtype_is_float(t)) return fp_to_f64(t, fp_load(t, p));
  if (dtype_class(t) == DTC_UINT) return (double)(uint64_t)int_load(t, p);
  return (double)int_load(t, p);
}

/* Converts n elements of float or integer dtype t to double (one dispatch). */
static inline void ku_to_f64_n(shl_dtype t, const void *src, double *dst, int64_t n) {
  switch (t) {
    case DT_F32:
      for (int64_t i = 0; i < n; i++) dst[i] = ((const float *)src)[i];
      break;
    case DT_F64: memcpy(dst, src, (size_t)n * sizeof *dst); break;
    default:
      for (int64_t i = 0; i < n; i++) dst[i] = ku_load_f64(t, src, i);
      break;
  }
}

/* Compiles a hot loop for AVX-512 and AVX2 as well as the baseline; the
 * loader picks the best one the machine runs.  Not under ThreadSanitizer:
 * its instrumented ifunc resolvers would run before it is initialised. */
#ifdef __SANITIZE_THREAD__
#define KU_CLONES
#else
#define KU_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif

#endif
