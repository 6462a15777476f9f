/* erf, erfc and erf_inv (upstream ChloLegalizeToStablehlo.cpp: Cephes
 * rational approximations in f64, Eigen's and Cephes' polynomials in f32,
 * Giles' erfinv polynomials; f16/bf16 go through f32). */
#include <math.h>

#include "chlo_impl.h"

#define N(a) (sizeof(a) / sizeof *(a))

/* f32 coefficient tables are rounded to float first, as upstream's are. */
static void to_f32(const double *in, double *out, size_t n) {
  for (size_t i = 0; i < n; i++) out[i] = (double)(float)in[i];
}

static shl_value *poly_f32(cl_emit *e, shl_value *x, const double *c, size_t n) {
  double r[32];
  to_f32(c, r, n);
  return cl_poly(e, x, r, n);
}

/* ---- f64 (Cephes) ---- */

/* erfc for |x| >= 1: exp(-x^2) P(|x|)/Q(|x|) below 8, R/S above, 0 past
 * the exp underflow, 2 - erfc(-x) for negative x. */
static shl_value *erfc_ge1_f64(cl_emit *e, shl_value *x) {
  static const double P[] = {2.46196981473530512524E-10, 5.64189564831068821977E-1, 7.46321056442269912687E0,
                             4.86371970985681366614E1,   1.96520832956077098242E2,  5.26445194995477358631E2,
                             9.34528527171957607540E2,   1.02755188689515710272E3,  5.57535335369399327526E2};
  static const double Q[] = {1.00000000000000000000E0, 1.32281951154744992508E1, 8.67072140885989742329E1,
                             3.54937778887819891062E2, 9.75708501743205489753E2, 1.82390916687909736289E3,
                             2.24633760818710981792E3, 1.65666309194161350182E3, 5.57535340817727675546E2};
  static const double R[] = {5.64189583547755073984E-1, 1.27536670759978104416E0, 5.01905042251180477414E0,
                             6.16021097993053585195E0,  7.40974269950448939160E0, 2.97886665372100240670E0};
  static const double S[] = {1.00000000000000000000E0, 2.26052863220117276590E0, 9.39603524938001434673E0,
                             1.20489539808096656605E1, 1.70814450747565897222E1, 9.60896809063285878198E0,
                             3.36907645100081516050E0};
  const double maxlog = 7.09782712893383996843E2;
  shl_value *z = cl_neg(e, cl_mul(e, x, x));
  shl_value *exp_z = cl_exp(e, z), *ax = cl_abs(e, x);
  shl_value *a18 = cl_div(e, cl_mul(e, exp_z, cl_poly(e, ax, P, N(P))), cl_poly(e, ax, Q, N(Q)));
  shl_value *a8 = cl_div(e, cl_mul(e, exp_z, cl_poly(e, ax, R, N(R))), cl_poly(e, ax, S, N(S)));
  shl_value *approx = cl_select(e, cl_cmp(e, "LT", ax, cl_const(e, x, 8.0)), a18, a8);
  shl_value *zero = cl_const(e, x, 0.0);
  approx = cl_select(e, cl_cmp(e, "LT", z, cl_const(e, x, -maxlog)), zero, approx);
  return cl_select(e, cl_cmp(e, "LT", x, zero), cl_sub(e, cl_const(e, x, 2.0), approx), approx);
}

/* erf for |x| <= 1: x T(x^2) / U(x^2). */
static shl_value *erf_le1_f64(cl_emit *e, shl_value *x) {
  static const double T[] = {9.60497373987051638749E0, 9.00260197203842689217E1, 2.23200534594684319226E3,
                             7.00332514112805075473E3, 5.55923013010394962768E4};
  static const double U[] = {1.00000000000000000000E0, 3.35617141647503099647E1, 5.21357949780152679795E2,
                             4.59432382970980127987E3, 2.26290000613890934246E4, 4.92673942608635921086E4};
  shl_value *x2 = cl_mul(e, x, x);
  return cl_div(e, cl_mul(e, x, cl_poly(e, x2, T, N(T))), cl_poly(e, x2, U, N(U)));
}

static shl_value *erf_f64(cl_emit *e, shl_value *x) {
  shl_value *small = erf_le1_f64(e, x);
  shl_value *one = cl_const(e, x, 1.0);
  shl_value *large = cl_sub(e, one, erfc_ge1_f64(e, x));
  return cl_select(e, cl_cmp(e, "LT", cl_abs(e, x), one), small, large);
}

static shl_value *erfc_f64(cl_emit *e, shl_value *x) {
  shl_value *large = erfc_ge1_f64(e, x);
  shl_value *one = cl_const(e, x, 1.0);
  shl_value *small = cl_sub(e, one, erf_le1_f64(e, x));
  return cl_select(e, cl_cmp(e, "LT", cl_abs(e, x), one), small, large);
}

/* ---- f32 ---- */

/* erfc for |x| >= 1: exp(-x^2)/|x| P(1/x^2) below 2, R(1/x^2) above. */
static shl_value *erfc_ge1_f32(cl_emit *e, shl_value *x) {
  static const double P[] = {+2.326819970068386E-2, -1.387039388740657E-1, +3.687424674597105E-1,
                             -5.824733027278666E-1, +6.210004621745983E-1, -4.944515323274145E-1,
                             +3.404879937665872E-1, -2.741127028184656E-1, +5.638259427386472E-1};
  static const double R[] = {-1.047766399936249E+1, +1.297719955372516E+1, -7.495518717768503E+0,
                             +2.921019019210786E+0, -1.015265279202700E+0, +4.218463358204948E-1,
                             -2.820767439740514E-1, +5.641895067754075E-1};
  const double maxlog = 88.72283905206835;
  shl_value *x2 = cl_mul(e, x, x);
  shl_value *z = cl_neg(e, x2);
  shl_value *ax = cl_abs(e, x), *one = cl_const(e, x, 1.0);
  shl_value *rx2 = cl_div(e, one, x2);
  shl_value *scale = cl_mul(e, cl_exp(e, z), cl_div(e, one, ax));
  shl_value *lt2 = cl_cmp(e, "LT", ax, cl_const(e, x, 2.0));
  shl_value *poly = cl_select(e, lt2, poly_f32(e, rx2, P, N(P)), poly_f32(e, rx2, R, N(R)));
  shl_value *approx = cl_mul(e, scale, poly);
  shl_value *zero = cl_const(e, x, 0.0);
  approx = cl_select(e, cl_cmp(e, "LT", z, cl_const(e, x, -maxlog)), zero, approx);
  return cl_select(e, cl_cmp(e, "LT", x, zero), cl_sub(e, cl_const(e, x, 2.0), approx), approx);
}

/* erf for |x| <= 1: x T(x^2). */
static shl_value *erf_le1_f32(cl_emit *e, shl_value *x) {
  static const double T[] = {+7.853861353153693E-5, -8.010193625184903E-4, +5.188327685732524E-3,
                             -2.685381193529856E-2, +1.128358514861418E-1, -3.761262582423300E-1,
                             +1.128379165726710E+0};
  return cl_mul(e, x, poly_f32(e, cl_mul(e, x, x), T, N(T)));
}

/* Eigen's erf: x Alpha(x^2) / Beta(x^2) on x clamped to [-4, 4], clamped to [-1, 1]. */
static shl_value *erf_f32(cl_emit *e, shl_value *x) {
  static const double A[] = {-2.72614225801306e-10, 2.77068142495902e-08,  -2.10102402082508e-06,
                             -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
                             -1.60960333262415e-02};
  static const double B[] = {-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
                             -7.37332916720468e-03, -1.42647390514189e-02};
  if (x && x->type->dtype == DT_F64) return erf_f64(e, x);
  x = cl_clamp(e, cl_const(e, x, -4.0), x, cl_const(e, x, 4.0));
  shl_value *x2 = cl_mul(e, x, x);
  shl_value *r = cl_div(e, cl_mul(e, x, poly_f32(e, x2, A, N(A))), poly_f32(e, x2, B, N(B)));
  return cl_clamp(e, cl_const(e, x, -1.0), r, cl_const(e, x, 1.0));
}

static shl_value *erfc_f32(cl_emit *e, shl_value *x) {
  if (x && x->type->dtype == DT_F64) return erfc_f64(e, x);
  shl_value *large = erfc_ge1_f32(e, x);
  shl_value *one = cl_const(e, x, 1.0);
  shl_value *small = cl_sub(e, one, erf_le1_f32(e, x));
  return cl_select(e, cl_cmp(e, "LT", cl_abs(e, x), one), small, large);
}

/* ---- erf_inv (Giles, "Approximating the erfinv function") ---- */

/* erf_inv(+-1) = +-inf; the polynomial is indeterminate there. */
static shl_value *erfinv_edges(cl_emit *e, shl_value *x, shl_value *p) {
  shl_value *at_one = cl_cmp(e, "EQ", cl_abs(e, x), cl_const(e, x, 1.0));
  return cl_select(e, at_one, cl_mul(e, x, cl_const(e, x, INFINITY)), cl_mul(e, p, x));
}

/* w = -log1p(-x^2) */
static shl_value *erfinv_w(cl_emit *e, shl_value *x) { return cl_neg(e, cl_log1p(e, cl_mul(e, x, cl_neg(e, x)))); }

static shl_value *erfinv_f32(cl_emit *e, shl_value *x) {
  static const float lt5[] = {2.81022636e-08f,  3.43273939e-07f, -3.5233877e-06f, -4.39150654e-06f, 0.00021858087f,
                              -0.00125372503f, -0.00417768164f, 0.246640727f,     1.50140941f};
  static const float ge5[] = {-0.000200214257f, 0.000100950558f, 0.00134934322f, -0.00367342844f, 0.00573950773f,
                              -0.0076224613f,   0.00943887047f,  1.00167406f,    2.83297682f};
  shl_value *w = erfinv_w(e, x);
  shl_value *lt = cl_cmp(e, "LT", w, cl_const(e, x, 5.0));
  w = cl_select(e, lt, cl_sub(e, w, cl_const(e, x, 2.5)), cl_sub(e, cl_sqrt(e, w), cl_const(e, x, 3.0)));
  shl_value *p = cl_select(e, lt, cl_const(e, x, lt5[0]), cl_const(e, x, ge5[0]));
  for (size_t i = 1; i < N(lt5); i++)
    p = cl_add(e, cl_select(e, lt, cl_const(e, x, lt5[i]), cl_const(e, x, ge5[i])), cl_mul(e, p, w));
  return erfinv_edges(e, x, p);
}

static shl_value *erfinv_f64(cl_emit *e, shl_value *x) {
  static const double lt625[] = {
      -3.6444120640178196996e-21, -1.685059138182016589e-19,  1.2858480715256400167e-18, 1.115787767802518096e-17,
      -1.333171662854620906e-16,  2.0972767875968561637e-17,  6.6376381343583238325e-15, -4.0545662729752068639e-14,
      -8.1519341976054721522e-14, 2.6335093153082322977e-12,  -1.2975133253453532498e-11, -5.4154120542946279317e-11,
      1.051212273321532285e-09,   -4.1126339803469836976e-09, -2.9070369957882005086e-08, 4.2347877827932403518e-07,
      -1.3654692000834678645e-06, -1.3882523362786468719e-05, 0.0001867342080340571352,  -0.00074070253416626697512,
      -0.0060336708714301490533,  0.24015818242558961693,     1.6536545626831027356};
  static const double lt16[] = {
      2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07, 1.8239629214389227755e-08,
      1.5027403968909827627e-06, -4.013867526981545969e-06, 2.9234449089955446044e-06,  1.2475304481671778723e-05,
      -4.7318229009055733981e-05, 6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
      0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066,  -0.0037512085075692412107,
      0.005370914553590063617,   1.0052589676941592334,     3.0838856104922207635};
  static const double ge16[] = {
      -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09, -3.7894654401267369937e-09,
      7.6157012080783393804e-09,  -1.4960026627149240478e-08, 2.9147953450901080826e-08, -6.7711997758452339498e-08,
      2.2900482228026654717e-07,  -9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
      7.5995277030017761139e-05,  -0.00021503011930044477347, -0.00013871931833623122026, 1.0103004648645343977,
      4.8499064014085844221};
  shl_value *w = erfinv_w(e, x);
  shl_value *is625 = cl_cmp(e, "LT", w, cl_const(e, x, 6.25));
  shl_value *is16 = cl_cmp(e, "LT", w, cl_const(e, x, 16.0));
  shl_value *coef[N(lt625)];
  for (size_t i = 0; i < N(lt625); i++) {
    coef[i] = cl_const(e, x, lt625[i]);
    if (i < N(lt16)) coef[i] = cl_select(e, is625, coef[i], cl_const(e, x, lt16[i]));
    if (i < N(ge16)) coef[i] = cl_select(e, is16, coef[i], cl_const(e, x, ge16[i]));
  }
  shl_value *shift = cl_select(e, is16, cl_const(e, x, 3.25), cl_const(e, x, 5.0));
  w = cl_select(e, is625, cl_sub(e, w, cl_const(e, x, 3.125)), cl_sub(e, cl_sqrt(e, w), shift));
  shl_value *p = coef[0];
  for (size_t i = 1; i < N(ge16); i++) p = cl_add(e, coef[i], cl_mul(e, p, w));
  for (size_t i = N(ge16); i < N(lt16); i++) p = cl_select(e, is16, cl_add(e, coef[i], cl_mul(e, p, w)), p);
  for (size_t i = N(lt16); i < N(lt625); i++) p = cl_select(e, is625, cl_add(e, coef[i], cl_mul(e, p, w)), p);
  return erfinv_edges(e, x, p);
}

static shl_value *erfinv_any(cl_emit *e, shl_value *x) {
  return x && x->type->dtype == DT_F64 ? erfinv_f64(e, x) : erfinv_f32(e, x);
}

void cl_rule_erf(cl_emit *e, const shl_op *op, shl_value **res) {
  shl_value *x = op->operands[0];
  switch (op_id(op)) {
    case OP_CHLO_ERF: res[0] = cl_upcast_f32(e, x, erf_f32); return;
    case OP_CHLO_ERFC: res[0] = cl_upcast_f32(e, x, erfc_f32); return;
    default: res[0] = cl_upcast_f32(e, x, erfinv_any); return;
  }
}
