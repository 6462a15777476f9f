/* convert, bitcast_convert, reduce_precision.
 * convert follows XLA: float -> int truncates toward zero, NaN gives 0 and
 * out-of-range values saturate; -> bool is "!= 0"; complex -> anything else
 * keeps the real part (bool included); every float result is rounded once from the exact value. */
#include <math.h>

#include "ew_common.h"
#include "exec/plan.h"
#include "support/scalar.h"

typedef struct {
  shl_dtype in, out;
  ew_cat ic, oc;
  bool via_f32;          /* real -> real from a format f32 holds exactly: through f32 */
  bool f2i_unsigned;     /* real -> integer (not bool): the target's range */
  double f2i_lo, f2i_hi; /* saturate at or below lo / at or above hi */
  int64_t f2i_min, f2i_max;
} convert_params;

static shl_status convert_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands != 1 || op->n_results != 1)
    return op_error(op, SHLOC_ERR_VERIFY, "expects one operand and one result");
  convert_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  p->in = type_storage_dtype(op->operands[0]->type);
  p->out = type_storage_dtype(op->results[0].type);
  p->ic = ew_cat_of(p->in);
  p->oc = ew_cat_of(p->out);
  if (op->operands[0]->type->dtype == DT_QUANT || op->results[0].type->dtype == DT_QUANT || p->ic == EWC_NONE ||
      p->oc == EWC_NONE)
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "is not supported for element type %s -> %s", dtype_name(p->in),
                    dtype_name(p->out));
  /* Every float narrower than f64 is exactly an f32, and rounding that f32
   * once to the target is the conversion (scalar.h's f32 paths). */
  p->via_f32 = p->ic == EWC_REAL && p->oc == EWC_REAL && p->in != DT_F64;
  if (p->oc == EWC_INT && dtype_class(p->out) != DTC_BOOL) {
    p->f2i_unsigned = !dtype_is_signed(p->out);
    p->f2i_min = p->f2i_unsigned ? 0 : int_min(p->out);
    p->f2i_max = (int64_t)int_max(p->out);
    p->f2i_lo = (double)p->f2i_min;
    /* one past the largest value: 2^bits, or 2^(bits-1) when signed */
    p->f2i_hi = p->f2i_unsigned ? ldexp(1.0, (int)dtype_bits(p->out)) : -p->f2i_lo;
  }
  *params = p;
  return NULL;
}

/* Float -> integer: truncate, NaN -> 0, saturate to the type's range. */
static void f2i_n(const convert_params *p, const double *d, int64_t *out, int m) {
  if (p->f2i_unsigned) {
    for (int i = 0; i < m; i++) {
      double v = trunc(d[i]);
      out[i] = isnan(v) || v <= 0 ? 0 : v >= p->f2i_hi ? p->f2i_max : (int64_t)(uint64_t)v;
    }
    return;
  }
  for (int i = 0; i < m; i++) {
    double v = trunc(d[i]);
    out[i] = isnan(v) ? 0 : v <= p->f2i_lo ? p->f2i_min : v >= p->f2i_hi ? p->f2i_max : (int64_t)v;
  }
}

/* Real -> real for sources f32 holds exactly, one chunk. */
static void convert_via_f32(const convert_params *p, const void *src, void *dst, int64_t off, int m) {
  const uint8_t *s = (const uint8_t *)src + (size_t)off * dtype_bytes(p->in);
  uint8_t *d = (uint8_t *)dst + (size_t)off * dtype_bytes(p->out);
  /* f32 on either side: no staging copy */
  if (p->out == DT_F32) {
    fp_to_f32_n(p->in, s, (float *)(void *)d, (size_t)m);
    return;
  }
  if (p->in == DT_F32) {
    fp_from_f32_n(p->out, (const float *)(const void *)s, d, (size_t)m);
    return;
  }
  float t[EW_CHUNK];
  fp_to_f32_n(p->in, s, t, (size_t)m);
  fp_from_f32_n(p->out, t, d, (size_t)m);
}

/* Integer -> double with one rounding for the f32/f64 targets (others round
 * from the double, exact for every integer below 2^53). */
static void i2f(shl_dtype in, shl_dtype out, const int64_t *a, void *dst, int64_t off, int m) {
  bool u = dtype_class(in) == DTC_UINT;
  if (out == DT_F32) {
    float *d = (float *)dst + off;
    if (u)
      for (int i = 0; i < m; i++) d[i] = (float)(uint64_t)a[i];
    else
      for (int i = 0; i < m; i++) d[i] = (float)a[i];
    return;
  }
  double t[EW_CHUNK];
  if (u)
    for (int i = 0; i < m; i++) t[i] = (double)(uint64_t)a[i];
  else
    for (int i = 0; i < m; i++) t[i] = (double)a[i];
  ew_store_real_exact(out, t, dst, off, m);
}

static shl_status convert_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const convert_params *p = po->params;
  int64_t n = out[0]->n;
  const void *src = in[0]->data;
  void *dst = out[0]->data;
  if (p->in == p->out) {
    if (out[0]->nbytes) memcpy(dst, src, out[0]->nbytes);
    return NULL;
  }
  for (int64_t off = 0; off < n; off += EW_CHUNK) {
    int m = (int)(n - off < EW_CHUNK ? n - off : EW_CHUNK);
    if (p->via_f32) {
      convert_via_f32(p, src, dst, off, m);
      continue;
    }
    int64_t iv[EW_CHUNK];
    double dv[EW_CHUNK];
    double complex cv[EW_CHUNK];
    /* Widen to the source category. */
    if (p->ic == EWC_INT)
      ew_load_int(p->in, src, off, m, iv);
    else if (p->ic == EWC_REAL)
      ew_load_real(p->in, src, off, m, dv);
    else
      ew_load_cplx(p->in, src, off, m, cv);
    switch (p->oc) {
      case EWC_INT:
        if (dtype_class(p->out) == DTC_BOOL) {
          if (p->ic == EWC_INT)
            for (int i = 0; i < m; i++) iv[i] = iv[i] != 0;
          else if (p->ic == EWC_REAL)
            for (int i = 0; i < m; i++) iv[i] = dv[i] != 0;
          else /* the spec: complex to any other type ignores the imaginary part */
            for (int i = 0; i < m; i++) iv[i] = creal(cv[i]) != 0;
        } else if (p->ic == EWC_REAL) {
          f2i_n(p, dv, iv, m);
        } else if (p->ic == EWC_CPLX) {
          for (int i = 0; i < m; i++) dv[i] = creal(cv[i]);
          f2i_n(p, dv, iv, m);
        }
        ew_store_int(p->out, iv, dst, off, m);
        break;
      case EWC_REAL:
        if (p->ic == EWC_INT) {
          i2f(p->in, p->out, iv, dst, off, m);
          break;
        }
        if (p->ic == EWC_CPLX)
          for (int i = 0; i < m; i++) dv[i] = creal(cv[i]);
        ew_store_real_exact(p->out, dv, dst, off, m);
        break;
      default:
        if (p->ic == EWC_INT) {
          bool u = dtype_class(p->in) == DTC_UINT;
          for (int i = 0; i < m; i++) cv[i] = u ? (double)(uint64_t)iv[i] : (double)iv[i];
        } else if (p->ic == EWC_REAL) {
          for (int i = 0; i < m; i++) cv[i] = CMPLX(dv[i], 0.0);
        }
        ew_store_cplx(p->out, cv, dst, off, m);
        break;
    }
  }
  return NULL;
}

const shl_kernel kernel_convert = {convert_prepare, convert_run};

/* ---- bitcast_convert: row-major bytes are unchanged (little-endian; a
 * wider operand splits into a trailing dimension of narrower elements).
 * Types narrower than their storage (i1, i2, i4, f4, f6) pack as bit
 * fields, the first element in the lowest bits: a tensor<64xi1> is the bits
 * of an i64, least significant first (the reference interpreter's layout). */

static bool whole_bytes(shl_dtype dt) { return dt != DT_QUANT && dtype_bits(dt) == 8 * dtype_bytes(dt); }

typedef struct {
  shl_dtype a, b;
  bool bits; /* bit-field path */
} bitcast_params;

static shl_status bitcast_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands != 1 || op->n_results != 1)
    return op_error(op, SHLOC_ERR_VERIFY, "expects one operand and one result");
  shl_dtype a = type_storage_dtype(op->operands[0]->type), b = type_storage_dtype(op->results[0].type);
  bitcast_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  *p = (bitcast_params){a, b, a != b && (!whole_bytes(a) || !whole_bytes(b))};
  if (!p->bits) {
    if (type_num_bytes(op->operands[0]->type) != type_num_bytes(op->results[0].type))
      return op_error(op, SHLOC_ERR_VERIFY, "operand and result sizes differ");
  } else {
    unsigned wa = dtype_bits(a), wb = dtype_bits(b), hi = wa > wb ? wa : wb, lo = wa > wb ? wb : wa;
    if (!lo || dtype_class(a) == DTC_COMPLEX || dtype_class(b) == DTC_COMPLEX || hi > 64 || hi % lo ||
        type_num_elements(op->operands[0]->type) * wa != type_num_elements(op->results[0].type) * wb)
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "is not supported between %s and %s", dtype_name(a), dtype_name(b));
  }
  *params = p;
  return NULL;
}

/* The low `bits` bits of the element at p. */
static uint64_t field_load(shl_dtype t, const uint8_t *p) {
  unsigned bits = dtype_bits(t);
  uint64_t v = scalar__load_le(p, dtype_bytes(t));
  return bits >= 64 ? v : v & ((1ull << bits) - 1);
}

/* Stores a bit field as an element of t (sub-byte signed integers are kept
 * sign-extended in their byte). */
static void field_store(shl_dtype t, uint8_t *p, uint64_t v) {
  if (dtype_class(t) == DTC_SINT) int_store(t, p, int_wrap(t, (int64_t)v));
  else scalar__store_le(p, dtype_bytes(t), v);
}

static shl_status bitcast_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)ec;
  const bitcast_params *p = po->params;
  if (!p->bits) {
    if (out[0]->nbytes) memcpy(out[0]->data, in[0]->data, out[0]->nbytes);
    return NULL;
  }
  unsigned wa = dtype_bits(p->a), wb = dtype_bits(p->b);
  size_t sa = dtype_bytes(p->a), sb = dtype_bytes(p->b);
  const uint8_t *src = in[0]->data;
  uint8_t *dst = out[0]->data;
  if (wa >= wb) { /* each source element splits into wa / wb results */
    unsigned r = wa / wb;
    for (int64_t i = 0; i < in[0]->n; i++) {
      uint64_t v = field_load(p->a, src + (size_t)i * sa);
      for (unsigned j = 0; j < r; j++, dst += sb)
        field_store(p->b, dst, wb >= 64 ? v : (v >> (j * wb)) & ((1ull << wb) - 1));
    }
  } else { /* wb / wa source elements make one result */
    unsigned r = wb / wa;
    for (int64_t i = 0; i < out[0]->n; i++) {
      uint64_t v = 0;
      for (unsigned j = 0; j < r; j++, src += sa) v |= field_load(p->a, src) << (j * wa);
      field_store(p->b, dst + (size_t)i * sb, v);
    }
  }
  return NULL;
}

const shl_kernel kernel_bitcast_convert = {bitcast_prepare, bitcast_run};

/* ---- reduce_precision: round the mantissa to nearest even, then flush
 * exponents outside the reduced range to zero or infinity (XLA's bit
 * algorithm, applied to the operand's own IEEE layout) ---- */

typedef struct {
  shl_dtype dt;
  int ebits, mbits;
} rp_params;

static shl_status rp_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  int64_t e, m;
  if (!attr_as_int(op_attr(op, "exponent_bits"), &e) || !attr_as_int(op_attr(op, "mantissa_bits"), &m) || e < 1 ||
      m < 0)
    return op_error(op, SHLOC_ERR_VERIFY, "needs exponent_bits >= 1 and mantissa_bits >= 0");
  shl_dtype dt = type_storage_dtype(op->operands[0]->type);
  if (!dtype_is_float(dt) || fp_layout_of(dt).kind != FPK_IEEE)
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "is not supported for element type %s", dtype_name(dt));
  rp_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  p->dt = dt;
  p->ebits = (int)e;
  p->mbits = (int)m;
  *params = p;
  return NULL;
}

static uint64_t reduce_bits(fp_layout L, uint64_t x, int ebits, int mbits) {
  int sm = L.mant, se = L.ebits, nbits = se + sm + 1;
  uint64_t exp_mask = ((1ull << se) - 1) << sm, sign_mask = 1ull << (nbits - 1);
  bool nan = (x & exp_mask) == exp_mask && (x & ((1ull << sm) - 1));
  uint64_t orig = x;
  if (mbits < sm) {
    uint64_t last = 1ull << (sm - mbits);
    uint64_t bias = (last >> 1) - 1 + ((x & last) >> (sm - mbits));
    x = (x + bias) & ~(last - 1);
    x &= fp__mask((unsigned)nbits);
  }
  if (ebits < se) {
    int64_t src_bias = (1ll << (se - 1)) - 1, red_bias = (1ll << (ebits - 1)) - 1;
    uint64_t xe = x & exp_mask;
    uint64_t max_e = (uint64_t)(src_bias + red_bias) << sm, min_e = (uint64_t)(src_bias - red_bias) << sm;
    if (xe > max_e)
      x = (x & sign_mask) | exp_mask;
    else if (xe <= min_e)
      x &= sign_mask;
  }
  if (nan) x = mbits > 0 ? orig : (orig & sign_mask) | exp_mask;
  return x;
}

/* One loop per storage width; the pattern sits `shift` bits up (tf32) and
 * reduce_bits keeps it within the format's width. */
#define RP_LOOP(ST)                                                                         \
  do {                                                                                      \
    const ST *s_ = in[0]->data;                                                             \
    ST *d_ = out[0]->data;                                                                  \
    for (int64_t i = 0; i < out[0]->n; i++)                                                 \
      d_[i] = (ST)(reduce_bits(L, (s_[i] >> L.shift) & mask, p->ebits, p->mbits) << L.shift); \
  } while (0)

static shl_status rp_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const rp_params *p = po->params;
  fp_layout L = fp_layout_of(p->dt);
  uint64_t mask = fp__mask(fp_layout_bits(L));
  switch (dtype_bytes(p->dt)) {
    case 1: RP_LOOP(uint8_t); break;
    case 2: RP_LOOP(uint16_t); break;
    case 4: RP_LOOP(uint32_t); break;
    default: RP_LOOP(uint64_t); break;
  }
  return NULL;
}

const shl_kernel kernel_reduce_precision = {rp_prepare, rp_run};
