/* stablehlo.batch_norm_inference / _training / _grad, computed in double
 * (every float type) and rounded once per result element.  Statistics are
 * over all dimensions but feature_index; variances are biased (divide by N). */
#include <math.h>
#include <stdlib.h>

#include "kconvert.h"
#include "kutil.h"

typedef struct {
  int64_t F, stride, n; /* features, feature-dim stride, operand elements */
  double eps;
} bn_params;

static shl_status bn_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  const shl_type *t = op->operands[0]->type;
  if (!type_is_static(t)) return op_error(op, SHLOC_ERR_UNSUPPORTED, "needs static shapes");
  for (uint32_t k = 0; k < op->n_operands; k++)
    if (!dtype_is_float(type_storage_dtype(op->operands[k]->type)))
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "needs floating-point operands");
  int64_t fi;
  if (!attr_as_int(op_attr(op, "feature_index"), &fi) || fi < 0 || fi >= t->rank)
    return op_error(op, SHLOC_ERR_VERIFY, "has an invalid feature_index");
  bn_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  const shl_attr *e = op_attr(op, "epsilon");
  p->eps = e && e->kind == AT_FLOAT ? fp_to_f64(e->type ? e->type->dtype : DT_F32, e->u.f_bits) : 0;
  p->F = t->dims[fi];
  p->stride = 1;
  for (int32_t d = (int32_t)fi + 1; d < t->rank; d++) p->stride *= t->dims[d];
  p->n = type_num_elements(t);
  *params = p;
  return NULL;
}

static double *bn_load(const shl_buf *b) {
  double *d = malloc((size_t)(b->n + 1) * sizeof *d);
  if (d) ku_to_ck(CK_F64, b->dtype, b->data, d, b->n);
  return d;
}

static inline int64_t bn_feat(const bn_params *p, int64_t i) { return (i / p->stride) % p->F; }

/* Loads every operand as double; false on OOM (everything freed). */
static bool bn_load_all(shl_buf *const *in, uint32_t n, double **v) {
  bool ok = true;
  for (uint32_t k = 0; k < n; k++) ok = (v[k] = bn_load(in[k])) && ok;
  if (!ok)
    for (uint32_t k = 0; k < n; k++) free(v[k]);
  return ok;
}

static void bn_store(shl_buf *b, const double *v) { ku_from_ck(CK_F64, b->dtype, v, b->data, b->n); }

static void bn_stats(const bn_params *p, const double *x, double *mean, double *var) {
  double cnt = p->F ? (double)(p->n / p->F) : 0;
  for (int64_t f = 0; f < p->F; f++) mean[f] = var[f] = 0;
  for (int64_t i = 0; i < p->n; i++) mean[bn_feat(p, i)] += x[i];
  for (int64_t f = 0; f < p->F; f++) mean[f] = cnt ? mean[f] / cnt : 0;
  for (int64_t i = 0; i < p->n; i++) {
    double c = x[i] - mean[bn_feat(p, i)];
    var[bn_feat(p, i)] += c * c;
  }
  for (int64_t f = 0; f < p->F; f++) var[f] = cnt ? var[f] / cnt : 0;
}

static shl_status bn_inference_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const bn_params *p = po->params;
  double *v[5];
  if (!bn_load_all(in, 5, v)) return st_oom();
  double *x = v[0], *scale = v[1], *offset = v[2], *mean = v[3], *var = v[4];
  for (int64_t i = 0; i < p->n; i++) {
    int64_t f = bn_feat(p, i);
    x[i] = (x[i] - mean[f]) / sqrt(var[f] + p->eps) * scale[f] + offset[f];
  }
  bn_store(out[0], x);
  for (int k = 0; k < 5; k++) free(v[k]);
  return NULL;
}

static shl_status bn_training_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const bn_params *p = po->params;
  double *v[3];
  if (!bn_load_all(in, 3, v)) return st_oom();
  double *x = v[0], *scale = v[1], *offset = v[2];
  double *mean = malloc((size_t)(2 * p->F + 1) * sizeof *mean);
  if (!mean) {
    for (int k = 0; k < 3; k++) free(v[k]);
    return st_oom();
  }
  double *var = mean + p->F;
  bn_stats(p, x, mean, var);
  for (int64_t i = 0; i < p->n; i++) {
    int64_t f = bn_feat(p, i);
    x[i] = (x[i] - mean[f]) / sqrt(var[f] + p->eps) * scale[f] + offset[f];
  }
  bn_store(out[0], x);
  bn_store(out[1], mean);
  bn_store(out[2], var);
  free(mean);
  for (int k = 0; k < 3; k++) free(v[k]);
  return NULL;
}

static shl_status bn_grad_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const bn_params *p = po->params;
  double *v[5];
  if (!bn_load_all(in, 5, v)) return st_oom();
  double *x = v[0], *scale = v[1], *mean = v[2], *var = v[3], *gy = v[4];
  double *gs = calloc((size_t)(2 * p->F + 1), sizeof *gs);
  if (!gs) {
    for (int k = 0; k < 5; k++) free(v[k]);
    return st_oom();
  }
  double *go = gs + p->F, cnt = p->F ? (double)(p->n / p->F) : 0;
  for (int64_t i = 0; i < p->n; i++) {
    int64_t f = bn_feat(p, i);
    double norm = (x[i] - mean[f]) / sqrt(var[f] + p->eps);
    go[f] += gy[i];
    gs[f] += gy[i] * norm;
  }
  for (int64_t i = 0; i < p->n; i++) {
    int64_t f = bn_feat(p, i);
    double sd = sqrt(var[f] + p->eps), norm = (x[i] - mean[f]) / sd;
    x[i] = scale[f] / sd * (gy[i] - go[f] / cnt - norm * gs[f] / cnt);
  }
  bn_store(out[0], x);
  bn_store(out[1], gs);
  bn_store(out[2], go);
  free(gs);
  for (int k = 0; k < 5; k++) free(v[k]);
  return NULL;
}

const shl_kernel kernel_batch_norm_inference = {bn_prepare, bn_inference_run};
const shl_kernel kernel_batch_norm_training = {bn_prepare, bn_training_run};
const shl_kernel kernel_batch_norm_grad = {bn_prepare, bn_grad_run};
