/* JAX's symbolic dimensions and dtype names, to check .npy inputs against
 * a jax.export envelope's avals (shloc_npy_run_func). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/jax_dims.h"

/* JAX writes each dimension with str(): an integer, a variable, or an
 * expression over +, -, *, floordiv(), mod(), max(), min(), non_negative()
 * ("2*b + 1", "floordiv(b, 2)").  Variables written alone as a dimension are
 * bound from the input shapes; every dimension is then evaluated and compared. */

typedef struct {
  const char *p, *end;
  const jax_dimvars *vars;
  bool ok;
  const char *unbound; /* first variable without a value */
  size_t unbound_len;
} dim_parser;

static void skip_ws(dim_parser *d) {
  while (d->p < d->end && *d->p == ' ') d->p++;
}
static bool eat(dim_parser *d, char c) {
  skip_ws(d);
  if (d->p < d->end && *d->p == c) {
    d->p++;
    return true;
  }
  return false;
}

static long long dim_expr(dim_parser *d, int depth);

static const long long *lookup(const jax_dimvars *v, const char *name, size_t n) {
  for (size_t i = 0; i < v->n; i++)
    if (strlen(v->name[i]) == n && memcmp(v->name[i], name, n) == 0) return &v->value[i];
  return NULL;
}

static long long floordiv(long long a, long long b) {
  long long q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static long long dim_atom(dim_parser *d, int depth) {
  skip_ws(d);
  if (depth > 32 || d->p >= d->end) {
    d->ok = false;
    return 0;
  }
  if (eat(d, '-')) return -dim_atom(d, depth + 1);
  if (eat(d, '(')) {
    long long v = dim_expr(d, depth + 1);
    if (!eat(d, ')')) d->ok = false;
    return v;
  }
  if (isdigit((unsigned char)*d->p)) {
    long long v = 0;
    while (d->p < d->end && isdigit((unsigned char)*d->p) && v < (1LL << 50)) v = v * 10 + (*d->p++ - '0');
    return v;
  }
  const char *s = d->p;
  while (d->p < d->end && (isalnum((unsigned char)*d->p) || *d->p == '_')) d->p++;
  size_t n = (size_t)(d->p - s);
  if (!n) {
    d->ok = false;
    return 0;
  }
  if (eat(d, '(')) { /* a function of one or two arguments */
    long long a = dim_expr(d, depth + 1), b = 0;
    bool two = eat(d, ',');
    if (two) b = dim_expr(d, depth + 1);
    if (!eat(d, ')')) d->ok = false;
#define FN(lit) (n == sizeof(lit) - 1 && memcmp(s, lit, n) == 0)
    if (two && FN("floordiv") && b != 0) return floordiv(a, b);
    if (two && FN("mod") && b != 0) return a - b * floordiv(a, b);
    if (two && FN("max")) return a > b ? a : b;
    if (two && FN("min")) return a < b ? a : b;
    if (!two && FN("non_negative")) return a > 0 ? a : 0;
#undef FN
    d->ok = false;
    return 0;
  }
  const long long *v = lookup(d->vars, s, n);
  if (v) return *v;
  if (!d->unbound) d->unbound = s, d->unbound_len = n;
  d->ok = false;
  return 0;
}

static long long dim_term(dim_parser *d, int depth) {
  long long v = dim_atom(d, depth);
  while (d->ok && eat(d, '*')) v *= dim_atom(d, depth);
  return v;
}

static long long dim_expr(dim_parser *d, int depth) {
  long long v = dim_term(d, depth);
  for (;;) {
    if (eat(d, '+')) v += dim_term(d, depth);
    else if (eat(d, '-')) v -= dim_term(d, depth);
    else return v;
  }
}

static bool is_ident(const char *s) {
  if (!isalpha((unsigned char)*s) && *s != '_') return false;
  while (isalnum((unsigned char)*s) || *s == '_') s++;
  return *s == 0;
}

shloc_status jax_dim_bind(const shloc_jax_aval *a, const int64_t *dims, int rank, jax_dimvars *vars) {
  if ((size_t)rank != a->rank) return NULL; /* reported by jax_dim_check */
  for (size_t i = 0; i < a->rank; i++) {
    if (!is_ident(a->dims[i])) continue;
    const long long *v = lookup(vars, a->dims[i], strlen(a->dims[i]));
    if (v && *v != dims[i])
      return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "dimension variable '%s' is %lld here but %lld in an earlier input",
                      a->dims[i], (long long)dims[i], *v);
    if (v) continue;
    if (vars->n == JAX_MAX_DIMVARS)
      return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL, "more than %d dimension variables", JAX_MAX_DIMVARS);
    vars->name[vars->n] = a->dims[i];
    vars->value[vars->n++] = dims[i];
  }
  return NULL;
}

shloc_status jax_dim_check(const shloc_jax_aval *a, const int64_t *dims, int rank, const jax_dimvars *vars) {
  if ((size_t)rank != a->rank) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "rank %d, expected %zu", rank, a->rank);
  for (size_t i = 0; i < a->rank; i++) {
    dim_parser d = {a->dims[i], a->dims[i] + strlen(a->dims[i]), vars, true, NULL, 0};
    long long v = dim_expr(&d, 0);
    skip_ws(&d);
    if (d.unbound)
      return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL,
                      "dimension %zu is '%s': variable '%.*s' appears in no input dimension by itself, so its value "
                      "is not known", i, a->dims[i], (int)d.unbound_len, d.unbound);
    if (!d.ok || d.p != d.end)
      return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL, "dimension %zu: cannot evaluate '%s'", i, a->dims[i]);
    if (v != dims[i])
      return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "dimension %zu is %lld, expected %s = %lld", i,
                      (long long)dims[i], a->dims[i], v);
  }
  return NULL;
}

/* bool -> i1, c64 -> complex<f32>, f8_e4m3fn -> f8E4M3FN, ...: the MLIR
 * element type of a schema dtype, or NULL for float0 and PRNG keys. */
const char *jax_mlir_dtype(const char *d) {
  static const char *const map[][2] = {
      {"bool", "i1"},          {"c64", "complex<f32>"},      {"c128", "complex<f64>"},     {"f8_e4m3b11fnuz", "f8E4M3B11FNUZ"},
      {"f8_e4m3fn", "f8E4M3FN"}, {"f8_e4m3fnuz", "f8E4M3FNUZ"}, {"f8_e5m2", "f8E5M2"},      {"f8_e5m2fnuz", "f8E5M2FNUZ"},
      {"f8_e4m3", "f8E4M3"},   {"f8_e3m4", "f8E3M4"},        {"f8_e8m0fnu", "f8E8M0FNU"}, {"f4_e2m1fn", "f4E2M1FN"},
  };
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (strcmp(d, map[i][0]) == 0) return map[i][1];
  if (strcmp(d, "f0") == 0 || strncmp(d, "key<", 4) == 0) return NULL;
  return d; /* i8..i64, ui8..ui64, f16, f32, f64, bf16, i4, ui4 are spelled alike */
}
