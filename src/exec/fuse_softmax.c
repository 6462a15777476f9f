/* Softmax groups (see fuse.h): a fused group that is exactly
 *
 *   p = x, or x op c (op multiply or divide, c a scalar)
 *   m = reduce(max, p) over the row      (from its init value)
 *   e = exp(p - m)
 *   s = reduce(add, e) over the row      (from its init value)
 *   out = e / s
 *
 * on f32 runs row by row in two row buffers: the row is read from memory
 * once, written once, and each step is one call of the f32 loop the
 * node-by-node evaluation uses (ew_f32.c), the folds in the same pieces,
 * so the results are the same bits.  The gain is in skipping the per-chunk
 * interpretation: filled tiles of the row maxima and sums, pointer setup,
 * tiles for each intermediate. */
#include <omp.h>
#include <stdlib.h>

#include "fuse.h"

struct fuse_softmax {
  uint32_t x, c;            /* inputs: the operand, the scalar (pre != 0) */
  shl_opid pre;             /* OP_MULTIPLY, OP_DIVIDE or 0 */
  bool swap;                /* c op x */
  uint32_t max_init, sum_init; /* inputs: the reductions' init values */
};

enum { SOFTMAX_PAR_MIN = 1 << 15 }; /* elements below which one thread does it all */

static bool f32_ew(const fnode *nd, uint8_t code, uint32_t n_in) {
  return nd->kind == FN_EW && nd->code == code && nd->n_in == n_in && nd->dt == DT_F32 && nd->out < 0;
}

static bool f32_reduce(const fnode *nd, shl_opid binop) {
  return nd->kind == FN_REDUCE && nd->binop == binop && nd->dt == DT_F32 && nd->out < 0;
}

static bool f32_leaf(const fnode *nd, uint8_t loc) { return nd->kind == FN_LEAF && nd->loc == loc && nd->dt == DT_F32; }

shl_status fuse_softmax_build(plan_ctx *pc, fused_params *fp) {
  if (fp->n_out != 1 || fp->rows < 1 || fp->cols < 1 || fp->prog.n_ins) return NULL;
  const fnode *nd = fp->nodes, *o = NULL;
  for (uint32_t k = 0; k < fp->n_nodes; k++)
    if (nd[k].out == 0) o = &nd[k];
  if (!o || o->kind != FN_EW || o->code != EWP_DIV || o->dt != DT_F32 || o->n_in != 2) return NULL;
  const fnode *e = &nd[o->in[0]], *s = &nd[o->in[1]];
  if (!f32_reduce(s, OP_ADD) || s->src != o->in[0] || !f32_ew(e, EWP_EXP, 1)) return NULL;
  const fnode *d = &nd[e->in[0]];
  if (!f32_ew(d, EWP_SUB, 2)) return NULL;
  const fnode *p = &nd[d->in[0]], *m = &nd[d->in[1]];
  if (!f32_reduce(m, OP_MAXIMUM) || m->src != d->in[0]) return NULL;
  struct fuse_softmax sm = {.max_init = m->ext, .sum_init = s->ext};
  uint32_t used = 6; /* o, e, s, d, m, x */
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
    sm.pre = p->code == EWP_MUL ? OP_MULTIPLY : OP_DIVIDE;
    used += 2;
  }
  /* nothing else in the group */
  if (fp->n_nodes != used) return NULL;
  struct fuse_softmax *q = plan_alloc(pc, sizeof *q);
  if (!q) return st_oom();
  *q = sm;
  fp->softmax = q;
  return NULL;
}

int fuse_softmax_input(const fused_params *fp) { return fp->softmax ? (int)fp->softmax->x : -1; }

/* Rows [r0, r1) with row buffers t and u of cols floats each.  A row is
 * written only after its last read, so out may be the input itself. */
static void softmax_rows(const fused_params *fp, const struct fuse_softmax *sm, shl_buf *const *in, float *out,
                         int64_t r0, int64_t r1, float *t, float *u) {
  int64_t cols = fp->cols, piece = cols < fp->chunk ? cols : fp->chunk;
  float c = 0, max0, sum0;
  if (sm->pre) memcpy(&c, in[sm->c]->data, sizeof c);
  memcpy(&max0, in[sm->max_init]->data, sizeof max0);
  memcpy(&sum0, in[sm->sum_init]->data, sizeof sum0);
  for (int64_t r = r0; r < r1; r++) {
    const float *x = (const float *)in[sm->x]->data + r * cols, *p = x;
    float *o = out + r * cols;
    if (sm->pre) {
      ew_f32_binary_scalar(sm->pre, x, c, sm->swap, t, cols);
      p = t;
    }
    float m = max0, s = sum0;
    for (int64_t j = 0; j < cols; j += piece) ew_fold(OP_MAXIMUM, DT_F32, p + j, cols - j < piece ? cols - j : piece, &m);
    ew_f32_binary_scalar(OP_SUBTRACT, p, m, false, u, cols);
    ew_f32_unary(OP_EXPONENTIAL, u, t, cols);
    for (int64_t j = 0; j < cols; j += piece) ew_fold(OP_ADD, DT_F32, t + j, cols - j < piece ? cols - j : piece, &s);
    ew_f32_binary_scalar(OP_DIVIDE, t, s, false, o, cols);
  }
}

shl_status fuse_softmax_run(const fused_params *fp, shl_buf *const *in, shl_buf *const *out) {
  const struct fuse_softmax *sm = fp->softmax;
  int nt = fp->n >= SOFTMAX_PAR_MIN ? omp_get_max_threads() : 1;
  if (nt > fp->rows) nt = (int)fp->rows;
  bool oom = false;
#pragma omp parallel num_threads(nt) if (nt > 1) reduction(|| : oom)
  {
    int t = omp_get_thread_num(), n = omp_get_num_threads();
    float *buf = malloc(2 * (size_t)fp->cols * sizeof *buf);
    if (buf)
      softmax_rows(fp, sm, in, out[0]->data, fp->rows * t / n, fp->rows * (t + 1) / n, buf, buf + fp->cols);
    else
      oom = true;
    free(buf);
  }
  return oom ? st_oom() : NULL;
}
