/* Random numbers.
 *
 * rng_bit_generator is bit-exact with XLA:CPU (exec/rng_bits.h).
 *
 * rng (UNIFORM / NORMAL) is NOT bit-exact with XLA: XLA leaves its generator
 * implementation-defined, and so do we.  Each rng op owns a splitmix64
 * stream seeded from a fixed constant, so a given executable produces the
 * same sequence on every machine; the stream advances from run to run.
 * UNIFORM gives values in [a, b) (all a when b <= a); NORMAL gives mean a,
 * standard deviation b (Box-Muller), floats only. */
#include <math.h>

#include "ew_common.h"
#include "exec/plan.h"
#include "exec/rng_bits.h"
#include "kutil.h"

/* ---- rng_bit_generator ---- */

typedef struct {
  rng_algorithm alg;
  unsigned bits;
} rbg_params;

static shl_status rng_bit_generator_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands != 1 || op->n_results != 2) return op_error(op, SHLOC_ERR_VERIFY, "needs a state and two results");
  const shl_attr *a = op_attr(op, "rng_algorithm");
  rng_algorithm alg;
  if (ku_enum_is(a, "THREE_FRY")) alg = RNG_ALG_THREE_FRY;
  else if (ku_enum_is(a, "PHILOX")) alg = RNG_ALG_PHILOX;
  else if (ku_enum_is(a, "DEFAULT")) alg = RNG_ALG_DEFAULT;
  else return op_error(op, SHLOC_ERR_VERIFY, "needs an 'rng_algorithm' of THREE_FRY, PHILOX or DEFAULT");
  const shl_type *st = op->operands[0]->type, *ot = op->results[1].type;
  if (st->kind != TY_TENSOR || st->rank != 1 || !type_is_static(st) || dtype_bytes(st->dtype) != 8 ||
      !rng_bits_state_len_ok(alg, (size_t)st->dims[0]))
    return op_error(op, SHLOC_ERR_VERIFY, "state must be a ui64 tensor of a length the algorithm accepts");
  shl_dtype dt = type_storage_dtype(ot);
  unsigned bits = dtype_bits(dt);
  if (!(dtype_is_int(dt) || dtype_is_float(dt)) || bits != 8 * dtype_bytes(dt) || bits < 8)
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "output element type %s is not supported", dtype_name(dt));
  rbg_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  p->alg = alg;
  p->bits = bits;
  *params = p;
  return NULL;
}

static shl_status rng_bit_generator_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)ec;
  const rbg_params *p = po->params;
  uint64_t state[3] = {0}, next[3] = {0};
  size_t len = (size_t)in[0]->n;
  memcpy(state, in[0]->data, len * sizeof *state);
  if (!rng_bits_generate(p->alg, state, len, out[1]->dims, (size_t)out[1]->rank, p->bits, out[1]->data, next))
    return op_error(po->op, SHLOC_ERR_UNSUPPORTED, "rng_bit_generator cannot produce this output");
  memcpy(out[0]->data, next, len * sizeof *next);
  return NULL;
}

const shl_kernel kernel_rng_bit_generator = {rng_bit_generator_prepare, rng_bit_generator_run};

/* ---- rng ---- */

typedef struct {
  bool normal;
  uint32_t state_id; /* exec_state: a uint64_t splitmix64 stream per run state, advanced by every run */
} rng_params;

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform double in [0, 1). */
static double unit(uint64_t *s) { return (double)(splitmix64(s) >> 11) * 0x1.0p-53; }

static shl_status rng_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands != 3 || op->n_results != 1) return op_error(op, SHLOC_ERR_VERIFY, "needs a, b, shape and one result");
  const shl_attr *a = op_attr(op, "rng_distribution");
  bool normal;
  if (ku_enum_is(a, "UNIFORM")) normal = false;
  else if (ku_enum_is(a, "NORMAL")) normal = true;
  else return op_error(op, SHLOC_ERR_VERIFY, "needs an 'rng_distribution' of UNIFORM or NORMAL");
  shl_dtype dt = type_storage_dtype(op->results[0].type);
  if (normal ? !dtype_is_float(dt) : !(dtype_is_float(dt) || dtype_is_int(dt)))
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "%s distribution of %s is not supported", normal ? "normal" : "uniform",
                    dtype_name(dt));
  for (uint32_t i = 0; i < 2; i++)
    if (type_storage_dtype(op->operands[i]->type) != dt) return op_error(op, SHLOC_ERR_VERIFY, "a and b must have the result's element type");
  rng_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  p->normal = normal;
  ST_TRY(plan_state_new(pc, free, &p->state_id));
  *params = p;
  return NULL;
}

/* Values are drawn a chunk at a time and stored by the bulk converters, so
 * the element type is looked at once per chunk, not per element. */
enum { RNG_CHUNK = 256 };

static void rng_int(uint64_t *s, shl_dtype dt, int64_t a, int64_t b, void *data, int64_t n) {
  bool empty = dtype_class(dt) == DTC_SINT ? b <= a : (uint64_t)b <= (uint64_t)a;
  uint64_t range = (uint64_t)b - (uint64_t)a;
  int64_t v[RNG_CHUNK];
  for (int64_t off = 0; off < n; off += RNG_CHUNK) {
    int m = (int)(n - off < RNG_CHUNK ? n - off : RNG_CHUNK);
    for (int i = 0; i < m; i++) v[i] = empty ? a : (int64_t)((uint64_t)a + splitmix64(s) % range);
    ew_store_int(dt, v, data, off, m);
  }
}

static void rng_float(uint64_t *s, shl_dtype dt, bool normal, double a, double b, void *data, int64_t n) {
  size_t esz = dtype_bytes(dt);
  double v[RNG_CHUNK], r[RNG_CHUNK];
  for (int64_t off = 0; off < n; off += RNG_CHUNK) {
    int m = (int)(n - off < RNG_CHUNK ? n - off : RNG_CHUNK);
    uint8_t *d = (uint8_t *)data + (size_t)off * esz;
    for (int i = 0; i < m; i++) {
      if (normal) {
        double u1 = 1.0 - unit(s), u2 = unit(s); /* u1 in (0, 1] */
        v[i] = a + b * sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925 * u2);
      } else {
        v[i] = b > a ? a + (b - a) * unit(s) : a;
      }
    }
    fp_from_f64_n(dt, v, d, (size_t)m);
    if (normal || !(b > a)) continue;
    /* Rounding may reach b; keep the interval half-open. */
    fp_to_f64_n(dt, d, r, (size_t)m);
    for (int i = 0; i < m; i++)
      if (r[i] >= b) v[i] = a;
      else v[i] = r[i];
    fp_from_f64_n(dt, v, d, (size_t)m);
  }
}

static shl_status rng_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const rng_params *p = po->params;
  uint64_t **state = (uint64_t **)exec_state(ec, p->state_id);
  if (!*state) {
    if (!(*state = malloc(sizeof **state))) return st_oom();
    **state = 0x5EED5EED12345678ull;
  }
  shl_dtype dt = out[0]->dtype;
  if (dtype_is_float(dt)) {
    double a = fp_to_f64(dt, fp_load(dt, in[0]->data)), b = fp_to_f64(dt, fp_load(dt, in[1]->data));
    rng_float(*state, dt, p->normal, a, b, out[0]->data, out[0]->n);
  } else {
    rng_int(*state, dt, int_load(dt, in[0]->data), int_load(dt, in[1]->data), out[0]->data, out[0]->n);
  }
  return NULL;
}

const shl_kernel kernel_rng = {rng_prepare, rng_run};
