/* Typed attribute builders: scalars of every width, strings, arrays, dense
 * arrays and elements, dictionaries; and attributes from text. */
#include "builder_impl.h"
#include "support/scalar.h"
#include "text/parse_fragment.h"

static shl_status publish(const shl_attr *a, const shloc_attr **out) {
  if (!a) return st_oom();
  *out = at_out(a);
  return NULL;
}

static shl_status scalar_type(shloc_module *m, const char *type, bool want_float, const shl_type **out) {
  shl_dtype dt;
  ST_TRY(bld_dtype(type, &dt));
  bool ok = want_float ? dtype_is_float(dt) : dtype_is_int(dt);
  if (!ok)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "'%s' is not %s type", type,
                    want_float ? "a floating-point" : "an integer");
  *out = type_scalar(&m->arena, dt);
  return *out ? NULL : st_oom();
}

shl_status shloc_attr_bool(shloc_module *m, bool v, const shloc_attr **out) {
  return publish(attr_bool(&m->arena, v), out);
}

/* An integer attribute of `t` holding `bits` (checked to fit by the caller),
 * kept sign-extended for signed types as the parser keeps it. */
static shl_status int_attr(shloc_module *m, const shl_type *t, uint64_t bits, const shloc_attr **out) {
  shl_dtype dt = t->dtype;
  if (dt == DT_I1) return publish(attr_bool(&m->arena, bits & 1), out);
  unsigned w = dtype_bits(dt);
  int64_t v = (int64_t)bits;
  if (dtype_class(dt) == DTC_SINT && w < 64 && (bits >> (w - 1)) & 1) v = (int64_t)(bits | (~0ull << w));
  return publish(attr_int(&m->arena, t, v), out);
}

shl_status shloc_attr_int(shloc_module *m, const char *type, int64_t v, const shloc_attr **out) {
  *out = NULL;
  const shl_type *t;
  ST_TRY(scalar_type(m, type, false, &t));
  shl_dtype dt = t->dtype;
  unsigned w = dtype_bits(dt);
  bool fits;
  if (dt == DT_I1) fits = v == 0 || v == 1;
  else if (dtype_class(dt) == DTC_UINT) fits = v >= 0 && (w >= 64 || (uint64_t)v >> w == 0);
  /* Signless and signed: the signed range, as the value is written signed. */
  else fits = w >= 64 || (v >= -(int64_t)(1ull << (w - 1)) && v < (int64_t)(1ull << (w - 1)));
  if (!fits) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "%lld does not fit %s", (long long)v, type);
  uint64_t bits = (uint64_t)v;
  if (w < 64) bits &= (1ull << w) - 1;
  return int_attr(m, t, bits, out);
}

shl_status shloc_attr_uint(shloc_module *m, const char *type, uint64_t v, const shloc_attr **out) {
  *out = NULL;
  const shl_type *t;
  ST_TRY(scalar_type(m, type, false, &t));
  unsigned w = dtype_bits(t->dtype);
  if (w < 64 && v >> w) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "%llu does not fit %s", (unsigned long long)v, type);
  /* Signless types take the unsigned reading too (as in MLIR); "si" types do not. */
  if (!strncmp(type, "si", 2) && v >> (w - 1))
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "%llu does not fit the signed type %s", (unsigned long long)v, type);
  return int_attr(m, t, v, out);
}

shl_status shloc_attr_float(shloc_module *m, const char *type, double v, const shloc_attr **out) {
  *out = NULL;
  const shl_type *t;
  ST_TRY(scalar_type(m, type, true, &t));
  shl_attr *a = attr_new(&m->arena, AT_FLOAT);
  if (!a) return st_oom();
  a->type = t;
  a->u.f_bits = fp_from_f64(t->dtype, v);
  return publish(a, out);
}

shl_status shloc_attr_string(shloc_module *m, const char *s, size_t len, const shloc_attr **out) {
  *out = NULL;
  if (!s && len) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "string attribute: data is NULL");
  return publish(attr_string(&m->arena, (shl_str){s, len}), out);
}

shl_status shloc_attr_array(shloc_module *m, size_t n, const shloc_attr *const *items, const shloc_attr **out) {
  *out = NULL;
  if (n > UINT32_MAX || (n && !items)) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "array attribute: bad items");
  const shl_attr **v = ARENA_ARRAY(&m->arena, const shl_attr *, n ? n : 1);
  shl_attr *a = attr_new(&m->arena, AT_ARRAY);
  if (!v || !a) return st_oom();
  for (size_t i = 0; i < n; i++) {
    if (!items[i]) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "array attribute: item #%zu is NULL", i);
    v[i] = at_in(items[i]);
  }
  a->u.arr.n = (uint32_t)n;
  a->u.arr.items = v;
  return publish(a, out);
}

/* Normalises one element's storage the way the parser stores it: i1 as 0/1,
 * sub-byte types keep their low bits (sign-extended when signed). */
static void normalise(uint8_t *p, shl_dtype dt) {
  unsigned w = dtype_bits(dt);
  if (dt == DT_I1) {
    *p = *p != 0;
  } else if (dtype_bytes(dt) == 1 && w < 8) {
    unsigned v = *p & ((1u << w) - 1);
    if (dtype_class(dt) == DTC_SINT && (v >> (w - 1)) & 1) v |= ~0u << w;
    *p = (uint8_t)v;
  }
}

shl_status shloc_attr_dense_array(shloc_module *m, const char *type, size_t n, const void *data,
                                  const shloc_attr **out) {
  *out = NULL;
  shl_dtype dt;
  ST_TRY(bld_dtype(type, &dt));
  if (!dtype_is_int(dt) && !dtype_is_float(dt))
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "array<%s>: element type must be an integer or float type", type);
  size_t sz = dtype_bytes(dt);
  if (n && (!data || n > SIZE_MAX / sz)) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "array<%s>: bad data", type);
  shl_attr *a = attr_new(&m->arena, AT_DENSE_ARRAY);
  size_t bytes = n * sz;
  uint8_t *d = arena_alloc(&m->arena, bytes ? bytes : 1);
  if (!a || !d) return st_oom();
  if (n) memcpy(d, data, bytes);
  if (sz == 1)
    for (size_t i = 0; i < n; i++) normalise(d + i, dt);
  a->type = type_scalar(&m->arena, dt);
  a->u.darr.n = (int64_t)n;
  a->u.darr.data = d;
  return publish(a->type ? a : NULL, out);
}

shl_status shloc_attr_dense(shloc_module *m, const shloc_type *tensor_type, const void *data, size_t nbytes,
                            const shloc_attr **out) {
  *out = NULL;
  const shl_type *t = ty_in(tensor_type);
  if (!t || t->kind != TY_TENSOR || !type_is_static(t))
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "dense attribute needs a statically shaped tensor type");
  shl_dtype dt = type_storage_dtype(t);
  size_t sz = dtype_bytes(dt);
  int64_t count = type_num_elements(t);
  int64_t want = type_num_bytes(t);
  if (count < 0 || want < 0 || !sz) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "dense attribute: bad tensor type");
  if (nbytes != (size_t)want)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "dense attribute: %zu bytes given, the type needs %lld", nbytes,
                    (long long)want);
  if (nbytes && !data) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "dense attribute: data is NULL");
  uint8_t *d = arena_alloc(&m->arena, nbytes ? nbytes : 1);
  shl_attr *a = attr_new(&m->arena, AT_DENSE);
  if (!d || !a) return st_oom();
  if (nbytes) memcpy(d, data, nbytes);
  if (sz == 1)
    for (int64_t i = 0; i < count; i++) normalise(d + i, dt);
  /* All-equal data is a splat, as the parser (and MLIR) stores it. */
  size_t n = (size_t)count;
  bool same = n > 1;
  for (size_t i = 1; same && i < n; i++) same = memcmp(d, d + i * sz, sz) == 0;
  if (same) n = 1;
  a->type = t;
  a->u.dense.storage = d;
  a->u.dense.nbytes = n * sz;
  a->u.dense.splat = n == 1;
  return publish(a, out);
}

shl_status shloc_attr_dict(shloc_module *m, size_t n, const shloc_named_attr *items, const shloc_attr **out) {
  *out = NULL;
  if (n > UINT32_MAX || (n && !items)) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "dictionary: bad items");
  shl_named_attr *v = ARENA_ARRAY(&m->arena, shl_named_attr, n ? n : 1);
  shl_attr *a = attr_new(&m->arena, AT_DICT);
  if (!v || !a) return st_oom();
  for (size_t i = 0; i < n; i++) {
    ST_TRY(bld_attr_name(m, "dictionary", (uint32_t)i, items[i].name, &v[i].name));
    v[i].attr = items[i].value ? at_in(items[i].value) : attr_new(&m->arena, AT_UNIT);
    if (!v[i].attr) return st_oom();
  }
  ST_TRY(bld_sort_unique("dictionary", v, (uint32_t)n));
  a->u.dict.n = (uint32_t)n;
  a->u.dict.items = v;
  return publish(a, out);
}

shl_status shloc_attr_parse(shloc_module *m, const char *text, size_t len, const shloc_attr **out) {
  *out = NULL;
  const shl_attr *a;
  ST_TRY(text_parse_attr(m, text, len, &a));
  return publish(a, out);
}
