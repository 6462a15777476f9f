/* zeta (Hurwitz) and polygamma, as upstream's ChloLegalizeToStablehlo.cpp
 * materializes them: a 10-term direct sum plus a 12-term Euler-Maclaurin
 * tail (Johansson 2015, formula 5), polygamma(n, x) =
 * (-1)^(n+1) n! zeta(n + 1, x) with digamma for n = 0; f16/bf16 go through
 * f32. */
#include <math.h>

#include "chlo_impl.h"

#define N(a) (sizeof(a) / sizeof *(a))

static shl_value *floor_of(cl_emit *e, shl_value *x) { return cl_un(e, OP_FLOOR, x); }

shl_value *cl_zeta(cl_emit *e, shl_value *x, shl_value *q) {
  static const double coef[] = {-7.1661652561756670113e18, 1.8152105401943546773e17, -4.5979787224074726105e15,
                                1.1646782814350067249e14,  -2.950130727918164224e12, 7.47242496e10,
                                -1.8924375803183791606e9,  47900160.0,               -1209600.0,
                                30240.0,                   -720.0,                   12.0};
  const int terms = (int)N(coef), iters = 9, two_terms_m1 = 2 * terms - 1;
  shl_value *zero = cl_const(e, q, 0.0), *one = cl_const(e, q, 1.0);
  shl_value *neg_x = cl_neg(e, x);
  shl_value *acc = q, *power_sum = cl_bin(e, OP_POWER, q, neg_x), *q_neg_power;
  for (int i = 0; i < iters; i++) {
    acc = cl_add(e, acc, one);
    power_sum = cl_add(e, power_sum, cl_bin(e, OP_POWER, acc, neg_x));
  }
  acc = cl_add(e, acc, one);
  q_neg_power = cl_bin(e, OP_POWER, acc, neg_x);
  shl_value *one_x = cl_const(e, x, 1.0);
  shl_value *euler_maclaurin = cl_div(e, cl_mul(e, q_neg_power, acc), cl_sub(e, x, one_x));
  shl_value *inv_acc2 = cl_div(e, one, cl_mul(e, acc, acc));
  shl_value *horner = zero;
  for (int i = 0; i < terms - 1; i++) {
    shl_value *lhs = cl_add(e, x, cl_const(e, x, two_terms_m1 - 1 - 2 * i));
    shl_value *rhs = cl_add(e, x, cl_const(e, x, two_terms_m1 - 2 - 2 * i));
    horner = cl_mul(e, cl_mul(e, lhs, rhs), cl_mul(e, inv_acc2, cl_add(e, horner, cl_const(e, acc, 1.0 / coef[i]))));
  }
  shl_value *tail = cl_mul(e, q_neg_power,
                           cl_add(e, cl_const(e, q_neg_power, 0.5),
                                  cl_mul(e, cl_div(e, x, acc), cl_add(e, cl_const(e, acc, 1.0 / coef[terms - 1]), horner))));
  shl_value *accurate = cl_add(e, cl_add(e, power_sum, euler_maclaurin), tail);
  /* The plain sum when the tail is below its resolution. */
  shl_value *tiny = cl_const_bits(e, acc, 1); /* the smallest subnormal */
  shl_value *out = cl_select(e, cl_cmp(e, "LT", cl_abs(e, q_neg_power), cl_mul(e, cl_abs(e, power_sum), tiny)),
                             power_sum, accurate);
  shl_value *nan = cl_const(e, x, NAN), *inf = cl_const(e, x, INFINITY);
  out = cl_select(e, cl_cmp(e, "LT", x, one_x), nan, out);
  /* q <= 0 needs an integer x; at integer q <= 0 there is a pole (+inf for even x). */
  shl_value *q_le0 = cl_cmp(e, "LE", q, zero);
  out = cl_select(e, cl_and(e, q_le0, cl_cmp(e, "NE", x, floor_of(e, x))), nan, out);
  shl_value *at_pole = cl_and(e, q_le0, cl_cmp(e, "EQ", q, floor_of(e, q)));
  shl_value *x_even_int = cl_and(e, cl_cmp(e, "EQ", x, floor_of(e, x)),
                                 cl_cmp(e, "EQ", cl_bin(e, OP_REMAINDER, x, cl_const(e, x, 2.0)), zero));
  out = cl_select(e, at_pole, cl_select(e, x_even_int, inf, nan), out);
  /* x = 1: the harmonic series. */
  return cl_select(e, cl_cmp(e, "EQ", x, one), inf, out);
}

shl_value *cl_polygamma(cl_emit *e, shl_value *n, shl_value *x) {
  shl_value *one = cl_const(e, x, 1.0), *two = cl_const(e, x, 2.0), *zero = cl_const(e, x, 0.0);
  shl_value *sign = cl_sub(e, cl_mul(e, two, cl_bin(e, OP_REMAINDER, n, two)), one);
  shl_value *np1 = cl_add(e, n, one);
  shl_value *r = cl_mul(e, cl_mul(e, sign, cl_exp(e, cl_lgamma(e, np1))), cl_zeta(e, np1, x));
  r = cl_select(e, cl_cmp(e, "EQ", n, zero), cl_digamma(e, x), r);
  shl_value *not_natural = cl_or(e, cl_cmp(e, "NE", n, floor_of(e, n)), cl_cmp(e, "LT", n, zero));
  return cl_select(e, not_natural, cl_const(e, x, NAN), r);
}

void cl_rule_zeta(cl_emit *e, const shl_op *op, shl_value **res) {
  cl_fn2 f = op_is(op, OP_CHLO_ZETA) ? cl_zeta : cl_polygamma;
  res[0] = cl_upcast2_f32(e, op->operands[0], op->operands[1], f);
}
