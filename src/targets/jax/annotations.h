/* JAX's annotation and bookkeeping custom-call targets, with their meaning
 * on one device (../shared/notes/jax-cpu-targets.md §3): sharding and
 * placement annotations are identities, dce_sink does nothing,
 * shape_assertion checks its predicate, AllocateBuffer makes a buffer.
 * The executor's custom_call kernel dispatches to these before the registry. */
#ifndef SHLOC_TARGETS_JAX_ANNOTATIONS_H
#define SHLOC_TARGETS_JAX_ANNOTATIONS_H

#include "ir/ir.h"

typedef enum {
  JAXT_IDENTITY,        /* result i is operand i (trailing operands, e.g. shape operands, are ignored) */
  JAXT_SINK,            /* no results, no effect */
  JAXT_SHAPE_ASSERTION, /* operand 0 (tensor<i1>) must be true, else error_message */
  JAXT_ALLOCATE_BUFFER, /* no operands, one fresh buffer: zero-filled (the content is unspecified) */
  JAXT_SPMD_SHAPE,      /* SPMDFullToShardShape / SPMDShardToFullShape: an identity when the types agree; else a
                           device's tile of a global value, or the global value from the devices' tiles */
  JAXT_SDY_TO_LOCAL,    /* xla.sdy.GlobalToLocalShape and */
  JAXT_SDY_TO_GLOBAL,   /* xla.sdy.LocalToGlobalShape (Shardy's round-trip form of a manual computation): identities
                           when the types agree; else as SPMD_SHAPE, for each value (exec/collectives/manual_rt.c);
                           operands and results may be tuples (their leaves are the values) */
  JAXT_X64_SPLIT_LOW,   /* X64SplitLow, X64SplitHigh, X64Combine: a 64-bit value as two 32-bit halves (x64_split.h) */
  JAXT_X64_SPLIT_HIGH,
  JAXT_X64_COMBINE,
} jax_target_kind;

/* The built-in target called `name`; false for any other name. */
bool jax_target_lookup(shl_str name, jax_target_kind *kind);
/* Whether an identity target's results all have their operands' types, so
 * that the executor can alias instead of running it. */
bool jax_target_forwards(const shl_op *op, jax_target_kind kind);
/* The operand and result rules of the kind; an identity whose shapes differ
 * is unsupported, except SPMDFullToShardShape / SPMDShardToFullShape and
 * xla.sdy.GlobalToLocalShape / LocalToGlobalShape, which change shapes on
 * several devices.  Errors name the op and the target. */
shl_status jax_target_check(const shl_op *op, shl_str name, jax_target_kind kind);

/* shape_assertion's message: `fmt` with llvm::formatv replacements
 * `{N[,layout][:style]}` filled from vals (decimal; style ignored; layout
 * `[[pad]-|=|+]width`), `{{` for a literal brace; with no values the message
 * is returned unchanged, as XLA does.  *out is malloc'd. */
shl_status jax_format_message(shl_str fmt, const int64_t *vals, size_t n, char **out);

#endif
