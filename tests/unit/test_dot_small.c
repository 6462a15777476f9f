/* dot_general on products too small for BLAS (M*N*K <= 2^15), f32 and f64:
 * odd shapes, both orientations of the vectorised kernel (wide N, wide M),
 * K longer than its slices, contracting and batching dimensions in every
 * position, and batches that go to the threads.  Each element must equal,
 * bit for bit, the sum XLA:CPU forms for small dots (products rounded, then
 * added in ascending k from zero, no FMA; computed here in the element
 * type), and that sum must be within the rounding bound of a double (or
 * long double) reference.  Inputs have full mantissas and cancel, so a
 * different summation order or an FMA shows in the last bits. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "shloc/executable.h"
#include "shloc/shloc.h"
#include "ok.h"

/* One case: sizes and where each dimension sits in the operands, written
 * as letters: lhs a permutation of "bmk", rhs of "bkn" ('b' left out when
 * there is no batch dimension).  The result is [B, M, N] (or [M, N]). */
typedef struct {
  int B, M, K, N;
  const char *lhs, *rhs;
} dcase;

static int dim_of(const dcase *c, char role) {
  switch (role) {
    case 'b': return c->B;
    case 'm': return c->M;
    case 'k': return c->K;
    default: return c->N;
  }
}

/* Element strides of the roles in an operand laid out as `layout`. */
static void strides(const dcase *c, const char *layout, int64_t st[128]) {
  int64_t s = 1;
  for (size_t i = strlen(layout); i-- > 0;) {
    st[(unsigned char)layout[i]] = s;
    s *= dim_of(c, layout[i]);
  }
}

static void type_str(const dcase *c, const char *layout, const char *et, char *out, size_t cap) {
  size_t n = 0;
  n += (size_t)snprintf(out + n, cap - n, "tensor<");
  for (const char *p = layout; *p; p++) n += (size_t)snprintf(out + n, cap - n, "%dx", dim_of(c, *p));
  snprintf(out + n, cap - n, "%s>", et);
}

static int pos(const char *layout, char role) { return (int)(strchr(layout, role) - layout); }

static char *program(const dcase *c, const char *et) {
  static char buf[2048];
  char lt[64], rt[64], ot[64], batch[64] = "";
  type_str(c, c->lhs, et, lt, sizeof lt);
  type_str(c, c->rhs, et, rt, sizeof rt);
  type_str(c, strchr(c->lhs, 'b') ? "bmn" : "mn", et, ot, sizeof ot);
  if (strchr(c->lhs, 'b')) snprintf(batch, sizeof batch, "batching_dims = [%d] x [%d], ", pos(c->lhs, 'b'), pos(c->rhs, 'b'));
  snprintf(buf, sizeof buf,
           "func.func @main(%%a: %s, %%b: %s) -> %s {\n"
           "  %%0 = stablehlo.dot_general %%a, %%b, %scontracting_dims = [%d] x [%d] : (%s, %s) -> %s\n"
           "  return %%0 : %s\n}\n",
           lt, rt, ot, batch, pos(c->lhs, 'k'), pos(c->rhs, 'k'), lt, rt, ot, ot);
  return buf;
}

static shloc_status run(const dcase *c, bool f64, const void *a, const void *b, void *out) {
  const char *text = program(c, f64 ? "f64" : "f32");
  size_t es = f64 ? 8 : 4;
  shloc_context *ctx = shloc_context_create();
  shloc_module *mod;
  shloc_executable *x = NULL;
  OK(shloc_module_parse(ctx, "dot.mlir", text, strlen(text), 1, &mod));
  OK(shloc_module_verify(mod));
  shloc_status st = shloc_executable_create(mod, "main", NULL, &x);
  if (!st) {
    int64_t da[3], db[3];
    int ra = (int)strlen(c->lhs), rb = (int)strlen(c->rhs);
    for (int i = 0; i < ra; i++) da[i] = dim_of(c, c->lhs[i]);
    for (int i = 0; i < rb; i++) db[i] = dim_of(c, c->rhs[i]);
    XLA_FFI_DataType dt = f64 ? XLA_FFI_DataType_F64 : XLA_FFI_DataType_F32;
    size_t bn = (size_t)(c->B ? c->B : 1);
    shloc_tensor args[2] = {{dt, ra, da, (void *)a, bn * (size_t)(c->M * c->K) * es},
                            {dt, rb, db, (void *)b, bn * (size_t)(c->K * c->N) * es}};
    shloc_tensor res[1] = {{.data = out, .nbytes = bn * (size_t)(c->M * c->N) * es}};
    st = shloc_executable_run_into(x, args, 2, res, 1);
    shloc_executable_destroy(x);
  }
  shloc_module_destroy(mod);
  shloc_context_destroy(ctx);
  return st;
}

/* Full-mantissa values in [-4, 4): sums of them cancel. */
static uint32_t next(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s;
}
static void fill_f32(float *v, size_t n, uint32_t seed) {
  for (size_t i = 0; i < n; i++) v[i] = (float)ldexp((double)(int32_t)(next(&seed) >> 7) - (1 << 24), -22);
}
static void fill_f64(double *v, size_t n, uint32_t seed) {
  for (size_t i = 0; i < n; i++) {
    uint32_t hi = next(&seed), lo = next(&seed);
    v[i] = ldexp((double)(int64_t)(((uint64_t)hi << 21 ^ lo) & ((1ull << 53) - 1)) - 0x1p52, -50);
  }
}

static void check(const dcase *c, bool f64) {
  int B = c->B ? c->B : 1;
  size_t na = (size_t)(B * c->M * c->K), nb = (size_t)(B * c->K * c->N), no = (size_t)(B * c->M * c->N);
  size_t es = f64 ? 8 : 4;
  void *a = malloc(na * es), *b = malloc(nb * es), *o = malloc(no * es);
  assert_non_null(a);
  assert_non_null(b);
  assert_non_null(o);
  if (f64) {
    fill_f64(a, na, 7);
    fill_f64(b, nb, 8);
  } else {
    fill_f32(a, na, 7);
    fill_f32(b, nb, 8);
  }
  OK(run(c, f64, a, b, o));
  int64_t sa[128] = {0}, sb[128] = {0};
  strides(c, c->lhs, sa);
  strides(c, c->rhs, sb);
  for (int bi = 0; bi < B; bi++)
    for (int i = 0; i < c->M; i++)
      for (int j = 0; j < c->N; j++) {
        float sf = 0;
        double sd = 0;
        long double exact = 0, mag = 0;
        for (int k = 0; k < c->K; k++) {
          size_t ia = (size_t)(bi * sa['b'] + i * sa['m'] + k * sa['k']);
          size_t ib = (size_t)(bi * sb['b'] + k * sb['k'] + j * sb['n']);
          long double x = f64 ? ((double *)a)[ia] : ((float *)a)[ia], y = f64 ? ((double *)b)[ib] : ((float *)b)[ib];
          if (f64) {
            double p = ((double *)a)[ia] * ((double *)b)[ib];
            sd = sd + p;
          } else {
            float p = ((float *)a)[ia] * ((float *)b)[ib];
            sf = sf + p;
          }
          exact += x * y;
          mag += fabsl(x * y);
        }
        size_t io = (size_t)((bi * c->M + i) * c->N + j);
        double got = f64 ? ((double *)o)[io] : ((float *)o)[io], want = f64 ? sd : sf;
        /* each of K roundings of a product and a sum moves by <= eps * (sum of |terms|) */
        long double bound = 2 * c->K * (f64 ? 0x1p-53L : 0x1p-24L) * mag;
        if (memcmp(&got, &want, sizeof got) != 0 || fabsl((long double)got - exact) > bound)
          fail_msg("%s B=%d M=%d K=%d N=%d lhs %s rhs %s: [%d,%d,%d] = %.17g, want %.17g (exact %.17Lg)",
                   f64 ? "f64" : "f32", c->B, c->M, c->K, c->N, c->lhs, c->rhs, bi, i, j, got, want, exact);
      }
  free(a);
  free(b);
  free(o);
}

static const dcase cases[] = {
    {0, 1, 1, 1, "mk", "kn"},       /* a single product */
    {0, 1, 300, 1, "mk", "kn"},     /* a dot product, K in three slices */
    {0, 3, 5, 7, "mk", "kn"},       /* below one vector */
    {0, 17, 9, 33, "mk", "kn"},     /* partial row blocks and column vectors */
    {0, 40, 3, 2, "mk", "kn"},      /* wide M: vectorised down the columns */
    {0, 37, 200, 3, "km", "nk"},    /* wide M, K in slices, both operands transposed */
    {0, 13, 129, 11, "km", "kn"},   /* K one past a slice */
    {0, 6, 31, 64, "mk", "nk"},     /* rhs contracting its last dimension */
    {5, 7, 6, 19, "bmk", "bkn"},    /* batch first */
    {4, 9, 5, 21, "mbk", "knb"},    /* batch in the middle and last */
    {3, 20, 7, 5, "kmb", "nbk"},    /* batch last, contracting first */
    {2, 1, 23, 17, "mkb", "bnk"},   /* matrix-vector rows */
    {300, 16, 16, 16, "bmk", "bkn"}, /* many products: spread over the threads */
    {257, 5, 12, 9, "kbm", "nkb"},  /* many odd products, packed operands */
};

static void test_f32(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) check(&cases[i], false);
}

static void test_f64(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) check(&cases[i], true);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_f32),
      cmocka_unit_test(test_f64),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
