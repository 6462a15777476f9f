/* result_accuracy: one reading of the attribute, with the spec's checks. */
#include "result_accuracy.h"

#include "support/scalar.h"

static bool float_field(const shl_attr *a, double *out) {
  if (!a) return true; /* omitted: 0 */
  if (a->kind == AT_FLOAT && a->type) *out = fp_to_f64(a->type->dtype, a->u.f_bits);
  else if (a->kind == AT_INT) *out = (double)a->u.i;
  else return false;
  return true;
}

/* mode = #stablehlo.result_accuracy_mode<HIGHEST>, as an enum or (generic
 * spellings) a struct or opaque text ending in the mode's name. */
static bool mode_field(const shl_attr *a, ra_mode *out) {
  if (!a) return true;
  shl_str v;
  if (a->kind == AT_ENUM) v = a->u.en.value;
  else if (a->kind == AT_OPAQUE) v = a->u.str;
  else return false;
  static const struct { const char *name; ra_mode m; } modes[] = {
      {"DEFAULT", RA_DEFAULT}, {"HIGHEST", RA_HIGHEST}, {"TOLERANCE", RA_TOLERANCE}};
  for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
    size_t n = strlen(modes[i].name);
    if (str_eq_c(v, modes[i].name) ||
        (v.n > n + 1 && v.p[v.n - 1] == '>' && v.p[v.n - n - 2] == '<' && !memcmp(v.p + v.n - n - 1, modes[i].name, n))) {
      *out = modes[i].m;
      return true;
    }
  }
  return false;
}

shl_status result_accuracy_of(const shl_op *op, ra_spec *out) {
  *out = (ra_spec){0, 0, 0, RA_DEFAULT};
  const shl_attr *a = op_attr(op, "result_accuracy");
  if (!a) return NULL;
  if (a->kind != AT_STRUCT)
    return op_error(op, SHLOC_ERR_VERIFY, "result_accuracy must be a #stablehlo.result_accuracy attribute");
  const shl_attr *u = attr_struct_field(a, "ulps");
  if (!float_field(attr_struct_field(a, "atol"), &out->atol) || !float_field(attr_struct_field(a, "rtol"), &out->rtol) ||
      (u && !attr_as_int(u, &out->ulps)) || !mode_field(attr_struct_field(a, "mode"), &out->mode))
    return op_error(op, SHLOC_ERR_VERIFY, "result_accuracy needs float atol/rtol, integer ulps and a mode of "
                                          "DEFAULT, HIGHEST or TOLERANCE");
  if (!(out->atol >= 0) || !(out->rtol >= 0) || out->ulps < 0)
    return op_error(op, SHLOC_ERR_VERIFY, "result_accuracy tolerances must be non-negative");
  if (out->mode != RA_TOLERANCE && (out->atol != 0 || out->rtol != 0 || out->ulps != 0))
    return op_error(op, SHLOC_ERR_VERIFY, "result_accuracy tolerances must be 0 unless mode is TOLERANCE");
  return NULL;
}
