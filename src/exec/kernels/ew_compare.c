/* compare, select, clamp, iota, constant, chlo.constant_like. */
#include <math.h>

#include "ew_common.h"
#include "exec/plan.h"
#include "support/scalar.h"

/* ---- compare ---- */

shl_status ew_compare_init(const shl_op *op, shl_dtype in, ew_compare_op *p) {
  static const char *const dirs[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
  shl_str d = ew_enum_value(op, "comparison_direction"), t = ew_enum_value(op, "compare_type");
  int k = 0;
  while (k < 6 && !str_eq_c(d, dirs[k])) k++;
  if (k == 6) return op_error(op, SHLOC_ERR_VERIFY, "has no valid comparison_direction");
  p->dir = (ew_cmp_dir)k;
  p->in = in;
  p->ic = ew_cat_of(in);
  p->total = str_eq_c(t, "TOTALORDER");
  p->unsig = dtype_class(in) == DTC_UINT || dtype_class(in) == DTC_BOOL || str_eq_c(t, "UNSIGNED");
  if (p->ic == EWC_NONE)
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "is not supported for element type %s", dtype_name(in));
  return NULL;
}

/* Keys whose unsigned order is the IEEE total order (-NaN < -inf < ... < -0 < +0 < ... < +NaN). */
static uint64_t total_key(double d) {
  uint64_t u = fp_f64_bits(d);
  return (u >> 63) ? ~u : u | (1ull << 63);
}

/* (real, imag) pairs in lexicographic order, from the parts' relations
 * (a NaN part is in none of them). */
static bool cmp_lex(ew_cmp_dir d, bool rlt, bool req, bool rgt, bool ilt, bool ieq, bool igt) {
  switch (d) {
    case CMP_EQ: return req && ieq;
    case CMP_NE: return !(req && ieq);
    case CMP_GE: return rgt || (req && (igt || ieq));
    case CMP_GT: return rgt || (req && igt);
    case CMP_LE: return rlt || (req && (ilt || ieq));
    case CMP_LT: return rlt || (req && ilt);
  }
  return false;
}

#define CMP_LOOP(T, X, Y)                                    \
  do {                                                       \
    switch (p->dir) {                                        \
      case CMP_EQ:                                           \
        for (int i = 0; i < m; i++) r[i] = (T)(X) == (T)(Y); \
        break;                                               \
      case CMP_NE:                                           \
        for (int i = 0; i < m; i++) r[i] = (T)(X) != (T)(Y); \
        break;                                               \
      case CMP_GE:                                           \
        for (int i = 0; i < m; i++) r[i] = (T)(X) >= (T)(Y); \
        break;                                               \
      case CMP_GT:                                           \
        for (int i = 0; i < m; i++) r[i] = (T)(X) > (T)(Y);  \
        break;                                               \
      case CMP_LE:                                           \
        for (int i = 0; i < m; i++) r[i] = (T)(X) <= (T)(Y); \
        break;                                               \
      case CMP_LT:                                           \
        for (int i = 0; i < m; i++) r[i] = (T)(X) < (T)(Y);  \
        break;                                               \
    }                                                        \
  } while (0)

void ew_compare_apply(const ew_compare_op *p, const void *pa, const void *pb, uint8_t *dst, int64_t n) {
  unsigned bits = dtype_bits(p->in);
  uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  for (int64_t off = 0; off < n; off += EW_CHUNK) {
    int m = (int)(n - off < EW_CHUNK ? n - off : EW_CHUNK);
    uint8_t *r = dst + off;
    if (p->ic == EWC_INT) {
      int64_t a[EW_CHUNK], b[EW_CHUNK];
      ew_load_int(p->in, pa, off, m, a);
      ew_load_int(p->in, pb, off, m, b);
      if (p->unsig)
        CMP_LOOP(uint64_t, (uint64_t)a[i] & mask, (uint64_t)b[i] & mask);
      else
        CMP_LOOP(int64_t, a[i], b[i]);
    } else if (p->ic == EWC_REAL) {
      double a[EW_CHUNK], b[EW_CHUNK];
      ew_load_real(p->in, pa, off, m, a);
      ew_load_real(p->in, pb, off, m, b);
      if (p->total)
        CMP_LOOP(uint64_t, total_key(a[i]), total_key(b[i]));
      else
        CMP_LOOP(double, a[i], b[i]);
    } else {
      double complex a[EW_CHUNK], b[EW_CHUNK];
      ew_load_cplx(p->in, pa, off, m, a);
      ew_load_cplx(p->in, pb, off, m, b);
      /* The spec orders complex numbers lexicographically by (real, imag),
       * each part compared as compare_type says: x OP y is re OP' re' or
       * (re == re' and im OP im'), OP' the strict form of OP. */
      if (p->total) {
        for (int i = 0; i < m; i++) {
          uint64_t ar = total_key(creal(a[i])), br = total_key(creal(b[i]));
          uint64_t ai = total_key(cimag(a[i])), bi = total_key(cimag(b[i]));
          r[i] = cmp_lex(p->dir, ar < br, ar == br, ar > br, ai < bi, ai == bi, ai > bi);
        }
      } else {
        for (int i = 0; i < m; i++) {
          double ar = creal(a[i]), br = creal(b[i]), ai = cimag(a[i]), bi = cimag(b[i]);
          r[i] = cmp_lex(p->dir, ar < br, ar == br, ar > br, ai < bi, ai == bi, ai > bi);
        }
      }
    }
  }
}

static shl_status compare_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands != 2 || op->n_results != 1)
    return op_error(op, SHLOC_ERR_VERIFY, "expects two operands and one result");
  if (op->operands[0]->type->dtype == DT_QUANT)
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "quantized operands are not supported");
  ew_compare_op *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  ST_TRY(ew_compare_init(op, type_storage_dtype(op->operands[0]->type), p));
  *params = p;
  return NULL;
}

void ew_compare_eval(const void *params, const void *const *in, void *out, int64_t n) {
  ew_compare_apply(params, in[0], in[1], out, n);
}

static shl_status compare_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  ew_compare_apply(po->params, in[0]->data, in[1]->data, out[0]->data, out[0]->n);
  return NULL;
}

const shl_kernel kernel_compare = {compare_prepare, compare_run};

/* ---- select ---- */

#define SEL_LOOP(CT)                                                         \
  do {                                                                       \
    const CT *t_ = t, *f_ = f;                                               \
    CT *d_ = dst;                                                            \
    if (pred_n == 1) {                                                       \
      memcpy(dst, (pred[0] & 1) ? t : f, (size_t)n * sizeof(CT));            \
    } else {                                                                 \
      for (int64_t i = 0; i < n; i++) d_[i] = (pred[i] & 1) ? t_[i] : f_[i]; \
    }                                                                        \
  } while (0)

void ew_select_apply(const uint8_t *pred, int64_t pred_n, const void *t, const void *f, void *dst, int64_t n,
                     size_t esz) {
  switch (esz) {
    case 1:
      SEL_LOOP(uint8_t);
      break;
    case 2:
      SEL_LOOP(uint16_t);
      break;
    case 4:
      SEL_LOOP(uint32_t);
      break;
    case 8:
      SEL_LOOP(uint64_t);
      break;
    default:
      for (int64_t i = 0; i < n; i++) {
        bool c = pred[pred_n == 1 ? 0 : i] & 1;
        memcpy((uint8_t *)dst + (size_t)i * esz, (const uint8_t *)(c ? t : f) + (size_t)i * esz, esz);
      }
      break;
  }
}

/* params: the element size. */
static shl_status select_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands != 3 || op->n_results != 1)
    return op_error(op, SHLOC_ERR_VERIFY, "expects three operands and one result");
  size_t *esz = plan_alloc(pc, sizeof *esz);
  if (!esz) return st_oom();
  *esz = dtype_bytes(type_storage_dtype(op->results[0].type));
  *params = esz;
  return NULL;
}

void ew_select_eval(const void *params, const void *const *in, void *out, int64_t n) {
  ew_select_apply(in[0], n, in[1], in[2], out, n, *(const size_t *)params);
}

static shl_status select_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  ew_select_apply(in[0]->data, in[0]->n == out[0]->n ? out[0]->n : 1, in[1]->data, in[2]->data, out[0]->data, out[0]->n,
                  dtype_bytes(out[0]->dtype));
  return NULL;
}

const shl_kernel kernel_select = {select_prepare, select_run};

/* ---- clamp: min(max(operand, lo), hi), lo and hi scalar or full ---- */

typedef struct {
  ew_binary_op max, min;
} clamp_params;

static shl_status clamp_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands != 3 || op->n_results != 1)
    return op_error(op, SHLOC_ERR_VERIFY, "expects three operands and one result");
  if (op->operands[1]->type->dtype == DT_QUANT)
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "quantized operands are not supported");
  clamp_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  shl_dtype dt = type_storage_dtype(op->operands[1]->type);
  ST_TRY(ew_binary_init(op, OP_MAXIMUM, dt, dt, &p->max));
  ST_TRY(ew_binary_init(op, OP_MINIMUM, dt, dt, &p->min));
  *params = p;
  return NULL;
}

void ew_clamp_eval(const void *params, const void *const *in, void *out, int64_t n) {
  const clamp_params *p = params;
  ew_binary_apply(&p->max, in[1], in[0], out, n);
  ew_binary_apply(&p->min, out, in[2], out, n); /* in place: both loops read an element before writing it */
}

/* Chunk [off, off+m) of b, replicating a one-element buffer. */
static const void *chunk_of(const shl_buf *b, int64_t off, int m, size_t esz, uint8_t *tmp) {
  if (b->n != 1) return (const uint8_t *)b->data + (size_t)off * esz;
  for (int i = 0; i < m; i++) memcpy(tmp + (size_t)i * esz, b->data, esz);
  return tmp;
}

static shl_status clamp_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const clamp_params *p = po->params;
  size_t esz = dtype_bytes(out[0]->dtype);
  int64_t n = out[0]->n;
  _Alignas(16) uint8_t lo_tmp[EW_CHUNK * 16], hi_tmp[EW_CHUNK * 16], mid[EW_CHUNK * 16];
  for (int64_t off = 0; off < n; off += EW_CHUNK) {
    int m = (int)(n - off < EW_CHUNK ? n - off : EW_CHUNK);
    const void *lo = chunk_of(in[0], off, m, esz, lo_tmp), *hi = chunk_of(in[2], off, m, esz, hi_tmp);
    ew_binary_apply(&p->max, (const uint8_t *)in[1]->data + (size_t)off * esz, lo, mid, m);
    ew_binary_apply(&p->min, mid, hi, (uint8_t *)out[0]->data + (size_t)off * esz, m);
  }
  return NULL;
}

const shl_kernel kernel_clamp = {clamp_prepare, clamp_run};

/* ---- iota ---- */

typedef struct {
  int64_t stride, dim; /* of the iota dimension in the result */
} iota_params;

static shl_status iota_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  const shl_type *t = op->results[0].type;
  int64_t d;
  if (!attr_as_int(op_attr(op, "iota_dimension"), &d) || d < 0 || d >= t->rank)
    return op_error(op, SHLOC_ERR_VERIFY, "iota_dimension is out of range");
  if (ew_cat_of(type_storage_dtype(t)) == EWC_NONE || t->dtype == DT_QUANT)
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "is not supported for this element type");
  iota_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  p->stride = 1;
  for (int32_t k = (int32_t)d + 1; k < t->rank; k++) p->stride *= t->dims[k];
  p->dim = t->dims[d];
  *params = p;
  return NULL;
}

static shl_status iota_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const iota_params *p = po->params;
  shl_dtype dt = out[0]->dtype;
  ew_cat c = ew_cat_of(dt);
  int64_t n = out[0]->n;
  if (!p->stride || !p->dim) return NULL; /* no elements */
  /* value q = (e / stride) % dim, stepped (no division per element) */
  int64_t q = 0, r = 0;
  for (int64_t off = 0; off < n; off += EW_CHUNK) {
    int m = (int)(n - off < EW_CHUNK ? n - off : EW_CHUNK);
    int64_t v[EW_CHUNK];
    for (int i = 0; i < m; i++) {
      v[i] = q;
      if (++r == p->stride) {
        r = 0;
        if (++q == p->dim) q = 0;
      }
    }
    if (c == EWC_INT) {
      ew_store_int(dt, v, out[0]->data, off, m);
    } else if (c == EWC_REAL) {
      double d[EW_CHUNK];
      for (int i = 0; i < m; i++) d[i] = (double)v[i];
      ew_store_real_exact(dt, d, out[0]->data, off, m);
    } else {
      double complex z[EW_CHUNK];
      for (int i = 0; i < m; i++) z[i] = (double)v[i];
      ew_store_cplx(dt, z, out[0]->data, off, m);
    }
  }
  return NULL;
}

const shl_kernel kernel_iota = {iota_prepare, iota_run};

/* ---- constant (normally folded into the plan) and chlo.constant_like ---- */

typedef struct {
  const void *data;
  size_t esz;
  bool splat; /* data holds one element to repeat */
} const_params;

static shl_status constant_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  const shl_attr *v = op_attr(op, "value");
  if (!v || v->kind != AT_DENSE || !type_eq(v->type, op->results[0].type))
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "value is not a dense elements attribute of the result type");
  const_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  p->data = attr_dense_data(v);
  p->esz = dtype_bytes(type_storage_dtype(v->type));
  p->splat = v->u.dense.splat;
  *params = p;
  return NULL;
}

static shl_status constant_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const const_params *p = po->params;
  if (!p->splat) {
    if (out[0]->nbytes) memcpy(out[0]->data, p->data, out[0]->nbytes);
    return NULL;
  }
  for (int64_t i = 0; i < out[0]->n; i++) memcpy((uint8_t *)out[0]->data + (size_t)i * p->esz, p->data, p->esz);
  return NULL;
}

const shl_kernel kernel_constant = {constant_prepare, constant_run};

/* The scalar `value` attribute converted to the result element type. */
static shl_status constant_like_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  const shl_attr *v = op_attr(op, "value");
  shl_dtype dt = type_storage_dtype(op->results[0].type);
  ew_cat c = ew_cat_of(dt);
  const_params *p = plan_alloc(pc, sizeof *p);
  uint8_t *e = plan_alloc(pc, 16);
  if (!p || !e) return st_oom();
  memset(e, 0, 16);
  p->esz = dtype_bytes(dt);
  p->splat = true;
  p->data = e;
  if (v && v->kind == AT_DENSE && v->u.dense.nbytes >= p->esz && type_storage_dtype(v->type) == dt) {
    memcpy(e, attr_dense_data(v), p->esz);
  } else if (v && (v->kind == AT_FLOAT || v->kind == AT_INT || v->kind == AT_BOOL)) {
    double d = v->kind == AT_FLOAT ? fp_to_f64(v->type->dtype, v->u.f_bits)
               : v->kind == AT_INT ? (double)v->u.i
                                   : v->u.b;
    int64_t iv = v->kind == AT_INT ? v->u.i : v->kind == AT_BOOL ? v->u.b : (int64_t)d;
    if (c == EWC_INT)
      ew_store_int(dt, &iv, e, 0, 1);
    else if (c == EWC_REAL)
      ew_store_real_exact(dt, &d, e, 0, 1);
    else if (c == EWC_CPLX) {
      double complex z = d;
      ew_store_cplx(dt, &z, e, 0, 1);
    } else
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "is not supported for this element type");
  } else {
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "value must be a scalar attribute of the result element type");
  }
  *params = p;
  return NULL;
}

const shl_kernel kernel_constant_like = {constant_like_prepare, constant_run};
