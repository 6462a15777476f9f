/* Verifier: structural checks (verify.c) and per-op type/shape rules (one
 * verify_VERIFY function per VERIFY column value in ops.def, split by family). */
#ifndef SHLOC_VERIFY_VERIFY_H
#define SHLOC_VERIFY_VERIFY_H

#include "ir/ir.h"

typedef struct {
  const shloc_module *m;
} verify_ctx;

typedef shl_status (*verify_fn)(const verify_ctx *vc, const shl_op *op);
#define OP(id, name, traits, syn, ver, ker) shl_status verify_##ver(const verify_ctx *vc, const shl_op *op);
#include "ir/ops.def"
#undef OP

/* Runs op's own type rule (not the structural checks) and reports each
 * shape the rule infers for a type it checks: fn(user, t, rank, dims), t
 * being the result (or operand) type compared.  Shape refinement reads
 * result shapes this way, so the spec's shape functions live in one place. */
typedef void (*verify_shape_fn)(void *user, const shl_type *t, int64_t rank, const int64_t *dims);
shl_status verify_op_rule(const shloc_module *m, const shl_op *op, verify_shape_fn fn, void *user);

/* Helpers for rules. */
/* The tensor type of operand/result i, or an error naming it. */
shl_status vfy_tensor(const shl_op *op, const shl_type *t, const char *what, uint32_t i);
shl_status vfy_count(const shl_op *op, uint32_t min_operands, uint32_t max_operands, uint32_t n_results);
/* Compatible shapes: equal dims where both are static. */
bool vfy_shapes_compatible(const shl_type *a, const shl_type *b);
/* Looks up a func.func by symbol text ("@foo" or "@\"foo\""). */
const shl_op *vfy_lookup_func(const verify_ctx *vc, const shl_attr *symref);

#endif
