/* Internals of the CHLO decomposition (chlo_*.c): an emitter that inserts
 * StableHLO ops before the CHLO op being replaced, and one rule per op
 * family.
 *
 * Emitter helpers take and return values; the first failure is kept in
 * e->st and every later helper returns NULL, so a formula is written as
 * straight-line code and checked once at the end. */
#ifndef SHLOC_PASSES_CHLO_IMPL_H
#define SHLOC_PASSES_CHLO_IMPL_H

#include "chlo_legalize.h"

typedef struct {
  shl_arena *a;
  shl_block *b;
  const shl_op *src;    /* the CHLO op: new ops take its position and location, errors name it */
  shl_op *before;       /* new ops go before this op (NULL: at the end of b) */
  shl_status st;        /* first failure */
  unsigned flags;       /* PASS_CHLO_* */
} cl_emit;

/* A new op `id` with one result of type rt (attrs sorted by name). */
shl_value *cl_op(cl_emit *e, shl_opid id, uint32_t n, shl_value *const *ops, const shl_type *rt, uint32_t n_attrs,
                 const shl_named_attr *attrs);
/* Elementwise ops whose result has the type of x. */
shl_value *cl_un(cl_emit *e, shl_opid id, shl_value *x);
shl_value *cl_bin(cl_emit *e, shl_opid id, shl_value *x, shl_value *y);
/* compare `dir` ("LT", "EQ", ...) without compare_type, as upstream builds it: i1 result. */
shl_value *cl_cmp(cl_emit *e, const char *dir, shl_value *x, shl_value *y);
shl_value *cl_select(cl_emit *e, shl_value *c, shl_value *t, shl_value *f);
shl_value *cl_clamp(cl_emit *e, shl_value *lo, shl_value *x, shl_value *hi);
/* convert x to element type dt (same shape). */
shl_value *cl_convert(cl_emit *e, shl_value *x, shl_dtype dt);
/* A splat constant shaped like `like` holding v (upstream's getConstantLike:
 * rounded once to the element type; complex: (v, 0); integers: (int64_t)v). */
shl_value *cl_const(cl_emit *e, shl_value *like, double v);
/* The same from an element bit pattern (infinities, largest finite, ...). */
shl_value *cl_const_bits(cl_emit *e, shl_value *like, uint64_t bits);
/* Horner: ((c[0] x + c[1]) x + ...) + c[n-1], constants rounded to x's type. */
shl_value *cl_poly(cl_emit *e, shl_value *x, const double *c, size_t n);
/* A type like t with element type dt. */
const shl_type *cl_type_like(cl_emit *e, const shl_type *t, shl_dtype dt);
/* An error at the CHLO op (kept in e->st); returns NULL. */
shl_value *cl_fail(cl_emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define cl_add(e, x, y) cl_bin(e, OP_ADD, x, y)
#define cl_sub(e, x, y) cl_bin(e, OP_SUBTRACT, x, y)
#define cl_mul(e, x, y) cl_bin(e, OP_MULTIPLY, x, y)
#define cl_div(e, x, y) cl_bin(e, OP_DIVIDE, x, y)
#define cl_and(e, x, y) cl_bin(e, OP_AND, x, y)
#define cl_or(e, x, y) cl_bin(e, OP_OR, x, y)
#define cl_neg(e, x) cl_un(e, OP_NEGATE, x)
#define cl_abs(e, x) cl_un(e, OP_ABS, x)
#define cl_exp(e, x) cl_un(e, OP_EXPONENTIAL, x)
#define cl_log(e, x) cl_un(e, OP_LOG, x)
#define cl_log1p(e, x) cl_un(e, OP_LOG_PLUS_ONE, x)
#define cl_sqrt(e, x) cl_un(e, OP_SQRT, x)

/* f16/bf16 computed in f32 and converted back, as upstream's
 * materializeWithUpcast; f64 and f32 unchanged. */
typedef shl_value *(*cl_fn1)(cl_emit *e, shl_value *x);
shl_value *cl_upcast_f32(cl_emit *e, shl_value *x, cl_fn1 f32_fn);
typedef shl_value *(*cl_fn2)(cl_emit *e, shl_value *x, shl_value *y);
shl_value *cl_upcast2_f32(cl_emit *e, shl_value *x, shl_value *y, cl_fn2 f32_fn);

/* One rule per CHLO op: results[i] replaces the op's result i. */
typedef void (*cl_rule)(cl_emit *e, const shl_op *op, shl_value **results);

/* chlo_simple.c: conj, is_*inf, constant(_like), square, tan, atan, atanh,
 * mulhi, next_after, cosh, sinh, broadcast_* */
void cl_rule_simple(cl_emit *e, const shl_op *op, shl_value **res);
/* chlo_trig.c: asin, acos, acosh, asinh on real operands (complex: cl_rule_complex) */
void cl_rule_inverse_trig(cl_emit *e, const shl_op *op, shl_value **res);
/* chlo_complex.c: _asin_acos_kernel, and asin, acos, acosh, asinh, atan,
 * atanh on complex operands */
void cl_rule_complex(cl_emit *e, const shl_op *op, shl_value **res);
/* chlo_erf.c: erf, erfc, erf_inv */
void cl_rule_erf(cl_emit *e, const shl_op *op, shl_value **res);
/* chlo_gamma.c: lgamma, digamma, bessel_i1e */
void cl_rule_gamma(cl_emit *e, const shl_op *op, shl_value **res);
/* lgamma and digamma of an f32 or f64 value */
shl_value *cl_lgamma(cl_emit *e, shl_value *x);
shl_value *cl_digamma(cl_emit *e, shl_value *x);
/* chlo_zeta.c: zeta, polygamma (also behind broadcast_zeta/broadcast_polygamma) */
shl_value *cl_zeta(cl_emit *e, shl_value *x, shl_value *q);
shl_value *cl_polygamma(cl_emit *e, shl_value *n, shl_value *x);
void cl_rule_zeta(cl_emit *e, const shl_op *op, shl_value **res);
/* chlo_topk.c: top_k */
void cl_rule_top_k(cl_emit *e, const shl_op *op, shl_value **res);
/* chlo_ragged.c: ragged_dot */
void cl_rule_ragged_dot(cl_emit *e, const shl_op *op, shl_value **res);
/* chlo_scan.c: scan */
void cl_rule_scan(cl_emit *e, const shl_op *op, shl_value **res);

#endif
