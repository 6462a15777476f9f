/* Shared pieces of the per-op rules (verify_*.c): reading attributes safely,
 * element-type classes, shape compatibility and message formatting.  Every
 * reader checks kinds and bounds so malformed IR yields a status, never a
 * crash. */
#ifndef SHLOC_VERIFY_RULES_H
#define SHLOC_VERIFY_RULES_H

#include "verify.h"

/* ---- messages ---- */

/* printf into one of a few thread-local buffers, so a message can quote
 * several types or labels at once. */
const char *vfy_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A type as MLIR prints it (truncated when very long). */
const char *vfy_tstr(const shl_type *t);
#define VFY_ERR(op, ...) op_error((op), SHLOC_ERR_VERIFY, __VA_ARGS__)

/* ---- operands and results ---- */

static inline const shl_type *vfy_otype(const shl_op *op, uint32_t i) { return op->operands[i]->type; }
static inline const shl_type *vfy_rtype(const shl_op *op, uint32_t i) { return op->results[i].type; }
static inline bool vfy_is_tensor(const shl_type *t) { return t && t->kind == TY_TENSOR; }
static inline bool vfy_dims_compat(int64_t a, int64_t b) { return a < 0 || b < 0 || a == b; }
/* Operand count and result count, then every operand and result a tensor. */
shl_status vfy_all_tensors(const shl_op *op, uint32_t n_operands, uint32_t n_results);
/* Ranked tensor of the given rank (unranked passes). */
shl_status vfy_rank(const shl_op *op, const char *what, const shl_type *t, int32_t rank);

/* ---- element types ---- */

enum {
  EK_PRED = 1u << 0,
  EK_SINT = 1u << 1,
  EK_UINT = 1u << 2,
  EK_FLOAT = 1u << 3,
  EK_COMPLEX = 1u << 4,
  EK_QUANT = 1u << 5,
  EK_INT = EK_SINT | EK_UINT,
  EK_ANY = 0x3f,
};
unsigned vfy_elem_kind(const shl_type *t);
/* Checks that tensor `t` (named `what`) has an element type among `kinds`;
 * `desc` says what was expected ("floating-point or complex"). */
shl_status vfy_elem_in(const shl_op *op, const char *what, const shl_type *t, unsigned kinds, const char *desc);
/* Element types agree; quantized types agree with each other when storage
 * type and range match, and with a plain type equal to their expressed type
 * (quantization parameters may differ between operands and results). */
bool vfy_elem_compat(const shl_type *a, const shl_type *b);
/* As vfy_elem_compat, but any two floating-point types also agree (reducer
 * bodies may compute in another precision). */
bool vfy_elem_compat_fp(const shl_type *a, const shl_type *b);
/* Shape and element compatibility of tensors; tuples element-wise; other
 * types must be equal. */
bool vfy_types_compat(const shl_type *a, const shl_type *b);
/* Fails with "<what_a> type A is incompatible with <what_b> type B". */
shl_status vfy_expect_compat(const shl_op *op, const char *what_a, const shl_type *a, const char *what_b,
                             const shl_type *b);
/* Same, checking only the shapes (element types may differ). */
shl_status vfy_expect_same_shape(const shl_op *op, const char *what_a, const shl_type *a, const char *what_b,
                                 const shl_type *b);
/* Real type of a complex element type (the type itself otherwise). */
shl_dtype vfy_real_dtype(shl_dtype dt);

/* ---- attributes ---- */

/* A list of integers held by an attribute (INTLIST, dense array, array of
 * integers, integer dense elements), read element by element. */
typedef struct {
  const shl_attr *a; /* NULL when an optional attribute is absent */
  size_t n;
  const char *name;
} vfy_ints;

int64_t vfy_int_at(const vfy_ints *v, size_t i);
/* Reads attribute `a` named `name`; a missing attribute fails unless
 * `optional` (then the list is empty with a == NULL). */
shl_status vfy_ints_of(const shl_op *op, const shl_attr *a, const char *name, bool optional, vfy_ints *out);
/* Optional padding attribute for `n` dimensions: dense<[[lo, hi], ...]>
 * (shape [n, 2]) or a flat list of 2n integers; absent -> a == NULL. */
shl_status vfy_padding_attr(const shl_op *op, const char *name, int64_t n, vfy_ints *out);
/* The op's own attribute `name`. */
shl_status vfy_ints_attr(const shl_op *op, const char *name, bool optional, vfy_ints *out);
/* A field of a structured attribute (e.g. #stablehlo.gather<...>). */
shl_status vfy_ints_field(const shl_op *op, const shl_attr *st, const char *field, bool optional, vfy_ints *out);
/* A single integer attribute of the op (or struct field); missing -> dflt
 * when optional. */
shl_status vfy_int_of(const shl_op *op, const shl_attr *a, const char *name, bool optional, int64_t dflt,
                      int64_t *out);
shl_status vfy_int_attr(const shl_op *op, const char *name, bool optional, int64_t dflt, int64_t *out);
/* Optional boolean attribute. */
shl_status vfy_bool_attr(const shl_op *op, const char *name, bool dflt, bool *out);
/* The structured attribute `name` (AT_STRUCT), required. */
shl_status vfy_struct_attr(const shl_op *op, const char *name, const shl_attr **out);
/* Enum attribute `name` whose value must be one of `values` (NULL
 * terminated); *out gets the index. */
shl_status vfy_enum_attr(const shl_op *op, const char *name, bool optional, const char *const *values, int *out);
/* Each entry in [0, bound) and distinct; ascending when `sorted`. */
shl_status vfy_dims(const shl_op *op, const vfy_ints *v, int64_t bound, bool sorted);
/* True when some entry equals x. */
bool vfy_ints_contains(const vfy_ints *v, int64_t x);
/* precision_config: absent, or an array of at most two precisions. */
shl_status vfy_precision_config(const shl_op *op);

/* ---- inferred shapes ---- */

typedef struct {
  int64_t rank;
  int64_t *d;
  int64_t small[16];
} vfy_shape;

/* Allocates room for `rank` dimensions (all dynamic); false when out of memory. */
bool vfy_shape_init(vfy_shape *s, int64_t rank);
void vfy_shape_free(vfy_shape *s);
/* Compares the shape of `t` (named `what`) with an inferred shape, then frees
 * the inferred shape. */
shl_status vfy_shape_check(const shl_op *op, const char *what, const shl_type *t, vfy_shape *s);
/* Where vfy_shape_check reports inferred shapes on this thread (NULL: nowhere). */
void vfy_set_shape_sink(verify_shape_fn fn, void *user);

/* ---- regions ---- */

/* The only block of region #r and its terminator, which must be `term_id`. */
shl_status vfy_region(const shl_op *op, uint32_t r, shl_opid term_id, const shl_block **blk, const shl_op **term);
/* Block argument i of `blk` must be a rank-0 tensor whose element type agrees
 * with `want`'s (any float precision when `ignore_fp`). */
shl_status vfy_scalar_arg(const shl_op *op, const char *region, const shl_block *blk, uint32_t i,
                          const shl_type *want, bool ignore_fp);
/* Checks a reducer body (reduce, reduce_window, scatter, select_and_scatter)
 * in region #r: 2N rank-0 arguments, N rank-0 results whose element types
 * agree with `inits[i]` and the second half of the arguments, which must
 * take the element types of `inputs[i]` (float precision may differ).
 * `inputs`/`inits` contribute element types only. */
shl_status vfy_reducer(const shl_op *op, uint32_t r, const shl_type *const *inputs, const shl_type *const *inits,
                       uint32_t n, const shl_op **term);

/* ---- shared op rules ---- */

/* dot_general's dimension numbers (a struct with lhs/rhs_batching_dimensions
 * and lhs/rhs_contracting_dimensions) for operand types l and r: counts,
 * ranges, no overlap, matching sizes; also used by chlo.ragged_dot. */
shl_status vfy_dot_dims(const shl_op *op, const shl_type *l, const shl_type *r, const shl_attr *dn, vfy_ints *lb,
                        vfy_ints *rb, vfy_ints *lc, vfy_ints *rc);

/* gather and dynamic_gather (operand, start indices, ...): dimension numbers
 * and result shape; `slice_sizes` NULL when they are not known statically. */
shl_status vfy_gather_like(const shl_op *op, const vfy_ints *slice_sizes);

#endif
