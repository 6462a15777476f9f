/* Elementwise fusion.  fuse.c groups a block's elementwise ops, the views
 * they read through (broadcast_in_dim, reshape) and reductions over
 * trailing dimensions into fused ops; fuse_run.c is the fused op's kernel,
 * which evaluates a group tile by tile so that values inside the group
 * never reach a frame buffer.
 *
 * A group's elements are `rows` rows of `cols` elements (row-major order;
 * rows = 1 without reductions).  Its nodes are evaluated row block by row
 * block in passes ("stages"): a reduction folds its operand during one pass
 * and its row results feed the nodes of later passes, so e.g. a softmax
 * reads each row from memory once. */
#ifndef SHLOC_EXEC_FUSE_H
#define SHLOC_EXEC_FUSE_H

#include "kernels/ew_common.h"
#include "plan.h"

enum { FUSE_TILE = 1024 }; /* most elements per chunk (chunks shrink until a group's tiles fit in L1) */
enum { FUSE_PROG_MAX_IO = 64 }; /* most sources and outputs of a register program */

typedef enum { FN_LEAF, FN_EW, FN_REDUCE } fnode_kind;

/* Where a node's chunk of values lives while the group runs. */
typedef enum {
  LOC_EXT,    /* leaf: the input buffer itself */
  LOC_SCALAR, /* leaf: a tile filled with its one element once */
  LOC_ROWVAL, /* leaf: constant along rows; a tile filled per row block */
  LOC_FILL,   /* leaf: a tile gathered per chunk (general broadcast) */
  LOC_ROWS,   /* leaf: a tile of table rows picked by an index input (a fused row gather) */
  LOC_TILE,   /* computed into a scratch tile, read in the same pass */
  LOC_ROW,    /* computed into a row buffer, read again by later passes */
  LOC_OUT,    /* computed into its output buffer (and read back from there) */
  LOC_VALUE,  /* reduction: a tile holding each row's result over the row */
} fnode_loc;

typedef struct {
  uint8_t kind, loc;
  uint32_t avail;                 /* first pass in which the node's values exist */
  uint32_t first_pass, last_pass; /* passes in which nodes read it (leaves: when to fill) */
  bool consumed;    /* reductions: other nodes read the row results */
  bool scalar;      /* consumed reductions: every reader takes the row result as a scalar (one row per block) */
  shl_dtype dt;
  uint32_t esz;
  uint32_t ext;     /* leaf: its input; reduction: its init value's input */
  int32_t out;      /* output index, -1 if the value stays inside the group */
  size_t off;       /* per-thread scratch offset of its tile or row buffer */
  size_t acc;       /* reductions: offset of its accumulators (16 bytes per row of a block) from acc_off */
  /* leaves (LOC_FILL, LOC_ROWVAL): element e of the group is element
   * sum_d ((e / pitch[d]) % dims[d]) * stride[d] of the input */
  int32_t rank;
  const int64_t *dims;
  int64_t *pitch, *stride;
  /* LOC_ROWS: element e is table (input ext) [clamp(idx[e / row_len])][e % row_len],
   * idx being input idx_ext of dtype idx_dt */
  uint32_t idx_ext;
  shl_dtype idx_dt;
  int64_t tab_rows, row_len;
  /* elementwise nodes */
  ew_eval_fn eval;
  const void *params;
  uint8_t code;     /* its ew_prog_code (EWP_NONE: no vector form) */
  uint32_t n_in;
  uint32_t in[3];
  /* reductions: fold node `src` with `binop` */
  uint32_t src;
  shl_opid binop;
} fnode;

typedef struct {
  uint32_t n_nodes, n_in, n_out, n_passes;
  fnode *nodes;
  int64_t n, rows, cols;
  int64_t block_rows; /* rows per block: several short rows share a chunk */
  int64_t chunk;      /* elements per chunk (<= FUSE_TILE) */
  size_t acc_off;     /* per-thread scratch: node pointers, accumulators at acc_off, tiles, rows */
  size_t scratch;     /* bytes per thread */
  uint32_t cache_id;  /* exec_state: the run's per-thread scratch, kept across runs */
  /* Groups of f32 ops with vector forms (no reductions) run as a register
   * program instead (prog.n_ins > 0); its source a is node src_node[a]
   * (a leaf), its destination a is output a. */
  ew_prog prog;
  uint32_t n_src;
  uint32_t *src_node;
  /* Softmax groups run row by row instead (fuse_softmax.c); NULL otherwise. */
  const struct fuse_softmax *softmax;
} fused_params;

extern const shl_kernel kernel_fused;

/* Compiles fp's register program when the group has one (fuse_prog.c). */
shl_status fuse_prog_build(plan_ctx *pc, fused_params *fp);

/* Recognises a softmax group (sets fp->softmax) and runs one (fuse_softmax.c). */
shl_status fuse_softmax_build(plan_ctx *pc, fused_params *fp);
shl_status fuse_softmax_run(const fused_params *fp, shl_buf *const *in, shl_buf *const *out);
/* The input a softmax group may write its result over (-1: none). */
int fuse_softmax_input(const fused_params *fp);
/* The input a group of one elementwise op may write its result over (-1: none; fuse_run.c). */
int fuse_inplace_input(const fused_params *fp);

/* Reserves the per-run cache of a group (released with the executable). */
shl_status fuse_cache_new(plan_ctx *pc, fused_params *fp);

/* ---- planner interface ---- */

typedef struct fuse_block fuse_block;

/* A fused op to emit: its external inputs and its outputs (values the
 * planner gives slots), in the order the kernel expects them. */
typedef struct {
  fused_params *params;
  uint32_t n_in, n_out;
  const shl_value **in, **out;
} fuse_site;

typedef enum { FUSE_KEEP, FUSE_SKIP, FUSE_EMIT } fuse_action;

/* Groups the fusible ops of blk (kernels are prepared with pc->cur set by
 * the caller).  *out is NULL when nothing fuses. */
shl_status fuse_analyze(plan_ctx *pc, const shl_block *blk, fuse_block **out);
/* What the planner does with op #i of the block (every op counted): plan it
 * as usual, skip it (fused or a view nobody materialises), or emit *site. */
fuse_action fuse_action_at(const fuse_block *fb, uint32_t i, const fuse_site **site);
/* The value the planner binds for operand v of an op planned as usual: v,
 * or the one element a broadcast that is not materialised reads (only
 * scatters get such operands; see scatter.c). */
const shl_value *fuse_operand(const fuse_block *fb, const shl_value *v);
void fuse_free(fuse_block *fb);

#endif
