/* Softmax groups (see fuse.h): a fused group that is exactly
 *
 *   p = x, or x op c (op multiply or divide, c a scalar)
 *   m = reduce(max, p) over the row      (from its init value)
 *   e = exp(p - m)
 *   s = reduce(add, e) over the row      (from its init value)
 *   out = e / s
 *
 * on f32, where m and s may also be results, plus up to SOFTMAX_FOLDS other
 * row reductions of x or p that are results (jnp.sum(x, 1) next to
 * jax.nn.softmax(x)), runs row by row in two row buffers: the row is read
 * from memory once, written once, and each step is one call of the f32 loop
 * the node-by-node evaluation uses (ew_f32.c), the folds in the same pieces,
 * so the results are the same bits.  The gain is in skipping the per-chunk
 * interpretation (filled tiles of the row maxima and sums, pointer setup,
 * tiles for each intermediate), in folding a row's pieces together, and in
 * the memory traffic: the next row is requested while one computes, and the
 * result is written around the cache. */
#include <omp.h>
#include <stdlib.h>

#include "fuse.h"

enum { SOFTMAX_FOLDS = 4 };

typedef struct {
  shl_opid binop;
  uint32_t init; /* input: its init value */
  uint32_t out;  /* its output */
  bool of_p;     /* folds p (else x) */
} softmax_fold;

struct fuse_softmax {
  uint32_t x, c;            /* inputs: the operand, the scalar (pre != 0) */
  shl_opid pre;             /* OP_MULTIPLY, OP_DIVIDE or 0 */
  bool swap;                /* c op x */
  uint32_t max_init, sum_init; /* inputs: the reductions' init values */
  uint32_t out;             /* output: the softmax */
  int32_t max_out, sum_out; /* outputs: the row maxima and sums (-1: none) */
  uint32_t n_folds;
  softmax_fold folds[SOFTMAX_FOLDS];
};

enum { SOFTMAX_PAR_MIN = 1 << 15 }; /* elements below which one thread does it all */

static bool f32_ew(const fnode *nd, uint8_t code, uint32_t n_in) {
  return nd->kind == FN_EW && nd->code == code && nd->n_in == n_in && nd->dt == DT_F32 && nd->out < 0;
}

static bool f32_reduce(const fnode *nd, shl_opid binop) {
  return nd->kind == FN_REDUCE && nd->binop == binop && nd->dt == DT_F32;
}

static bool f32_leaf(const fnode *nd, uint8_t loc) { return nd->kind == FN_LEAF && nd->loc == loc && nd->dt == DT_F32; }

/* The division node of the softmax, if the group has one. */
static const fnode *softmax_root(const fused_params *fp) {
  for (uint32_t k = 0; k < fp->n_nodes; k++) {
    const fnode *o = &fp->nodes[k];
    if (o->kind == FN_EW && o->code == EWP_DIV && o->dt == DT_F32 && o->n_in == 2 && o->out >= 0) return o;
  }
  return NULL;
}

shl_status fuse_softmax_build(plan_ctx *pc, fused_params *fp) {
  if (fp->rows < 1 || fp->cols < 1 || fp->prog.n_ins) return NULL;
  const fnode *nd = fp->nodes, *o = softmax_root(fp);
  if (!o) return NULL;
  const fnode *e = &nd[o->in[0]], *s = &nd[o->in[1]];
  if (!f32_reduce(s, OP_ADD) || s->src != o->in[0] || !f32_ew(e, EWP_EXP, 1)) return NULL;
  const fnode *d = &nd[e->in[0]];
  if (!f32_ew(d, EWP_SUB, 2)) return NULL;
  const fnode *p = &nd[d->in[0]], *m = &nd[d->in[1]];
  if (!f32_reduce(m, OP_MAXIMUM) || m->src != d->in[0]) return NULL;
  struct fuse_softmax sm = {.max_init = m->ext, .sum_init = s->ext, .out = (uint32_t)o->out,
                            .max_out = m->out, .sum_out = s->out};
  uint32_t used = 6, x_node = d->in[0]; /* o, e, s, d, m, x */
  if (f32_leaf(p, LOC_EXT)) {
    sm.x = p->ext;
  } else {
    if (p->kind != FN_EW || p->dt != DT_F32 || p->out >= 0 || p->n_in != 2 || (p->code != EWP_MUL && p->code != EWP_DIV))
      return NULL;
    const fnode *a = &nd[p->in[0]], *b = &nd[p->in[1]];
    sm.swap = f32_leaf(a, LOC_SCALAR);
    if (sm.swap ? !f32_leaf(b, LOC_EXT) : !f32_leaf(a, LOC_EXT) || !f32_leaf(b, LOC_SCALAR)) return NULL;
    sm.x = sm.swap ? b->ext : a->ext;
    sm.c = sm.swap ? a->ext : b->ext;
    x_node = sm.swap ? p->in[1] : p->in[0];
    sm.pre = p->code == EWP_MUL ? OP_MULTIPLY : OP_DIVIDE;
    used += 2;
  }
  /* row reductions of x or p that only the results read */
  for (uint32_t k = 0; k < fp->n_nodes; k++) {
    const fnode *f = &nd[k];
    if (f == m || f == s || f->kind != FN_REDUCE) continue;
    if (f->dt != DT_F32 || f->out < 0 || f->consumed || sm.n_folds == SOFTMAX_FOLDS ||
        (f->src != x_node && f->src != d->in[0]))
      return NULL;
    sm.folds[sm.n_folds++] = (softmax_fold){f->binop, f->ext, (uint32_t)f->out, f->src != x_node};
  }
  /* nothing else in the group */
  if (fp->n_nodes != used + sm.n_folds) return NULL;
  struct fuse_softmax *q = plan_alloc(pc, sizeof *q);
  if (!q) return st_oom();
  *q = sm;
  fp->softmax = q;
  return NULL;
}

int fuse_softmax_input(const fused_params *fp) {
  return fp->softmax && fp->n_out == 1 ? (int)fp->softmax->x : -1;
}

static float scalar_in(shl_buf *const *in, uint32_t k) {
  float v;
  memcpy(&v, in[k]->data, sizeof v);
  return v;
}

static void row_out(shl_buf *const *out, int32_t k, int64_t r, float v) {
  if (k >= 0) ((float *)out[k]->data)[r] = v;
}

/* Rows [r0, r1) with row buffers t (cols floats) and u (a piece).  A row is
 * written only after its last read, so out may be the input itself. */
static void softmax_rows(const fused_params *fp, const struct fuse_softmax *sm, shl_buf *const *in, shl_buf *const *out,
                         int64_t r0, int64_t r1, float *t, float *u) {
  int64_t cols = fp->cols, piece = cols < fp->chunk ? cols : fp->chunk;
  float c = sm->pre ? scalar_in(in, sm->c) : 0, max0 = scalar_in(in, sm->max_init), sum0 = scalar_in(in, sm->sum_init);
  for (int64_t r = r0; r < r1; r++) {
    const float *x = (const float *)in[sm->x]->data + r * cols, *p = x;
    float *o = (float *)out[sm->out]->data + r * cols;
    if (sm->pre) {
      ew_f32_binary_scalar(sm->pre, x, c, sm->swap, t, cols);
      p = t;
    }
    for (uint32_t k = 0; k < sm->n_folds; k++) {
      const softmax_fold *f = &sm->folds[k];
      float a = scalar_in(in, f->init);
      ew_fold_f32_pieces(f->binop, f->of_p ? p : x, cols, piece, &a);
      row_out(out, (int32_t)f->out, r, a);
    }
    float m = max0, s = sum0;
    ew_fold_f32_pieces(OP_MAXIMUM, p, cols, piece, &m);
    /* exp(p - m) a piece at a time (u stays in L1) while the thread's next
     * row is requested into L2, so that its first pass finds it there */
    const char *next = r + 1 < r1 ? (const char *)(x + cols) : NULL;
    for (int64_t j = 0; j < cols; j += piece) {
      int64_t len = cols - j < piece ? cols - j : piece;
      if (next)
        for (size_t b = 0; b < (size_t)len * sizeof(float); b += 64) __builtin_prefetch(next + (size_t)j * sizeof(float) + b, 0, 2);
      ew_f32_binary_scalar(OP_SUBTRACT, p + j, m, false, u, len);
      ew_f32_unary(OP_EXPONENTIAL, u, t + j, len);
    }
    ew_fold_f32_pieces(OP_ADD, t, cols, piece, &s);
    /* the result is not read here again: written around the cache */
    for (int64_t j = 0; j < cols; j += piece) {
      int64_t len = cols - j < piece ? cols - j : piece;
      ew_f32_binary_scalar(OP_DIVIDE, t + j, s, false, u, len);
      ew_f32_stream(u, o + j, len);
    }
    row_out(out, sm->max_out, r, m);
    row_out(out, sm->sum_out, r, s);
  }
}

shl_status fuse_softmax_run(const fused_params *fp, shl_buf *const *in, shl_buf *const *out) {
  const struct fuse_softmax *sm = fp->softmax;
  int nt = fp->n >= SOFTMAX_PAR_MIN ? omp_get_max_threads() : 1;
  if (nt > fp->rows) nt = (int)fp->rows;
  int64_t piece = fp->cols < fp->chunk ? fp->cols : fp->chunk;
  bool oom = false;
#pragma omp parallel num_threads(nt) if (nt > 1) reduction(|| : oom)
  {
    int t = omp_get_thread_num(), n = omp_get_num_threads();
    float *buf = malloc(((size_t)fp->cols + (size_t)piece) * sizeof *buf);
    if (buf)
      softmax_rows(fp, sm, in, out, fp->rows * t / n, fp->rows * (t + 1) / n, buf, buf + fp->cols);
    else
      oom = true;
    ew_stream_fence();
    free(buf);
  }
  return oom ? st_oom() : NULL;
}
