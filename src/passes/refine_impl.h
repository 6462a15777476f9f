/* Internals of shape refinement (refine_*.c): the pass state, the values
 * known while refining, and the per-concern entry points. */
#ifndef SHLOC_PASSES_REFINE_IMPL_H
#define SHLOC_PASSES_REFINE_IMPL_H

#include "refine_shapes.h"
#include "support/ptrmap.h"

/* Largest integer tensor whose elements are folded (shape computations are
 * vectors of a few dimension sizes). */
#define RF_MAX_FOLD 4096
/* Bounds on the work one refinement does for nested calls. */
#define RF_MAX_DEPTH 64
#define RF_MAX_SPECS 4096

/* An integer (or i1) tensor whose elements are known while refining. */
typedef struct {
  int64_t n;      /* element count */
  int64_t *v;     /* values, sign- or zero-extended by the element type */
  uint64_t deps;  /* entry arguments the values derive from (refine_result.value_args) */
} rf_known;

/* A callee copied for one argument signature. */
typedef struct rf_spec {
  const shl_op *callee;           /* original function */
  const shl_type **arg_types;     /* refined argument types */
  const rf_known **arg_known;     /* known argument values (entries may be NULL) */
  shl_op *func;                   /* the copy in the new module */
  const rf_known **ret_known;     /* known values it returns (entries may be NULL) */
  struct rf_spec *next;
} rf_spec;

typedef struct {
  shloc_module *src, *dst;
  shl_arena *a;      /* dst's arena */
  shl_ptrmap known;  /* new value -> rf_known */
  rf_spec *specs;
  uint32_t n_specs, depth;
  uint64_t used;     /* entry arguments whose values decided a shape */
  const shl_op *blame; /* the dynamic op a static op replaces: errors name it */
  shl_ptrmap uses;     /* source function -> references to it + 1 (built on the first call) */
} rf_ctx;

/* The op errors about `op` should name. */
#define RF_OP(c, op) ((c)->blame ? (c)->blame : (op))

/* One function body being copied: old value -> new value. */
typedef struct {
  rf_ctx *c;
  shl_ptrmap vmap;
} rf_scope;

/* refine_shapes.c: copying */
shl_status rf_block(rf_scope *s, const shl_block *old, shl_block *nb);
/* Copies the ops of `old` except its terminator into nb. */
shl_status rf_block_body(rf_scope *s, const shl_block *old, shl_block *nb);
/* A copy of region r of `old` into region r of `nop` whose entry block
 * arguments take `arg_types` (NULL: the declared ones) and, where given,
 * known values. */
shl_status rf_region(rf_scope *s, const shl_op *old, shl_op *nop, uint32_t r, const shl_type *const *arg_types,
                     const rf_known *const *known);
/* A new op like `old` (same op, attributes, number of regions, left empty)
 * with operands `ops` and result types `rtypes` (NULL: old's). */
shl_op *rf_clone(rf_ctx *c, const shl_op *old, shl_value *const *ops, const shl_type *const *rtypes);
/* A new op `id` with old's position, `n` operands and one result type per
 * entry of rtypes, attributes `attrs` (sorted by name). */
shl_op *rf_new_op(rf_ctx *c, const shl_op *old, shl_opid id, uint32_t n, shl_value *const *ops, uint32_t n_results,
                  const shl_type *const *rtypes, uint32_t n_attrs, const shl_named_attr *attrs);
shl_op *rf_refine_func(rf_ctx *c, const shl_op *func, const shl_type *const *arg_types, const rf_known *const *known,
                       shl_str name, shl_status *st);

/* refine_fold.c: integer folding */
const rf_known *rf_known_of(rf_ctx *c, const shl_value *v);
bool rf_set_known(rf_ctx *c, const shl_value *v, const rf_known *k);
/* Known values of op's results computed from known operands (nothing when
 * an operand is unknown or the op is not folded). */
shl_status rf_fold(rf_ctx *c, const shl_op *op);
/* Values of a known value read from argument bytes (n elements of dt). */
rf_known *rf_known_from_bytes(rf_ctx *c, shl_dtype dt, int64_t n, const void *data, uint64_t deps);
/* The known values of v, operand i of op (the refined value), which decide
 * a shape: an error naming op when they are not known after refinement. */
shl_status rf_shape_operand(rf_ctx *c, const shl_op *op, const shl_value *v, uint32_t i, const char *what,
                            const rf_known **out);

/* Whether a and b certainly hold the same values: one value, or the same
 * side-effect-free op on such operands (up to `depth` ops deep), as JAX
 * repeats an index computation for a slice's start and limit. */
bool rf_same_value(const shl_value *a, const shl_value *b, int depth);

/* refine_rules.c: result types of an op from its refined operands */
shl_status rf_infer(rf_ctx *c, shl_op *nop);
/* The static type `declared` takes with `dims` (rank of dims), checked
 * against declared's static dimensions; `what` names it in errors. */
shl_status rf_refined_type(rf_ctx *c, const shl_op *op, const char *what, const shl_type *declared, int32_t rank,
                           const int64_t *dims, const shl_type **out);
/* "[2, ?, 4]" into buf (for messages); returns buf. */
const char *rf_dims_str(int32_t rank, const int64_t *dims, char *buf, size_t cap);
/* A tensor type like `like` (element type, quantization) with new dims. */
const shl_type *rf_type_like(rf_ctx *c, const shl_type *like, int32_t rank, const int64_t *dims);

/* refine_dynamic.c: dynamic ops to static ones (returns the new op in *out) */
bool rf_is_dynamic_op(const shl_op *op);
shl_status rf_dynamic(rf_scope *s, const shl_op *old, shl_value *const *ops, shl_block *nb, shl_op **out);

/* refine_calls.c: calls, control flow, custom calls */
/* func.call / composite: the callee copied for this signature, or inlined
 * into nb when the call is its only use (then *out = NULL, results mapped). */
shl_status rf_call(rf_scope *s, const shl_op *old, shl_value *const *ops, shl_block *nb, shl_op **out);
shl_status rf_control(rf_scope *s, const shl_op *old, shl_value *const *ops, shl_op **out);
/* custom_call: shape_assertion checks (*out = NULL: the op is dropped), and
 * result shapes given by shape operands. */
shl_status rf_custom_call(rf_scope *s, const shl_op *old, shl_value *const *ops, shl_block *nb, shl_op **out);

/* refine_targets.c: JAX's stablehlo.dynamic_* custom calls */
bool rf_is_dynamic_target(shl_str target);
/* Refines the results of such a call `op` (being built) and turns its known
 * operands into constants appended to nb. */
shl_status rf_dynamic_target(rf_ctx *c, shl_op *op, shl_block *nb);

#endif
