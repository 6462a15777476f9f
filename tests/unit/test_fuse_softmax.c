/* Softmax groups (src/exec/fuse_softmax.c): the row-by-row path must give
 * the same bits as the ops run one at a time (optimization_barrier after
 * every op), for scaling by a divide, a multiply, a scalar divided by x, a
 * full-shape splat constant (fuse.c reads it as a scalar) and none; short rows (several per chunk), rows longer than a chunk (folds in
 * pieces) and one row; smooth values and every class of special value
 * (infinities, NaN, all-equal rows, exp overflow and underflow, subnormals).
 * NaNs are compared as NaN, not by payload.  The plan must use the softmax
 * path, writing over its dead operand; with the row maxima and sums and
 * other row reductions of x also returned it must still use it (same bits),
 * and a group that is not a softmax (exp's result also returned) must not.  Known values of one softmax come from a double-precision
 * computation here. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/fuse.h"
#include "harness.h"

typedef struct {
  char *buf;
  size_t len, cap;
} text_buf;

static void put(text_buf *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  assert_true(n >= 0);
  if (t->len + (size_t)n + 1 > t->cap) {
    t->cap = 2 * (t->len + (size_t)n + 1);
    t->buf = realloc(t->buf, t->cap);
    assert_non_null(t->buf);
  }
  va_start(ap, fmt);
  vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
  va_end(ap);
  t->len += (size_t)n;
}

/* Counts softmax groups (n[0]) and those writing over their operand (n[1]). */
static void count_softmax(shloc_executable *x, void *arg) {
  uint32_t *n = arg;
  n[0] = n[1] = 0;
  for (uint32_t i = 0; i < x->main->n_ops; i++) {
    const plan_op *po = &x->main->ops[i];
    if (po->kernel != &kernel_fused || !((const fused_params *)po->params)->softmax) continue;
    n[0]++;
    n[1] += x->main->slots[po->out_slots[0]].share != 0;
  }
}

/* x / 8, 0.125 * x, 8 / x, x * a full-shape splat constant of 0.125 (as
 * JAX exports it; read as a scalar), or nothing */
typedef enum { PRE_NONE, PRE_DIV, PRE_MUL, PRE_RDIV, PRE_SPLAT } pre_kind;

/* Values with exp-relevant spread: 7 * sin(row) * cos(col) + (col % 13) - 6. */
static void smooth_input(text_buf *t, const char *ty) {
  put(t, "  %%i0 = stablehlo.iota dim = 0 : %s\n  %%i1 = stablehlo.iota dim = 1 : %s\n", ty, ty);
  put(t, "  %%s0 = stablehlo.sine %%i0 : %s\n  %%s1 = stablehlo.cosine %%i1 : %s\n", ty, ty);
  put(t, "  %%k7 = stablehlo.constant dense<7.0> : %s\n  %%k13 = stablehlo.constant dense<13.0> : %s\n", ty, ty);
  put(t, "  %%k6 = stablehlo.constant dense<6.0> : %s\n", ty);
  put(t, "  %%a = stablehlo.multiply %%s0, %%s1 : %s\n  %%b = stablehlo.multiply %%a, %%k7 : %s\n", ty, ty);
  put(t, "  %%r = stablehlo.remainder %%i1, %%k13 : %s\n  %%q = stablehlo.add %%b, %%r : %s\n", ty, ty);
  put(t, "  %%x0 = stablehlo.subtract %%q, %%k6 : %s\n", ty);
}

/* Rows of special values (7 columns). */
static const char *const special_rows[] = {
    "[0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000]", /* all -inf */
    "[1.0, 0x7F800000, 2.0, 0xFF800000, 3.0, 4.0, 5.0]",                                    /* +inf */
    "[1.0, 2.0, 0x7FC00000, 3.0, 4.0, 5.0, 6.0]",                                           /* NaN */
    "[1.0e30, -1.0e30, 0.0, 700.0, -700.0, 88.7, 3.0]",                                     /* overflow, underflow */
    "[5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0]",                                                  /* all equal */
    "[1.0e-40, -1.0e-40, 0.0, -0.0, 1.0e-45, -2.5e-39, 7.0e-39]",                           /* subnormals */
    "[-100.0, -101.5, -99.25, -720.0, -98.0, -1000.0, -99.0]",                              /* far below zero */
};

/* What else the fused copy returns: nothing; its row maxima and sums, the
 * row sums of x and the row minima of the scaled x (still a softmax group,
 * folding those in its first pass); exp's result (not a softmax group). */
typedef enum { EXTRA_NONE, EXTRA_ROWS, EXTRA_EXP } extra_kind;

/* check that row results %f<name> and %u<name> agree bit for bit, any NaN matching any NaN */
static void same_rows(text_buf *t, const char *name, int R) {
  for (int u = 0; u < 2; u++) {
    const char *p = u ? "u" : "f";
    put(t, "  %%%s%s_n = stablehlo.compare NE, %%%s%s, %%%s%s : (tensor<%dxf32>, tensor<%dxf32>) -> tensor<%dxi1>\n", p, name, p, name, p,
        name, R, R, R);
    put(t, "  %%%s%s_c = stablehlo.select %%%s%s_n, %%rn, %%%s%s : tensor<%dxi1>, tensor<%dxf32>\n", p, name, p, name, p, name, R, R);
    put(t, "  %%%s%s_i = stablehlo.bitcast_convert %%%s%s_c : (tensor<%dxf32>) -> tensor<%dxi32>\n", p, name, p, name, R, R);
  }
  put(t, "  stablehlo.custom_call @check.expect_eq(%%f%s_i, %%u%s_i) {has_side_effect = true} : (tensor<%dxi32>, tensor<%dxi32>) -> ()\n",
      name, name, R, R);
}

static char *program(int R, int C, pre_kind pre, bool special, extra_kind extra) {
  text_buf t = {0};
  char ty[64], ry[32];
  snprintf(ty, sizeof ty, "tensor<%dx%dxf32>", R, C);
  snprintf(ry, sizeof ry, "tensor<%dxf32>", R);
  put(&t, "func.func @main() {\n");
  if (special) {
    put(&t, "  %%x0 = stablehlo.constant dense<[");
    for (int r = 0; r < R; r++) put(&t, "%s%s", r ? ", " : "", special_rows[r % 7]);
    put(&t, "]> : %s\n", ty);
  } else {
    smooth_input(&t, ty);
  }
  /* each copy reads its own x, or the op-by-op copy's first op would join
   * the fused group as a sibling */
  put(&t, "  %%fx = stablehlo.optimization_barrier %%x0 : %s\n", ty);
  put(&t, "  %%ux = stablehlo.optimization_barrier %%x0 : %s\n", ty);
  put(&t, "  %%c = stablehlo.constant dense<%s> : tensor<f32>\n", pre == PRE_MUL ? "0.125" : "8.0");
  put(&t, "  %%cb = stablehlo.broadcast_in_dim %%c, dims = [] : (tensor<f32>) -> %s\n", ty);
  put(&t, "  %%cs = stablehlo.constant dense<0.125> : %s\n", ty);
  put(&t, "  %%z = stablehlo.constant dense<0.0> : tensor<f32>\n");
  put(&t, "  %%ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n");
  put(&t, "  %%pinf = stablehlo.constant dense<0x7F800000> : tensor<f32>\n");
  /* fused (f) and op by op (u, each result through a barrier) */
  for (int u = 0; u < 2; u++) {
    const char *p = u ? "u" : "f";
#define BAR(name, tyv) \
  if (u) put(&t, "  %%%s%s = stablehlo.optimization_barrier %%%s%s_ : %s\n", p, name, p, name, tyv)
    const char *s = u ? "_" : "", *xin = u ? "ux" : "fx";
    switch (pre) {
      case PRE_NONE: break;
      case PRE_DIV: put(&t, "  %%%sp%s = stablehlo.divide %%%s, %%cb : %s\n", p, s, xin, ty); break;
      case PRE_MUL: put(&t, "  %%%sp%s = stablehlo.multiply %%cb, %%%s : %s\n", p, s, xin, ty); break;
      case PRE_RDIV: put(&t, "  %%%sp%s = stablehlo.divide %%cb, %%%s : %s\n", p, s, xin, ty); break;
      case PRE_SPLAT: put(&t, "  %%%sp%s = stablehlo.multiply %%%s, %%cs : %s\n", p, s, xin, ty); break;
    }
    if (pre != PRE_NONE) BAR("p", ty);
    char src[8];
    snprintf(src, sizeof src, "%s", pre == PRE_NONE ? xin : u ? "up" : "fp");
    put(&t, "  %%%sm%s = stablehlo.reduce(%%%s init: %%ninf) applies stablehlo.maximum across dimensions = [1] : (%s, tensor<f32>) -> %s\n",
        p, s, src, ty, ry);
    BAR("m", ry);
    put(&t, "  %%%smb%s = stablehlo.broadcast_in_dim %%%sm, dims = [0] : (%s) -> %s\n", p, s, p, ry, ty);
    BAR("mb", ty);
    put(&t, "  %%%sd%s = stablehlo.subtract %%%s, %%%smb : %s\n", p, s, src, p, ty);
    BAR("d", ty);
    put(&t, "  %%%se%s = stablehlo.exponential %%%sd : %s\n", p, s, p, ty);
    BAR("e", ty);
    put(&t, "  %%%ss%s = stablehlo.reduce(%%%se init: %%z) applies stablehlo.add across dimensions = [1] : (%s, tensor<f32>) -> %s\n",
        p, s, p, ty, ry);
    BAR("s", ry);
    put(&t, "  %%%ssb%s = stablehlo.broadcast_in_dim %%%ss, dims = [0] : (%s) -> %s\n", p, s, p, ry, ty);
    BAR("sb", ty);
    if (extra == EXTRA_ROWS) {
      put(&t, "  %%%ssx%s = stablehlo.reduce(%%%s init: %%z) applies stablehlo.add across dimensions = [1] : (%s, tensor<f32>) -> %s\n",
          p, s, xin, ty, ry);
      BAR("sx", ry);
      put(&t, "  %%%smn%s = stablehlo.reduce(%%%s init: %%pinf) applies stablehlo.minimum across dimensions = [1] : (%s, tensor<f32>) -> %s\n",
          p, s, src, ty, ry);
      BAR("mn", ry);
    }
    if (extra == EXTRA_EXP && !u) put(&t, "  %%fe2 = stablehlo.optimization_barrier %%fe : %s\n", ty);
    /* the result through a barrier on both sides, so that the checks below
     * do not join the fused group */
    put(&t, "  %%%so_ = stablehlo.divide %%%se, %%%ssb : %s\n", p, p, p, ty);
    put(&t, "  %%%so = stablehlo.optimization_barrier %%%so_ : %s\n", p, p, ty);
#undef BAR
  }
  put(&t, "  %%rn = stablehlo.constant dense<0x7FC00000> : %s\n", ry);
  if (extra == EXTRA_ROWS)
    for (int k = 0; k < 4; k++) same_rows(&t, (const char *[]){"m", "s", "sx", "mn"}[k], R);
  /* NaN as NaN: both sides' NaNs replaced by one pattern, then compared as bits */
  put(&t, "  %%qn = stablehlo.constant dense<0x7FC00000> : %s\n", ty);
  for (int u = 0; u < 2; u++) {
    const char *p = u ? "u" : "f";
    put(&t, "  %%%sn = stablehlo.compare NE, %%%so, %%%so : (%s, %s) -> tensor<%dx%dxi1>\n", p, p, p, ty, ty, R, C);
    put(&t, "  %%%sc = stablehlo.select %%%sn, %%qn, %%%so : tensor<%dx%dxi1>, %s\n", p, p, p, R, C, ty);
    put(&t, "  %%%si = stablehlo.bitcast_convert %%%sc : (%s) -> tensor<%dx%dxi32>\n", p, p, ty, R, C);
  }
  put(&t, "  stablehlo.custom_call @check.expect_eq(%%fi, %%ui) {has_side_effect = true} : (tensor<%dx%dxi32>, tensor<%dx%dxi32>) -> ()\n",
      R, C, R, C);
  put(&t, "  return\n}\n");
  return t.buf;
}

static void check(int R, int C, pre_kind pre, bool special, extra_kind extra) {
  char *text = program(R, C, pre, special, extra);
  uint32_t n[2] = {0, 0};
  run_main_ok(text, 2, count_softmax, n);
  if (n[0] != 1)
    fail_msg("%dx%d pre %d special %d extra %d: %u softmax groups planned, want 1", R, C, (int)pre, (int)special, (int)extra, n[0]);
  /* fx (a barrier's buffer) dies at the softmax, which writes over it
   * (when the softmax is its only result) */
  if (n[1] != (extra == EXTRA_NONE))
    fail_msg("%dx%d pre %d special %d extra %d: in place %u", R, C, (int)pre, (int)special, (int)extra, n[1]);
  free(text);
}

static void test_same_bits(void **state) {
  (void)state;
  /* Two rows at least (fuse.c does not make one group of a one-row
   * softmax) and 1024 elements unless every row is one element (below that
   * a lone reduce runs unfused, folding in sequential order, so the
   * op-by-op copy would differ for that reason). */
  static const int shapes[][2] = {{64, 256}, {37, 1500}, {2, 3000}, {3, 2000}, {300, 10}, {2, 1025}, {2, 1}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
    for (int pre = PRE_NONE; pre <= PRE_SPLAT; pre++) check(shapes[s][0], shapes[s][1], (pre_kind)pre, false, EXTRA_NONE);
  for (int pre = PRE_NONE; pre <= PRE_SPLAT; pre++) check(14, 7, (pre_kind)pre, true, EXTRA_NONE);
}

/* Other row reductions of x or the scaled x that are results, and the row
 * maxima and sums returned: one softmax group, folding them in its first
 * pass, gives the bits of the ops one at a time (rows of several pieces,
 * of one piece, several rows per chunk, and every special value). */
static void test_row_folds(void **state) {
  (void)state;
  static const int shapes[][2] = {{64, 256}, {37, 1500}, {3, 4100}, {2, 8192}, {300, 10}, {147, 7}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
    for (int pre = PRE_NONE; pre <= PRE_SPLAT; pre++)
      check(shapes[s][0], shapes[s][1], (pre_kind)pre, shapes[s][1] == 7, EXTRA_ROWS);
}

/* exp's result also returned: an ordinary fused group. */
static void test_not_softmax(void **state) {
  (void)state;
  char *text = program(64, 256, PRE_DIV, false, EXTRA_EXP);
  uint32_t n[2] = {1, 1};
  run_main_ok(text, 2, count_softmax, n);
  assert_int_equal(n[0], 0);
  free(text);
}

/* softmax([[1, 2, 3], [0, -1, 30]] / 2) against double precision. */
static void test_values(void **state) {
  (void)state;
  static const double x[2][3] = {{1, 2, 3}, {0, -1, 30}};
  char want[256];
  size_t len = 0;
  for (int r = 0; r < 2; r++) {
    double m = fmax(fmax(x[r][0], x[r][1]), x[r][2]) / 2, s = 0;
    for (int c = 0; c < 3; c++) s += exp(x[r][c] / 2 - m);
    for (int c = 0; c < 3; c++)
      len += (size_t)snprintf(want + len, sizeof want - len, "%s%.9g%s", c ? ", " : r ? "], [" : "", exp(x[r][c] / 2 - m) / s,
                              r && c == 2 ? "]" : "");
  }
  char text[2048];
  snprintf(text, sizeof text,
           "func.func @main() {\n"
           "  %%x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [0.0, -1.0, 30.0]]> : tensor<2x3xf32>\n"
           "  %%c = stablehlo.constant dense<2.0> : tensor<f32>\n"
           "  %%cb = stablehlo.broadcast_in_dim %%c, dims = [] : (tensor<f32>) -> tensor<2x3xf32>\n"
           "  %%p = stablehlo.divide %%x, %%cb : tensor<2x3xf32>\n"
           "  %%z = stablehlo.constant dense<0.0> : tensor<f32>\n"
           "  %%ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
           "  %%m = stablehlo.reduce(%%p init: %%ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>\n"
           "  %%mb = stablehlo.broadcast_in_dim %%m, dims = [0] : (tensor<2xf32>) -> tensor<2x3xf32>\n"
           "  %%d = stablehlo.subtract %%p, %%mb : tensor<2x3xf32>\n"
           "  %%e = stablehlo.exponential %%d : tensor<2x3xf32>\n"
           "  %%s = stablehlo.reduce(%%e init: %%z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>\n"
           "  %%sb = stablehlo.broadcast_in_dim %%s, dims = [0] : (tensor<2xf32>) -> tensor<2x3xf32>\n"
           "  %%o = stablehlo.divide %%e, %%sb : tensor<2x3xf32>\n"
           "  \"check.expect_almost_eq_const\"(%%o) {value = dense<[[%s]> : tensor<2x3xf32>} : (tensor<2x3xf32>) -> ()\n"
           "  return\n}\n",
           want);
  uint32_t n[2] = {0, 0};
  run_main_ok(text, 1, count_softmax, n);
  assert_int_equal(n[0], 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_bits),
      cmocka_unit_test(test_row_folds),
      cmocka_unit_test(test_not_softmax),
      cmocka_unit_test(test_values),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
