/* Writing VHLO: shloc's StableHLO IR -> the VHLO ops, attributes and types of
 * a target version, as nodes of the bytecode writer (bytecode/writer.h). */
#ifndef SHLOC_BYTECODE_VHLO_VHLO_WRITE_H
#define SHLOC_BYTECODE_VHLO_VHLO_WRITE_H

#include "bytecode/writer.h"
#include "ir/ir.h"

typedef struct {
  bw_writer *w;
  uint32_t d_builtin, d_vhlo;
  uint32_t target[3];
  bool probe;        /* find the oldest version that can express the module instead of refusing */
  uint32_t need[3];  /* probe: the newest requirement seen */
  const shl_op *op;  /* op being converted, for messages */
  bool strip;        /* all locations unknown */
  uint32_t n_recreated; /* ops downgraded so far (pre-order) */
  shl_strmap ops_cache; /* op name -> its VHLO ops (vhlo_legalize.c) */
} vx_ctx;

/* Records that `what` (in x->op) first exists in version v: an error naming
 * both versions when the target is older (a note of it when probing). */
shl_status vx_need(vx_ctx *x, uint32_t major, uint32_t minor, uint32_t patch, const char *what, ...)
    __attribute__((format(printf, 5, 6)));
bool vx_older(const uint32_t *a, uint32_t major, uint32_t minor, uint32_t patch);

/* StableHLO type / attribute -> VHLO (convertGeneric of the legalization). */
shl_status vx_type(vx_ctx *x, const shl_type *t, const bw_node **out);
shl_status vx_attr(vx_ctx *x, const shl_attr *a, const char *name, const bw_node **out);

/* VHLO attributes built from values. */
const bw_node *vx_int(vx_ctx *x, int64_t v); /* #vhlo.integer_v1<v : i64> */
const bw_node *vx_bool(vx_ctx *x, bool v);
const bw_node *vx_string(vx_ctx *x, shl_str s);
const bw_node *vx_enum(vx_ctx *x, unsigned code, uint64_t v);
const bw_node *vx_array(vx_ctx *x, const bw_node *const *items, size_t n);
const bw_node *vx_none_type_attr(vx_ctx *x);
/* A tensor<dims x i64> (rank 1 when dims == NULL) or tensor<n x i1>. */
shl_status vx_i64_tensor(vx_ctx *x, const int64_t *v, size_t n, const int64_t *dims, int rank, const bw_node **out);
shl_status vx_bool_tensor(vx_ctx *x, const uint8_t *v, size_t n, const bw_node **out);
/* #vhlo.result_accuracy_v1 of the op (default when absent). */
shl_status vx_result_accuracy(vx_ctx *x, const bw_node **out);

/* Builtin attributes. */
const bw_node *bx_string(vx_ctx *x, shl_str s);
const bw_node *bx_dict(vx_ctx *x, const shl_str *names, const bw_node *const *vals, size_t n);
const bw_node *bx_unknown_loc(vx_ctx *x);
const bw_node *bx_file_loc(vx_ctx *x, const char *file, int line, int col);
/* The location a "loc(...)" text stands for, its #aliases resolved in the
 * module's `loc_defs` (vhlo_loc.c); NULL when not understood (or out of
 * memory): then the caller writes the op's position. */
const bw_node *bx_loc_text(vx_ctx *x, shl_str loc_defs, shl_str text);
/* An attribute kept in the builtin dialect (on builtin.module). */
shl_status bx_attr(vx_ctx *x, const shl_attr *a, const bw_node **out);

/* The module as VHLO ops of x's target (or probing: any version), rooted at
 * a builtin.module op. */
shl_status vhlo_write_module(const shloc_module *m, vx_ctx *x, bw_op **root);

#endif
