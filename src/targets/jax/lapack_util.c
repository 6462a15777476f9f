/* Helpers of the JAX LAPACK targets: see lapack_util.h. */
#include "lapack_util.h"

#include <limits.h>
#include <stdlib.h>

#include "ffi/ffi.h"

XLA_FFI_Error *lk_err(const lk_call *c, XLA_FFI_Error_Code code, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return shloc_ffi_errorf(c->cf->api, code, "%s", msg);
}

XLA_FFI_Error *lk_run(XLA_FFI_CallFrame *cf, lk_prec p, bool lapack, lk_impl *impl) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  static const XLA_FFI_DataType types[] = {XLA_FFI_DataType_F32, XLA_FFI_DataType_F64, XLA_FFI_DataType_C64,
                                           XLA_FFI_DataType_C128};
  static const XLA_FFI_DataType reals[] = {XLA_FFI_DataType_F32, XLA_FFI_DataType_F64, XLA_FFI_DataType_F32,
                                           XLA_FFI_DataType_F64};
  static const XLA_FFI_DataType cplxs[] = {XLA_FFI_DataType_C64, XLA_FFI_DataType_C128, XLA_FFI_DataType_C64,
                                           XLA_FFI_DataType_C128};
  lk_call c = {.cf = cf, .p = p, .dt = types[p], .rdt = reals[p], .cdt = cplxs[p]};
  c.esz = shloc_ffi_dtype_bytes(c.dt);
  c.resz = shloc_ffi_dtype_bytes(c.rdt);
  shl_status st = lapack ? mathlib_require_lapack(NULL) : NULL;
  if (st) {
    XLA_FFI_Error *e = lk_err(&c, XLA_FFI_Error_Code_UNAVAILABLE, "%s", shloc_status_message(st));
    shloc_status_free(st);
    return e;
  }
  c.ml = mathlib_get();
  XLA_FFI_Error *err = impl(&c);
  for (int i = 0; i < c.n_scratch; i++) free(c.scratch[i]);
  return err;
}

XLA_FFI_Error *lk_arity(const lk_call *c, int64_t n_args, int64_t n_rets) {
  if (c->cf->args.size == n_args && c->cf->rets.size == n_rets) return NULL;
  return lk_err(c, XLA_FFI_Error_Code_INVALID_ARGUMENT, "expects %lld operands and %lld results, got %lld and %lld",
                (long long)n_args, (long long)n_rets, (long long)c->cf->args.size, (long long)c->cf->rets.size);
}

/* "f32[2,3,3]" into buf. */
static const char *type_text(char *buf, size_t cap, XLA_FFI_DataType dt, int64_t rank, const int64_t *dims) {
  int len = snprintf(buf, cap, "%s[", ffi_dtype_xla_name(dt));
  for (int64_t k = 0; k < rank && len > 0 && (size_t)len < cap; k++)
    len += snprintf(buf + len, cap - (size_t)len, "%s%lld", k ? "," : "", (long long)dims[k]);
  if (len > 0 && (size_t)len < cap) snprintf(buf + len, cap - (size_t)len, "]");
  return buf;
}

static XLA_FFI_Buffer *buffer(const lk_call *c, bool ret, int i) {
  return ret ? shloc_ffi_ret(c->cf, i) : shloc_ffi_arg(c->cf, i);
}

XLA_FFI_Error *lk_main(lk_call *c, int i, lapack_int *rows, lapack_int *cols, void **data) {
  XLA_FFI_Buffer *b = buffer(c, false, i);
  if (!b) return lk_err(c, XLA_FFI_Error_Code_INVALID_ARGUMENT, "operand %d is not a buffer", i);
  char t[160];
  if (b->dtype != c->dt || b->rank < 2)
    return lk_err(c, XLA_FFI_Error_Code_INVALID_ARGUMENT, "operand %d is %s; expected a %s matrix of rank >= 2", i,
                  type_text(t, sizeof t, b->dtype, b->rank, b->dims), ffi_dtype_xla_name(c->dt));
  int64_t m = b->dims[b->rank - 2], n = b->dims[b->rank - 1];
  if (m > INT32_MAX || n > INT32_MAX)
    return lk_err(c, XLA_FFI_Error_Code_INVALID_ARGUMENT, "operand %d is %s; LAPACK takes at most %d rows and columns",
                  i, type_text(t, sizeof t, b->dtype, b->rank, b->dims), INT32_MAX);
  c->nb = (int)b->rank - 2;
  c->bdims = b->dims;
  c->batch = 1;
  for (int k = 0; k < c->nb; k++) c->batch *= b->dims[k];
  *rows = (lapack_int)m;
  *cols = (lapack_int)n;
  *data = b->data;
  return NULL;
}

XLA_FFI_Error *lk_square(lk_call *c, int i, lapack_int *n, void **data) {
  lapack_int m;
  XLA_FFI_Error *e = lk_main(c, i, &m, n, data);
  if (!e && m != *n)
    return lk_err(c, XLA_FFI_Error_Code_INVALID_ARGUMENT, "operand %d is not square (%d x %d)", i, m, *n);
  return e;
}

static XLA_FFI_Error *check(const lk_call *c, bool ret, int i, XLA_FFI_DataType dt, int n_trail, const int64_t *trail,
                            int64_t *trail_out, void **data) {
  XLA_FFI_Buffer *b = buffer(c, ret, i);
  const char *role = ret ? "result" : "operand";
  if (!b) return lk_err(c, XLA_FFI_Error_Code_INVALID_ARGUMENT, "%s %d is not a buffer", role, i);
  bool ok = b->dtype == dt && b->rank == c->nb + n_trail;
  for (int k = 0; ok && k < c->nb; k++) ok = b->dims[k] == c->bdims[k];
  for (int k = 0; ok && trail && k < n_trail; k++) ok = b->dims[c->nb + k] == trail[k];
  if (!ok) {
    char got[160], want[160];
    int64_t dims[16];
    int64_t rank = c->nb + n_trail;
    if (rank > 16 || (!trail && n_trail))
      snprintf(want, sizeof want, "%s of rank %lld", ffi_dtype_xla_name(dt), (long long)rank);
    else {
      for (int k = 0; k < c->nb; k++) dims[k] = c->bdims[k];
      for (int k = 0; k < n_trail; k++) dims[c->nb + k] = trail[k];
      type_text(want, sizeof want, dt, rank, dims);
    }
    return lk_err(c, XLA_FFI_Error_Code_INVALID_ARGUMENT, "%s %d is %s; expected %s", role, i,
                  type_text(got, sizeof got, b->dtype, b->rank, b->dims), want);
  }
  for (int k = 0; trail_out && k < n_trail; k++) trail_out[k] = b->dims[c->nb + k];
  *data = b->data;
  return NULL;
}

XLA_FFI_Error *lk_arg(const lk_call *c, int i, XLA_FFI_DataType dt, int n_trail, const int64_t *trail, void **data) {
  return check(c, false, i, dt, n_trail, trail, NULL, data);
}

XLA_FFI_Error *lk_ret(const lk_call *c, int i, XLA_FFI_DataType dt, int n_trail, const int64_t *trail, void **data) {
  return check(c, true, i, dt, n_trail, trail, NULL, data);
}

XLA_FFI_Error *lk_arg_dims(const lk_call *c, int i, XLA_FFI_DataType dt, int n_trail, int64_t *trail, void **data) {
  return check(c, false, i, dt, n_trail, NULL, trail, data);
}

XLA_FFI_Error *lk_ret_dims(const lk_call *c, int i, XLA_FFI_DataType dt, int n_trail, int64_t *trail, void **data) {
  return check(c, true, i, dt, n_trail, NULL, trail, data);
}

void lk_copy_in(void *dst, const void *src, size_t bytes) {
  if (dst != src && bytes) memcpy(dst, src, bytes);
}

/* The scalar attribute `name` of type dt, with an error naming what was found. */
static XLA_FFI_Error *scalar(const lk_call *c, const char *name, XLA_FFI_DataType dt, const char *what,
                             const void **value) {
  const XLA_FFI_Attrs *attrs = &c->cf->attrs;
  int64_t i = shloc_ffi_attr_find(attrs, name);
  if (i < 0) return lk_err(c, XLA_FFI_Error_Code_INVALID_ARGUMENT, "missing attribute '%s' (%s)", name, what);
  const XLA_FFI_Scalar *s = attrs->types[i] == XLA_FFI_AttrType_SCALAR ? attrs->attrs[i] : NULL;
  if (!s || s->dtype != dt)
    return lk_err(c, XLA_FFI_Error_Code_INVALID_ARGUMENT, "attribute '%s' must be %s, got %s%s", name, what,
                  s ? "a scalar of type " : "an attribute of another kind",
                  s ? ffi_dtype_xla_name(s->dtype) : "");
  *value = s->value;
  return NULL;
}

XLA_FFI_Error *lk_attr_char(const lk_call *c, const char *name, const char *valid, const char *unimplemented,
                            char *out) {
  const void *v;
  XLA_FFI_Error *e = scalar(c, name, XLA_FFI_DataType_U8, "a ui8 ASCII code", &v);
  if (e) return e;
  unsigned char ch = *(const unsigned char *)v;
  if (ch && unimplemented && strchr(unimplemented, ch))
    return lk_err(c, XLA_FFI_Error_Code_UNIMPLEMENTED, "attribute '%s' = '%c' (%u) is not implemented", name, ch, ch);
  if (!ch || !strchr(valid, ch))
    return lk_err(c, XLA_FFI_Error_Code_INVALID_ARGUMENT, "attribute '%s' = %u is not one of the characters '%s'",
                  name, ch, valid);
  *out = (char)ch;
  return NULL;
}

XLA_FFI_Error *lk_attr_i32(const lk_call *c, const char *name, int32_t *out) {
  const void *v;
  XLA_FFI_Error *e = scalar(c, name, XLA_FFI_DataType_S32, "an i32", &v);
  if (!e) memcpy(out, v, sizeof *out);
  return e;
}

XLA_FFI_Error *lk_attr_bool(const lk_call *c, const char *name, bool *out) {
  const void *v;
  XLA_FFI_Error *e = scalar(c, name, XLA_FFI_DataType_PRED, "a bool", &v);
  if (!e) *out = *(const uint8_t *)v != 0;
  return e;
}

XLA_FFI_Error *lk_alloc(lk_call *c, int64_t count, size_t size, void **out) {
  if (count < 1) count = 1;
  void *p = c->n_scratch < LK_MAX_SCRATCH && (uint64_t)count <= SIZE_MAX / size ? malloc((size_t)count * size) : NULL;
  if (!p)
    return lk_err(c, XLA_FFI_Error_Code_RESOURCE_EXHAUSTED, "cannot allocate %lld bytes of workspace",
                  (long long)count * (long long)size);
  c->scratch[c->n_scratch++] = p;
  *out = p;
  return NULL;
}

XLA_FFI_Error *lk_size(const lk_call *c, int64_t n, lapack_int *out) {
  if (n > INT32_MAX)
    return lk_err(c, XLA_FFI_Error_Code_INVALID_ARGUMENT, "needs a workspace of %lld elements; LAPACK takes at most %d",
                  (long long)n, INT32_MAX);
  *out = n > 1 ? (lapack_int)n : 1;
  return NULL;
}

XLA_FFI_Error *lk_query_size(const lk_call *c, const void *query, lapack_int *out) {
  double v = c->p == LK_S || c->p == LK_C ? (double)*(const float *)query : *(const double *)query;
  if (!(v <= INT32_MAX)) v = (double)INT32_MAX + 1; /* also NaN: reported as too large */
  return lk_size(c, v > 0 ? (int64_t)v : 1, out);
}
