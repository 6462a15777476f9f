/* The fused op's kernel (see fuse.h): evaluates a group's nodes chunk by
 * chunk into per-thread scratch tiles.  Threads take contiguous row blocks,
 * or, for a group that is one row evaluated in one pass (every elementwise
 * group, full reductions), contiguous ranges of chunks whose partial folds
 * are combined at the end in thread order. */
#include <omp.h>
#include <stdlib.h>

#include "fuse.h"
#include "kernels/index_util.h"
#include "kernels/kutil.h"

enum { FUSE_PAR_MIN = 1 << 15 }; /* elements below which one thread does it all */
enum { FUSE_AHEAD_MAX = 1 << 14 }; /* most elements of a row block prefetched a block ahead */

/* A run state's scratch of one group. */
typedef struct {
  uint8_t *mem;
  bool *ready; /* per thread: its scratch holds the scalar tiles of a previous run */
  int threads;
} fuse_cache;

static void cache_clear(fuse_cache *c) {
  free(c->mem);
  free(c->ready);
  c->mem = NULL;
  c->ready = NULL;
  c->threads = 0;
}

static void cache_release(void *arg) {
  cache_clear(arg);
  free(arg);
}

shl_status fuse_cache_new(plan_ctx *pc, fused_params *fp) { return plan_state_new(pc, cache_release, &fp->cache_id); }

static uint8_t *scratch(fuse_cache *c, const fused_params *fp, int threads) {
  if (c->threads < threads) {
    cache_clear(c);
    c->mem = aligned_alloc(64, fp->scratch * (size_t)threads);
    c->ready = calloc((size_t)threads, sizeof *c->ready);
    if (!c->mem || !c->ready) {
      cache_clear(c);
      return NULL;
    }
    c->threads = threads;
  }
  return c->mem;
}

#define SPLAT_LOOP(T)                                                      \
  do {                                                                     \
    T x_;                                                                  \
    memcpy(&x_, v, sizeof x_);                                             \
    _Pragma("omp simd") for (int64_t i = 0; i < n; i++) memcpy(dst + sizeof x_ * (size_t)i, &x_, sizeof x_); \
  } while (0)

/* n copies of the element at v. */
static void splat(uint8_t *dst, const void *v, size_t esz, int64_t n) {
  switch (esz) {
    case 1: memset(dst, *(const uint8_t *)v, (size_t)n); break;
    case 2: SPLAT_LOOP(uint16_t); break;
    case 4: SPLAT_LOOP(uint32_t); break;
    case 8: SPLAT_LOOP(uint64_t); break;
    default:
      for (int64_t i = 0; i < n; i++) memcpy(dst + (size_t)i * esz, v, esz);
      break;
  }
}

/* The input element a leaf reads for group element e. */
static int64_t leaf_index(const fnode *nd, int64_t e) {
  int64_t off = 0;
  for (int32_t d = 0; d < nd->rank; d++) off += (e / nd->pitch[d]) % nd->dims[d] * nd->stride[d];
  return off;
}

/* Gathers group elements [e0, e0 + m) of a broadcasting leaf: runs along
 * the innermost dimension, then an odometer over the others. */
static void gather(const fnode *nd, const uint8_t *src, uint8_t *dst, int64_t e0, int64_t m) {
  int32_t r = nd->rank, last = r - 1;
  size_t esz = nd->esz;
  int64_t idx[KU_MAX_RANK], off = 0;
  for (int32_t d = 0; d < r; d++) {
    idx[d] = (e0 / nd->pitch[d]) % nd->dims[d];
    off += idx[d] * nd->stride[d];
  }
  int64_t inner = nd->dims[last], st = nd->stride[last];
  while (m > 0) {
    int64_t run = inner - idx[last] < m ? inner - idx[last] : m;
    if (st == 0) splat(dst, src + (size_t)off * esz, esz, run);
    else if (st == 1) memcpy(dst, src + (size_t)off * esz, (size_t)run * esz);
    else
      for (int64_t i = 0; i < run; i++) memcpy(dst + (size_t)i * esz, src + (size_t)(off + i * st) * esz, esz);
    dst += (size_t)run * esz;
    m -= run;
    off += run * st;
    idx[last] += run;
    if (idx[last] < inner) continue;
    off -= inner * st;
    idx[last] = 0;
    for (int32_t d = last - 1; d >= 0; d--) {
      off += nd->stride[d];
      if (++idx[d] < nd->dims[d]) break;
      off -= nd->dims[d] * nd->stride[d];
      idx[d] = 0;
    }
  }
}

/* The table row of group element e of a LOC_ROWS leaf (clamped, as gather clamps). */
static const uint8_t *table_row(const fnode *nd, shl_buf *const *in, int64_t e) {
  int64_t r = index_load(nd->idx_dt, (const uint8_t *)in[nd->idx_ext]->data + (size_t)(e / nd->row_len) * dtype_bytes(nd->idx_dt));
  r = r < 0 ? 0 : r >= nd->tab_rows ? nd->tab_rows - 1 : r;
  return (const uint8_t *)in[nd->ext]->data + (size_t)(r * nd->row_len) * nd->esz;
}

/* Group elements [e0, e0 + m) of a LOC_ROWS leaf, row piece by row piece. */
static void gather_rows(const fnode *nd, shl_buf *const *in, uint8_t *dst, int64_t e0, int64_t m) {
  for (int64_t e = e0; e < e0 + m;) {
    int64_t c = e % nd->row_len, run = nd->row_len - c < e0 + m - e ? nd->row_len - c : e0 + m - e;
    memcpy(dst + (size_t)(e - e0) * nd->esz, table_row(nd, in, e) + (size_t)c * nd->esz, (size_t)run * nd->esz);
    e += run;
  }
}

/* Fills a tile with per-row values (`vals` spaced 16 bytes) for the rows
 * of a block: each row's value over its part of the chunk. */
static void fill_rows(const fused_params *fp, uint8_t *tile, size_t esz, const uint8_t *vals, int64_t nrows) {
  int64_t per = fp->cols < fp->chunk ? fp->cols : fp->chunk;
  for (int64_t j = 0; j < nrows; j++) splat(tile + (size_t)(j * per) * esz, vals + 16 * j, esz, per);
}

typedef struct {
  const fused_params *fp;
  shl_buf *const *in, *const *out;
  fuse_cache *c;
} frun;

static void *loc_ptr(const frun *f, const fnode *nd, uint8_t *scr, int64_t e0, int64_t c0) {
  switch (nd->loc) {
    case LOC_OUT: return (uint8_t *)f->out[nd->out]->data + (size_t)e0 * nd->esz;
    case LOC_ROW: return scr + nd->off + (size_t)c0 * nd->esz;
    default: return scr + nd->off;
  }
}

/* Evaluates pass s over group elements [e0, e0 + m), which start at offset
 * c0 of their row block; folds use segments of `seg` elements (one per row).
 * Group elements [pf, pf + pm) of every buffer read or written in place are
 * requested meanwhile. */
static void run_chunk(const frun *f, uint8_t *scr, uint32_t s, int64_t e0, int64_t m, int64_t c0, int64_t seg,
                      int64_t pf, int64_t pm) {
  const fused_params *fp = f->fp;
  void **ptr = (void **)scr;
  for (uint32_t k = 0; k < fp->n_nodes; k++) {
    const fnode *nd = &fp->nodes[k];
    bool streamed = nd->kind == FN_LEAF ? nd->loc == LOC_EXT : nd->kind == FN_EW && nd->loc == LOC_OUT;
    /* Prefetching keeps memory busy while the arithmetic runs; without it
     * each chunk (or row) waits for memory with the arithmetic idle, then
     * computes with memory idle.  (Inline: GCC 12 drops calls to a
     * function that only prefetches, finding it const.) */
    if (nd->kind == FN_LEAF && nd->loc == LOC_ROWS && pm > 0)
      for (int64_t e = pf; e < pf + pm;) {
        int64_t c = e % nd->row_len, run = nd->row_len - c < pf + pm - e ? nd->row_len - c : pf + pm - e;
        const uint8_t *p = table_row(nd, f->in, e) + (size_t)c * nd->esz;
        for (size_t o = 0; o < (size_t)run * nd->esz; o += 64) __builtin_prefetch(p + o, 0, 3);
        e += run;
      }
    if (streamed && pm > 0) {
      const shl_buf *b = nd->kind == FN_EW ? f->out[nd->out] : f->in[nd->ext];
      const uint8_t *p = (const uint8_t *)b->data + (size_t)pf * nd->esz;
      size_t bytes = (size_t)pm * nd->esz;
      if (nd->kind == FN_EW)
        for (size_t o = 0; o < bytes; o += 64) __builtin_prefetch(p + o, 1, 3);
      else
        for (size_t o = 0; o < bytes; o += 64) __builtin_prefetch(p + o, 0, 3);
    }
    if (nd->kind == FN_LEAF) {
      if (nd->loc == LOC_EXT) ptr[k] = (uint8_t *)f->in[nd->ext]->data + (size_t)e0 * nd->esz;
      else if (nd->loc == LOC_FILL && s >= nd->first_pass && s <= nd->last_pass)
        gather(nd, f->in[nd->ext]->data, scr + nd->off, e0, m);
      else if (nd->loc == LOC_ROWS && s >= nd->first_pass && s <= nd->last_pass)
        gather_rows(nd, f->in, scr + nd->off, e0, m);
    } else if (nd->kind == FN_EW) {
      if (nd->avail == s) {
        const void *args[3];
        for (uint32_t j = 0; j < nd->n_in; j++) args[j] = ptr[nd->in[j]];
        void *dst = loc_ptr(f, nd, scr, e0, c0);
        nd->eval(nd->params, args, dst, m);
        ptr[k] = dst;
      } else if (nd->avail < s && nd->loc != LOC_TILE) {
        ptr[k] = loc_ptr(f, nd, scr, e0, c0);
      }
    } else if (nd->avail == s + 1) {
      const uint8_t *src = ptr[nd->src];
      uint8_t *acc = scr + fp->acc_off + nd->acc;
      for (int64_t j = 0; j * seg < m; j++)
        ew_fold(nd->binop, nd->dt, src + (size_t)(j * seg) * nd->esz, m - j * seg < seg ? m - j * seg : seg,
                acc + 16 * j);
    }
  }
}

/* Per-thread setup: node pointers of tiles that do not move, scalars (kept
 * from the previous run when their value is the same). */
static void setup(const frun *f, uint8_t *scr, int t) {
  const fused_params *fp = f->fp;
  bool *ready = &f->c->ready[t];
  void **ptr = (void **)scr;
  for (uint32_t k = 0; k < fp->n_nodes; k++) {
    const fnode *nd = &fp->nodes[k];
    ptr[k] = scr + nd->off;
    if (nd->kind == FN_LEAF && nd->loc == LOC_SCALAR && !(*ready && !memcmp(scr + nd->off, f->in[nd->ext]->data, nd->esz)))
      splat(scr + nd->off, f->in[nd->ext]->data, nd->esz, fp->chunk);
  }
  *ready = true;
}

/* Rows [r0, r0 + nrows) of a block, pass by pass.  Blocks that fit in L2
 * prefetch the thread's next block (rows up to r_end) a slice per chunk
 * over all the passes, so that memory stays busy during the passes that
 * only compute and the first pass of the next block finds its rows in
 * cache; longer blocks (one pass) prefetch the next chunk. */
static void run_block(const frun *f, uint8_t *scr, int64_t r0, int64_t nrows, int64_t r_end) {
  const fused_params *fp = f->fp;
  int64_t len = nrows * fp->cols, e_end = r_end * fp->cols;
  int64_t next = r_end - r0 - nrows < fp->block_rows ? r_end - r0 - nrows : fp->block_rows;
  int64_t pf0 = (r0 + nrows) * fp->cols, pf_len = next * fp->cols;
  int64_t steps = (int64_t)fp->n_passes * ((len + fp->chunk - 1) / fp->chunk), step = 0;
  bool by_block = len <= FUSE_AHEAD_MAX;
  for (uint32_t k = 0; k < fp->n_nodes; k++) {
    const fnode *nd = &fp->nodes[k];
    if (nd->kind != FN_LEAF || nd->loc != LOC_ROWVAL) continue;
    uint8_t vals[16 * FUSE_TILE];
    for (int64_t j = 0; j < nrows; j++)
      memcpy(vals + 16 * j, (const uint8_t *)f->in[nd->ext]->data + (size_t)leaf_index(nd, (r0 + j) * fp->cols) * nd->esz,
             nd->esz);
    fill_rows(fp, scr + nd->off, nd->esz, vals, nrows);
  }
  for (uint32_t s = 0; s < fp->n_passes; s++) {
    for (uint32_t k = 0; k < fp->n_nodes; k++) {
      const fnode *nd = &fp->nodes[k];
      if (nd->kind == FN_REDUCE && nd->avail == s + 1)
        for (int64_t j = 0; j < nrows; j++) memcpy(scr + fp->acc_off + nd->acc + 16 * j, f->in[nd->ext]->data, nd->esz);
    }
    for (int64_t c0 = 0; c0 < len; c0 += fp->chunk, step++) {
      int64_t e0 = r0 * fp->cols + c0, m = len - c0 < fp->chunk ? len - c0 : fp->chunk;
      int64_t a = pf0 + pf_len * step / steps, b = pf0 + pf_len * (step + 1) / steps;
      if (!by_block) {
        a = e0 + m;
        b = e_end - a < m ? e_end : a + m;
      }
      run_chunk(f, scr, s, e0, m, c0, fp->cols, a, b - a);
    }
    for (uint32_t k = 0; k < fp->n_nodes; k++) {
      const fnode *nd = &fp->nodes[k];
      if (nd->kind != FN_REDUCE || nd->avail != s + 1) continue;
      const uint8_t *acc = scr + fp->acc_off + nd->acc;
      if (nd->out >= 0)
        for (int64_t j = 0; j < nrows; j++)
          memcpy((uint8_t *)f->out[nd->out]->data + (size_t)(r0 + j) * nd->esz, acc + 16 * j, nd->esz);
      if (nd->scalar) memcpy(scr + nd->off, acc, nd->esz);
      else if (nd->consumed) fill_rows(fp, scr + nd->off, nd->esz, acc, nrows);
    }
  }
}

static void work_rows(const frun *f, uint8_t *scr, int t, int nt) {
  const fused_params *fp = f->fp;
  setup(f, scr, t);
  int64_t blocks = (fp->rows + fp->block_rows - 1) / fp->block_rows;
  int64_t b1 = blocks * (t + 1) / nt, r_end = b1 * fp->block_rows < fp->rows ? b1 * fp->block_rows : fp->rows;
  for (int64_t b = blocks * t / nt; b < b1; b++) {
    int64_t r0 = b * fp->block_rows;
    run_block(f, scr, r0, fp->rows - r0 < fp->block_rows ? fp->rows - r0 : fp->block_rows, r_end);
  }
}

/* One row in one pass: chunks split between threads, folds start from the
 * identity and are combined by the caller. */
static void work_split(const frun *f, uint8_t *scr, int t, int nt) {
  const fused_params *fp = f->fp;
  setup(f, scr, t);
  for (uint32_t k = 0; k < fp->n_nodes; k++) {
    const fnode *nd = &fp->nodes[k];
    if (nd->kind == FN_REDUCE) ew_fold_identity(nd->binop, nd->dt, scr + fp->acc_off + nd->acc);
  }
  int64_t chunks = fp->chunk ? (fp->n + fp->chunk - 1) / fp->chunk : 0;
  int64_t c1 = chunks * (t + 1) / nt, e_end = c1 * fp->chunk < fp->n ? c1 * fp->chunk : fp->n;
  for (int64_t c = chunks * t / nt; c < c1; c++) {
    /* the thread's next chunk is requested while this one computes */
    int64_t e0 = c * fp->chunk, m = fp->n - e0 < fp->chunk ? fp->n - e0 : fp->chunk;
    run_chunk(f, scr, 0, e0, m, e0, fp->n, e0 + m, e_end - e0 - m < m ? e_end - e0 - m : m);
  }
}

/* A register program over this thread's share of whole blocks of
 * EWP_BLOCK elements; broadcasting leaves are gathered a chunk at a time
 * into their tiles, other groups run in one call. */
static void work_prog(const frun *f, uint8_t *scr, int t, int nt) {
  const fused_params *fp = f->fp;
  const float *src[FUSE_PROG_MAX_IO];
  float *dst[FUSE_PROG_MAX_IO];
  int64_t blocks = (fp->n + EWP_BLOCK - 1) / EWP_BLOCK;
  int64_t e0 = blocks * t / nt * EWP_BLOCK, e1 = blocks * (t + 1) / nt * EWP_BLOCK;
  if (e1 > fp->n) e1 = fp->n;
  bool gathers = false;
  for (uint32_t a = 0; a < fp->n_src; a++) gathers |= fp->nodes[fp->src_node[a]].loc == LOC_FILL;
  int64_t step = gathers ? fp->chunk : e1 - e0;
  for (int64_t c = e0; c < e1; c += step) {
    int64_t m = e1 - c < step ? e1 - c : step;
    for (uint32_t a = 0; a < fp->n_src; a++) {
      const fnode *nd = &fp->nodes[fp->src_node[a]];
      const float *base = f->in[nd->ext]->data;
      if (nd->loc == LOC_FILL) {
        gather(nd, f->in[nd->ext]->data, scr + nd->off, c, m);
        base = (const float *)(scr + nd->off);
      } else if (nd->loc == LOC_EXT) {
        base += c;
      }
      src[a] = base;
    }
    for (uint32_t o = 0; o < fp->n_out; o++) dst[o] = (float *)f->out[o]->data + c;
    ew_prog_run(&fp->prog, src, dst, m);
  }
}

/* Whether an output shares memory with a buffer a register program reads
 * element by element: a program may store an output before a later node
 * reads a source in the same block, so such groups go node by node. */
static bool prog_overlaps(const frun *f) {
  const fused_params *fp = f->fp;
  for (uint32_t a = 0; a < fp->n_src; a++) {
    const shl_buf *b = f->in[fp->nodes[fp->src_node[a]].ext];
    for (uint32_t o = 0; o < fp->n_out; o++) {
      const shl_buf *c = f->out[o];
      uintptr_t b0 = (uintptr_t)b->data, c0 = (uintptr_t)c->data;
      if (b0 < c0 + c->nbytes && c0 < b0 + b->nbytes) return true;
    }
  }
  return false;
}

static shl_status run_prog(const frun *f) {
  const fused_params *fp = f->fp;
  int64_t blocks = (fp->n + EWP_BLOCK - 1) / EWP_BLOCK;
  int nt = fp->n >= FUSE_PAR_MIN ? omp_get_max_threads() : 1;
  if (nt > blocks) nt = blocks > 1 ? (int)blocks : 1;
  uint8_t *mem = scratch(f->c, fp, nt);
  if (!mem) return st_oom();
  if (nt == 1) {
    work_prog(f, mem, 0, 1);
    return NULL;
  }
#pragma omp parallel num_threads(nt)
  {
    int t = omp_get_thread_num();
    work_prog(f, mem + (size_t)t * fp->scratch, t, omp_get_num_threads());
  }
  return NULL;
}

/* A group of one f32 binary op runs node by node when its result shares an
 * operand's memory (prog_overlaps), and run_chunk then hands the op each
 * chunk of an operand in place (LOC_EXT); the f32 binary loops (ew_f32.c)
 * read each vector of elements before they store the same elements, so an
 * operand that the group reads only that way may be overwritten by the
 * result (the frame layout decides, plan_frame.c).  Other kernels may read
 * their operand again after writing (exp does), so they do not qualify.
 * convnet's ReLU after its first convolution no longer holds a second
 * 6.4 MB buffer. */
int fuse_inplace_input(const fused_params *fp) {
  if (fp->softmax || fp->n_out != 1 || fp->rows != 1 || fp->n_passes != 1 || !fp->n_nodes) return -1;
  const fnode *op = &fp->nodes[fp->n_nodes - 1];
  if (op->kind != FN_EW || op->loc != LOC_OUT || op->out != 0) return -1;
  if ((op->eval != ew_binary_eval && op->eval != ew_binary_eval_sa && op->eval != ew_binary_eval_sb) ||
      !ew_binary_scalar_ok(op->params))
    return -1;
  for (uint32_t k = 0; k + 1 < fp->n_nodes; k++)
    if (fp->nodes[k].kind != FN_LEAF) return -1;
  for (uint32_t k = 0; k + 1 < fp->n_nodes; k++) {
    const fnode *nd = &fp->nodes[k];
    bool ok = nd->loc == LOC_EXT && nd->esz == op->esz;
    for (uint32_t j = 0; j + 1 < fp->n_nodes && ok; j++)
      ok = fp->nodes[j].ext != nd->ext || fp->nodes[j].loc == LOC_EXT;
    if (ok) return (int)nd->ext;
  }
  return -1;
}

static shl_status fused_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const fused_params *fp = po->params;
  if (fp->softmax) return fuse_softmax_run(fp, in, out);
  fuse_cache **c = (fuse_cache **)exec_state(ec, fp->cache_id);
  if (!*c && !(*c = calloc(1, sizeof **c))) return st_oom();
  frun f = {fp, in, out, *c};
  if (fp->prog.n_ins && !prog_overlaps(&f)) return run_prog(&f);
  bool split = fp->rows == 1 && fp->n_passes == 1;
  int64_t units = split ? (fp->chunk ? fp->n / fp->chunk : 0) : (fp->rows + fp->block_rows - 1) / fp->block_rows;
  int nt = fp->n >= FUSE_PAR_MIN ? omp_get_max_threads() : 1;
  if (nt > units) nt = units > 1 ? (int)units : 1;
  uint8_t *mem = scratch(f.c, fp, nt);
  if (!mem) return st_oom();
  void (*work)(const frun *, uint8_t *, int, int) = split ? work_split : work_rows;
  if (nt == 1) {
    work(&f, mem, 0, 1);
  } else {
    int used = 1;
#pragma omp parallel num_threads(nt)
    {
      int t = omp_get_thread_num(), n = omp_get_num_threads();
      if (t == 0) used = n;
      work(&f, mem + (size_t)t * fp->scratch, t, n);
    }
    nt = used;
  }
  if (!split) return NULL;
  /* init, then the threads' partial folds in thread order */
  for (uint32_t k = 0; k < fp->n_nodes; k++) {
    const fnode *nd = &fp->nodes[k];
    if (nd->kind != FN_REDUCE || nd->out < 0) continue;
    uint8_t acc[16];
    memcpy(acc, in[nd->ext]->data, nd->esz);
    for (int t = 0; t < nt; t++) ew_fold(nd->binop, nd->dt, mem + (size_t)t * fp->scratch + fp->acc_off + nd->acc, 1, acc);
    memcpy(out[nd->out]->data, acc, nd->esz);
  }
  return NULL;
}

const shl_kernel kernel_fused = {NULL, fused_run};
