/* lgamma and digamma (Lanczos' approximation with g = 7, n = 9, and Euler's
 * reflection below 1/2) and bessel_i1e (Cephes' Chebyshev series), as
 * upstream's ChloLegalizeToStablehlo.cpp materializes them; f16/bf16 go
 * through f32. */
#include <math.h>

#include "chlo_impl.h"

#define N(a) (sizeof(a) / sizeof *(a))

static const double lanczos_g = 7;
static const double lanczos_base = 0.99999999999980993227684700473478;
static const double lanczos_coef[] = {676.520368121885098567009190444019, -1259.13921672240287047156078755283,
                                      771.3234287776530788486528258894,   -176.61502916214059906584551354,
                                      12.507343278686904814458936853,     -0.13857109526572011689554707,
                                      9.984369578019570859563e-6,         1.50563273514931155834e-7};
static const double pi = 3.14159265358979323846;

/* z = -x where x < 1/2 (reflected), x - 1 elsewhere. */
static shl_value *lanczos_z(cl_emit *e, shl_value *x, shl_value **reflect) {
  *reflect = cl_cmp(e, "LT", x, cl_const(e, x, 0.5));
  return cl_select(e, *reflect, cl_neg(e, x), cl_sub(e, x, cl_const(e, x, 1.0)));
}

/* log(t) for t = z + g + 1/2, as log(g + 1/2) + log1p(z / (g + 1/2)). */
static shl_value *lanczos_log_t(cl_emit *e, shl_value *x, shl_value *z, shl_value **t) {
  shl_value *gh = cl_const(e, x, lanczos_g + 0.5);
  *t = cl_add(e, gh, z);
  return cl_add(e, cl_const(e, x, log(lanczos_g + 0.5)), cl_log1p(e, cl_div(e, z, gh)));
}

shl_value *cl_lgamma(cl_emit *e, shl_value *x) {
  shl_value *reflect, *z = lanczos_z(e, x, &reflect);
  shl_value *half = cl_const(e, x, 0.5), *one = cl_const(e, x, 1.0);
  shl_value *a = cl_const(e, x, lanczos_base);
  for (size_t i = 0; i < N(lanczos_coef); i++)
    a = cl_add(e, a, cl_div(e, cl_const(e, x, lanczos_coef[i]), cl_add(e, z, cl_const(e, x, (double)(i + 1)))));
  shl_value *t, *log_t = lanczos_log_t(e, x, z, &t);
  /* (z + 1/2 - t / log(t)) log(t): (z + 1/2) log(t) - t without overflow. */
  shl_value *r = cl_mul(e, cl_sub(e, cl_add(e, z, half), cl_div(e, t, log_t)), log_t);
  shl_value *lg = cl_add(e, cl_add(e, cl_const(e, x, (log(2.0) + log(pi)) / 2), r), cl_log(e, a));
  /* Reflection: log(pi) - log|sin(pi frac)| - lgamma(1 - x), with |frac(x)|
   * folded to [0, 1/2] for precision. */
  shl_value *ax = cl_abs(e, x);
  shl_value *frac = cl_sub(e, ax, cl_un(e, OP_FLOOR, ax));
  frac = cl_select(e, cl_cmp(e, "LT", half, frac), cl_sub(e, one, frac), frac);
  shl_value *denom = cl_log(e, cl_un(e, OP_SINE, cl_mul(e, cl_const(e, x, pi), frac)));
  shl_value *refl = cl_sub(e, cl_sub(e, cl_const(e, x, log(pi)), denom), lg);
  shl_value *finite = denom ? cl_op(e, OP_IS_FINITE, 1, &denom, cl_type_like(e, x->type, DT_I1), 0, NULL) : NULL;
  refl = cl_select(e, finite, refl, cl_neg(e, denom));
  lg = cl_select(e, reflect, refl, lg);
  shl_value *inf = cl_const(e, x, INFINITY);
  return cl_select(e, cl_cmp(e, "EQ", cl_abs(e, x), inf), inf, lg);
}

shl_value *cl_digamma(cl_emit *e, shl_value *x) {
  shl_value *reflect, *z = lanczos_z(e, x, &reflect);
  shl_value *zero = cl_const(e, x, 0.0);
  shl_value *a = cl_const(e, x, lanczos_base), *a_prime = zero;
  for (size_t i = 0; i < N(lanczos_coef); i++) {
    shl_value *c = cl_const(e, x, lanczos_coef[i]);
    shl_value *zk = cl_add(e, z, cl_const(e, x, (double)(i + 1)));
    a_prime = cl_sub(e, a_prime, cl_div(e, c, cl_mul(e, zk, zk)));
    a = cl_add(e, a, cl_div(e, c, zk));
  }
  shl_value *t, *log_t = lanczos_log_t(e, x, z, &t);
  shl_value *dg = cl_sub(e, cl_add(e, log_t, cl_div(e, a_prime, a)), cl_div(e, cl_const(e, x, lanczos_g), t));
  /* Reflection: digamma(1 - x) - pi cot(pi x), with x shifted into [-1/2, 1/2]. */
  shl_value *reduced = cl_add(e, x, cl_abs(e, cl_un(e, OP_FLOOR, cl_add(e, x, cl_const(e, x, 0.5)))));
  shl_value *p = cl_const(e, x, pi);
  shl_value *px = cl_mul(e, p, reduced);
  shl_value *refl = cl_sub(e, dg, cl_div(e, cl_mul(e, p, cl_un(e, OP_COSINE, px)), cl_un(e, OP_SINE, px)));
  dg = cl_select(e, reflect, refl, dg);
  /* Poles at zero and the negative integers. */
  shl_value *pole = cl_and(e, cl_cmp(e, "LE", x, zero), cl_cmp(e, "EQ", x, cl_un(e, OP_FLOOR, x)));
  return cl_select(e, pole, cl_const(e, x, NAN), dg);
}

/* Clenshaw's recurrence for a Chebyshev series (Cephes chbevl). */
static shl_value *chebyshev(cl_emit *e, shl_value *x, const double *c, size_t n) {
  shl_value *b0 = cl_const(e, x, 0.0), *b1 = cl_const(e, x, 0.0), *b2 = cl_const(e, x, 0.0);
  for (size_t i = 0; i < n; i++) {
    b2 = b1;
    b1 = b0;
    b0 = cl_add(e, cl_sub(e, cl_mul(e, x, b1), b2), cl_const(e, x, c[i]));
  }
  return cl_mul(e, cl_sub(e, b0, b2), cl_const(e, x, 0.5));
}

static shl_value *bessel_i1e_with(cl_emit *e, shl_value *x, const double *a, size_t na, const double *b, size_t nb) {
  shl_value *z = cl_abs(e, x), *two = cl_const(e, x, 2.0);
  shl_value *le8 = cl_mul(e, z, chebyshev(e, cl_sub(e, cl_mul(e, cl_const(e, x, 0.5), z), two), a, na));
  shl_value *gt8 = cl_div(e, chebyshev(e, cl_sub(e, cl_div(e, cl_const(e, x, 32.0), z), two), b, nb), cl_sqrt(e, z));
  shl_value *r = cl_select(e, cl_cmp(e, "LE", z, cl_const(e, x, 8.0)), le8, gt8);
  return cl_mul(e, cl_un(e, OP_SIGN, x), r);
}

static shl_value *bessel_i1e_f32(cl_emit *e, shl_value *x) {
  static const float A[] = {9.38153738649577178388E-9f,  -4.44505912879632808065E-8f, 2.00329475355213526229E-7f,
                            -8.56872026469545474066E-7f, 3.47025130813767847674E-6f,  -1.32731636560394358279E-5f,
                            4.78156510755005422638E-5f,  -1.61760815825896745588E-4f, 5.12285956168575772895E-4f,
                            -1.51357245063125314899E-3f, 4.15642294431288815669E-3f,  -1.05640848946261981558E-2f,
                            2.47264490306265168283E-2f,  -5.29459812080949914269E-2f, 1.02643658689847095384E-1f,
                            -1.76416518357834055153E-1f, 2.52587186443633654823E-1f};
  static const float B[] = {-3.83538038596423702205E-9f, -2.63146884688951950684E-8f, -2.51223623787020892529E-7f,
                            -3.88256480887769039346E-6f, -1.10588938762623716291E-4f, -9.76109749136146840777E-3f,
                            7.78576235018280120474E-1f};
  double a[N(A)], b[N(B)];
  for (size_t i = 0; i < N(A); i++) a[i] = A[i];
  for (size_t i = 0; i < N(B); i++) b[i] = B[i];
  return bessel_i1e_with(e, x, a, N(a), b, N(b));
}

static shl_value *bessel_i1e_f64(cl_emit *e, shl_value *x) {
  static const double A[] = {
      2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16, -1.10559694773538630805E-15,
      7.60068429473540693410E-15, -5.04218550472791168711E-14, 3.22379336594557470981E-13, -1.98397439776494371520E-12,
      1.17361862988909016308E-11, -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
      9.38153738649577178388E-9,  -4.44505912879632808065E-8,  2.00329475355213526229E-7,  -8.56872026469545474066E-7,
      3.47025130813767847674E-6,  -1.32731636560394358279E-5,  4.78156510755005422638E-5,  -1.61760815825896745588E-4,
      5.12285956168575772895E-4,  -1.51357245063125314899E-3,  4.15642294431288815669E-3,  -1.05640848946261981558E-2,
      2.47264490306265168283E-2,  -5.29459812080949914269E-2,  1.02643658689847095384E-1,  -1.76416518357834055153E-1,
      2.52587186443633654823E-1};
  static const double B[] = {
      7.51729631084210481353E-18,  4.41434832307170791151E-18,  -4.65030536848935832153E-17, -3.20952592199342395980E-17,
      2.96262899764595013876E-16,  3.30820231092092828324E-16,  -1.88035477551078244854E-15, -3.81440307243700780478E-15,
      1.04202769841288027642E-14,  4.27244001671195135429E-14,  -2.10154184277266431302E-14, -4.08355111109219731823E-13,
      -7.19855177624590851209E-13, 2.03562854414708950722E-12,  1.41258074366137813316E-11,  3.25260358301548823856E-11,
      -1.89749581235054123450E-11, -5.58974346219658380687E-10, -3.83538038596423702205E-9,  -2.63146884688951950684E-8,
      -2.51223623787020892529E-7,  -3.88256480887769039346E-6,  -1.10588938762623716291E-4,  -9.76109749136146840777E-3,
      7.78576235018280120474E-1};
  return bessel_i1e_with(e, x, A, N(A), B, N(B));
}

static shl_value *bessel_any(cl_emit *e, shl_value *x) {
  return x && x->type->dtype == DT_F64 ? bessel_i1e_f64(e, x) : bessel_i1e_f32(e, x);
}

void cl_rule_gamma(cl_emit *e, const shl_op *op, shl_value **res) {
  shl_value *x = op->operands[0];
  switch (op_id(op)) {
    case OP_CHLO_LGAMMA: res[0] = cl_upcast_f32(e, x, cl_lgamma); return;
    case OP_CHLO_DIGAMMA: res[0] = cl_upcast_f32(e, x, cl_digamma); return;
    default: res[0] = cl_upcast_f32(e, x, bessel_any); return;
  }
}
