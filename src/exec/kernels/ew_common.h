/* Shared plumbing of the elementwise kernels: elements are processed in
 * chunks of EW_CHUNK, widened into one of three compute representations
 * (int64 for integers and booleans, double for real floats, double complex
 * for complex), computed by a loop chosen once per chunk, and narrowed back
 * with scalar.h's rounding.  Small floats round through f32, as XLA computes
 * them in f32. */
#ifndef SHLOC_EXEC_KERNELS_EW_COMMON_H
#define SHLOC_EXEC_KERNELS_EW_COMMON_H

#include "support/cmplx.h"

#include "exec/exec.h"

enum { EW_CHUNK = 512 };

typedef enum { EWC_INT, EWC_REAL, EWC_CPLX, EWC_NONE } ew_cat;

static inline ew_cat ew_cat_of(shl_dtype dt) {
  switch (dtype_class(dt)) {
    case DTC_BOOL:
    case DTC_SINT:
    case DTC_UINT:
      return EWC_INT;
    case DTC_FLOAT:
      return EWC_REAL;
    case DTC_COMPLEX:
      return EWC_CPLX;
    default:
      return EWC_NONE;
  }
}

/* The real part dtype of a complex dtype. */
static inline shl_dtype ew_complex_part(shl_dtype dt) { return dt == DT_C64 ? DT_F32 : DT_F64; }

/* Elements [off, off+n) of src (dtype dt) into dst, and back.  Integers are
 * sign- or zero-extended (ui64 keeps its bit pattern); stores wrap. */
void ew_load_int(shl_dtype dt, const void *src, int64_t off, int n, int64_t *dst);
void ew_store_int(shl_dtype dt, const int64_t *src, void *dst, int64_t off, int n);
void ew_load_real(shl_dtype dt, const void *src, int64_t off, int n, double *dst);
/* Rounds through f32 for dtypes narrower than f32 (arithmetic results). */
void ew_store_real(shl_dtype dt, const double *src, void *dst, int64_t off, int n);
/* Rounds once from double (conversions). */
void ew_store_real_exact(shl_dtype dt, const double *src, void *dst, int64_t off, int n);
void ew_load_cplx(shl_dtype dt, const void *src, int64_t off, int n, double complex *dst);
void ew_store_cplx(shl_dtype dt, const double complex *src, void *dst, int64_t off, int n);

/* Attribute helper: the enum value (e.g. "LT") of an AT_ENUM attribute, or an empty string. */
shl_str ew_enum_value(const shl_op *op, const char *name);

/* ---- shared cores (also used by chlo.broadcast_*) ---- */

/* A binary arithmetic/logical op on same-shape operands. */
typedef struct {
  shl_opid id; /* OP_ADD ... OP_COMPLEX, OP_CHLO_NEXT_AFTER/POLYGAMMA/ZETA */
  shl_dtype in, out;
  ew_cat ic;
} ew_binary_op;
shl_status ew_binary_init(const shl_op *op, shl_opid id, shl_dtype in, shl_dtype out, ew_binary_op *p);
void ew_binary_apply(const ew_binary_op *p, const void *a, const void *b, void *dst, int64_t n);

/* compare: directions and comparison types. */
typedef enum { CMP_EQ, CMP_NE, CMP_GE, CMP_GT, CMP_LE, CMP_LT } ew_cmp_dir;
typedef struct {
  ew_cmp_dir dir;
  bool total; /* TOTALORDER for floats */
  bool unsig; /* UNSIGNED (or an unsigned/bool dtype) */
  shl_dtype in;
  ew_cat ic;
} ew_compare_op;
shl_status ew_compare_init(const shl_op *op, shl_dtype in, ew_compare_op *p);
void ew_compare_apply(const ew_compare_op *p, const void *a, const void *b, uint8_t *dst, int64_t n);

/* ---- range evaluation (fused ops and whole-buffer kernels) ---- */

/* Evaluates a prepared elementwise op (its kernel's params) over n
 * elements: in[k] points at operand k's first element (every operand has n
 * elements; fused ops expand scalars first), out at the result's. */
typedef void (*ew_eval_fn)(const void *params, const void *const *in, void *out, int64_t n);
void ew_unary_eval(const void *params, const void *const *in, void *out, int64_t n);
void ew_binary_eval(const void *params, const void *const *in, void *out, int64_t n);
/* ew_binary_eval for f32 ops with a vector loop (ew_binary_scalar_ok) when
 * operand 0 (_sa) or 1 (_sb) is one element, read from in[k][0]. */
bool ew_binary_scalar_ok(const void *params);
void ew_binary_eval_sa(const void *params, const void *const *in, void *out, int64_t n);
void ew_binary_eval_sb(const void *params, const void *const *in, void *out, int64_t n);
void ew_compare_eval(const void *params, const void *const *in, void *out, int64_t n);
void ew_select_eval(const void *params, const void *const *in, void *out, int64_t n);
void ew_clamp_eval(const void *params, const void *const *in, void *out, int64_t n);

/* Vectorised f32 loops (ew_f32.c); false when op `id` has none.  The
 * scalar form computes a[i] op y, or y op a[i] when `swap`. */
bool ew_f32_unary(shl_opid id, const float *a, float *r, int64_t n);
bool ew_f32_binary_ok(shl_opid id);
bool ew_f32_binary(shl_opid id, const float *a, const float *b, float *r, int64_t n);
bool ew_f32_binary_scalar(shl_opid id, const float *a, float y, bool swap, float *r, int64_t n);
/* Copies a to r with stores that bypass the cache (for results not read
 * again soon: no read of r's lines before they are written); a thread that
 * used it calls ew_stream_fence before others read r. */
void ew_f32_stream(const float *a, float *r, int64_t n);
void ew_stream_fence(void);

/* f32 programs: a fused group of f32 ops evaluated a few vectors at a time
 * (ew_f32.c), giving the same values as the ops' own loops.  The value
 * being computed stays in an accumulator held in registers; values read
 * again later are put into scratch registers, and operands are read from
 * there or straight from a source.  Sources and destinations are float
 * arrays indexed by element (constants: one element, read by the EWP_CONST
 * instructions, which come first). */
typedef enum {
  EWP_CONST,                                                     /* r[dst] = src[a][0] in every lane, once */
  EWP_GET,                                                       /* acc = operand */
  EWP_PUT,                                                       /* r[dst] = acc */
  EWP_STORE,                                                     /* dst[dst][i] = acc */
  EWP_NEG, EWP_ABS, EWP_SQUARE, EWP_EXP, EWP_LOGISTIC, EWP_TANH, /* acc = f(acc) */
  EWP_ADD, EWP_SUB, EWP_MUL, EWP_DIV, EWP_MAX, EWP_MIN,          /* acc = acc op operand (or operand op acc) */
  EWP_NONE
} ew_prog_code;

enum { EWP_MAX_REGS = 32, EWP_BLOCK = 128 }; /* registers; elements evaluated together */
enum { EWP_SRC = 1, EWP_SWAP = 2 }; /* flags: the operand is src[a][i] (else r[a]); operand op acc */

typedef struct {
  uint8_t code, flags, a, dst;
} ew_prog_ins;

typedef struct {
  uint32_t n_ins;
  const ew_prog_ins *ins;
} ew_prog;

/* The code of f32 op `id` (unary or binary by its id), EWP_NONE if none. */
ew_prog_code ew_prog_code_of(shl_opid id);
/* Runs p over elements [0, n). */
void ew_prog_run(const ew_prog *p, const float *const *src, float *const *dst, int64_t n);

/* Folds: *acc = *acc binop src[0] binop ... binop src[n-1] for add,
 * multiply, maximum and minimum on f32 and f64 (in lane-parallel order;
 * NaNs propagate).  ew_fold_identity stores binop's identity element. */
bool ew_fold_ok(shl_opid binop, shl_dtype dt);
void ew_fold(shl_opid binop, shl_dtype dt, const void *src, int64_t n, void *acc);
bool ew_fold_identity(shl_opid binop, shl_dtype dt, void *acc);
/* f32: the same as ew_fold on each piece of `piece` elements of src[0, n)
 * in turn (the last one shorter), folding several pieces at once. */
void ew_fold_f32_pieces(shl_opid binop, const float *src, int64_t n, int64_t piece, float *acc);

/* select: pred_n is 1 (scalar predicate) or n. */
void ew_select_apply(const uint8_t *pred, int64_t pred_n, const void *t, const void *f, void *dst, int64_t n,
                     size_t esz);

#endif
