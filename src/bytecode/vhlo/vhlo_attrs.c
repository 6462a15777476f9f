/* VHLO attribute and type encodings (openxla/stablehlo
 * stablehlo/dialect/VhloBytecode.cpp: a leading code, then the fields), read
 * straight into the StableHLO form of shloc's IR: vhlo.tensor_v1 becomes a
 * dense elements attribute, enums become #stablehlo<...> enums, and so on.
 * Structured attributes with no dedicated IR form are composed as the text
 * StableHLO prints and parsed, so they equal what the text parser builds. */
#include <stdio.h>
#include <stdlib.h>

#include "support/floatfmt.h"
#include "text/printer.h"
#include "builder/builder_impl.h"
#include "vhlo.h"

enum {
  VA_ARRAY = 1, VA_BOOLEAN, VA_COMPARISON_DIRECTION, VA_COMPARISON_TYPE, VA_CUSTOM_CALL_API_VERSION, VA_DICTIONARY,
  VA_FFT_TYPE, VA_FLOAT, VA_INTEGER, VA_OUTPUT_OPERAND_ALIAS, VA_PRECISION, VA_RNG_ALGORITHM, VA_RNG_DISTRIBUTION,
  VA_STRING, VA_TENSOR, VA_TRANSPOSE, VA_TYPE, VA_TYPE_EXTENSIONS, VA_RESULT_ACCURACY_MODE, VA_RESULT_ACCURACY,
  VA_SUB_AXIS_INFO, VA_AXIS_REF, VA_REPLICA_GROUP_MESH_AXES, VA_MESH_AXIS, VA_MESH,
};

/* Type codes and what they become: a dtype, or a kind with fields. */
enum { VT_SCALAR, VT_COMPLEX, VT_FUNCTION, VT_TENSOR, VT_TENSOR_ENC, VT_TOKEN, VT_TUPLE, VT_QUANT, VT_UNRANKED,
       VT_WITNESS, VT_QUANT_AXIS, VT_NONE, VT_BUFFER, VT_FUTURE };

/* Every type code with its first version (the reader accepts all; the
 * writer refuses a type newer than its target). */
static const struct {
  uint8_t kind;
  shl_dtype dt;
  uint8_t min[3];
} vhlo_types[] = {
    [0] = {VT_SCALAR, DT_I1, {0, 9, 0}},           [1] = {VT_COMPLEX, 0, {0, 9, 0}},
    [2] = {VT_SCALAR, DT_BF16, {0, 9, 0}},         [3] = {VT_SCALAR, DT_F16, {0, 9, 0}},
    [4] = {VT_SCALAR, DT_F32, {0, 9, 0}},          [5] = {VT_SCALAR, DT_F64, {0, 9, 0}},
    [6] = {VT_SCALAR, DT_F8E4M3FN, {0, 9, 0}},     [7] = {VT_SCALAR, DT_F8E5M2, {0, 9, 0}},
    [8] = {VT_FUNCTION, 0, {0, 9, 0}},             [9] = {VT_SCALAR, DT_INDEX, {0, 9, 0}},
    [10] = {VT_SCALAR, DT_I4, {0, 9, 0}},          [11] = {VT_SCALAR, DT_I8, {0, 9, 0}},
    [12] = {VT_SCALAR, DT_I16, {0, 9, 0}},         [13] = {VT_SCALAR, DT_I32, {0, 9, 0}},
    [14] = {VT_SCALAR, DT_I64, {0, 9, 0}},         [15] = {VT_SCALAR, DT_UI4, {0, 9, 0}},
    [16] = {VT_SCALAR, DT_UI8, {0, 9, 0}},         [17] = {VT_SCALAR, DT_UI16, {0, 9, 0}},
    [18] = {VT_SCALAR, DT_UI32, {0, 9, 0}},        [19] = {VT_SCALAR, DT_UI64, {0, 9, 0}},
    [20] = {VT_TENSOR, 0, {0, 9, 0}},              [21] = {VT_TENSOR_ENC, 0, {0, 9, 0}},
    [22] = {VT_TOKEN, 0, {0, 9, 0}},               [23] = {VT_TUPLE, 0, {0, 9, 0}},
    [24] = {VT_QUANT, 0, {0, 9, 0}},               [25] = {VT_UNRANKED, 0, {0, 9, 0}},
    [26] = {VT_WITNESS, 0, {0, 9, 0}},             [27] = {VT_SCALAR, DT_F8E4M3FNUZ, {0, 10, 0}},
    [28] = {VT_SCALAR, DT_F8E5M2FNUZ, {0, 10, 0}}, [29] = {VT_SCALAR, DT_F8E4M3B11FNUZ, {0, 11, 0}},
    [30] = {VT_QUANT_AXIS, 0, {0, 18, 0}},         [31] = {VT_SCALAR, DT_I2, {1, 2, 0}},
    [32] = {VT_SCALAR, DT_UI2, {1, 2, 0}},         [33] = {VT_NONE, 0, {1, 6, 0}},
    [34] = {VT_SCALAR, DT_TF32, {1, 6, 0}},        [35] = {VT_SCALAR, DT_F8E4M3, {1, 7, 0}},
    [36] = {VT_SCALAR, DT_F8E3M4, {1, 7, 0}},      [37] = {VT_SCALAR, DT_F4E2M1FN, {1, 8, 0}},
    [38] = {VT_SCALAR, DT_F6E2M3FN, {1, 8, 0}},    [39] = {VT_SCALAR, DT_F6E3M2FN, {1, 8, 0}},
    [40] = {VT_SCALAR, DT_F8E8M0FNU, {1, 8, 0}},   [41] = {VT_BUFFER, 0, {1, 13, 0}},
    [42] = {VT_FUTURE, 0, {1, 15, 0}},
};

int vhlo_scalar_type_code(shl_dtype dt, const uint8_t **min) {
  for (size_t i = 0; i < sizeof vhlo_types / sizeof vhlo_types[0]; i++)
    if (vhlo_types[i].kind == VT_SCALAR && vhlo_types[i].dt == dt) {
      *min = vhlo_types[i].min;
      return (int)i;
    }
  return -1;
}

const uint8_t *vhlo_type_code_min(unsigned code) {
  return code < sizeof vhlo_types / sizeof vhlo_types[0] ? vhlo_types[code].min : NULL;
}

/* Enum attributes: StableHLO's spelling and the names by value. */
typedef struct {
  const char *name;
  uint32_t n;
  const char *const *values;
} vhlo_enum;

static const char *const cmp_dir[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
static const char *const cmp_type[] = {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"};
static const char *const fft_type[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
static const char *const precision[] = {"DEFAULT", "HIGH", "HIGHEST"};
static const char *const rng_alg[] = {"DEFAULT", "THREE_FRY", "PHILOX"};
static const char *const rng_dist[] = {NULL, "UNIFORM", "NORMAL"};
static const char *const transpose[] = {"TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
static const char *const accuracy_mode[] = {"DEFAULT", "HIGHEST", "TOLERANCE"};

#define ENUM(n, v) {n, sizeof v / sizeof v[0], v}
static const vhlo_enum enum_comparison_direction = ENUM("comparison_direction", cmp_dir);
static const vhlo_enum enum_comparison_type = ENUM("comparison_type", cmp_type);
static const vhlo_enum enum_fft_type = ENUM("fft_type", fft_type);
static const vhlo_enum enum_precision = ENUM("precision", precision);
static const vhlo_enum enum_rng_algorithm = ENUM("rng_algorithm", rng_alg);
static const vhlo_enum enum_rng_distribution = ENUM("rng_distribution", rng_dist);
static const vhlo_enum enum_transpose = ENUM("transpose", transpose);
static const vhlo_enum enum_accuracy_mode = ENUM("result_accuracy_mode", accuracy_mode);

static const struct {
  const vhlo_enum *e;
  unsigned code;
} enum_codes[] = {
    {&enum_comparison_direction, VA_COMPARISON_DIRECTION}, {&enum_comparison_type, VA_COMPARISON_TYPE},
    {&enum_fft_type, VA_FFT_TYPE},                         {&enum_precision, VA_PRECISION},
    {&enum_rng_algorithm, VA_RNG_ALGORITHM},               {&enum_rng_distribution, VA_RNG_DISTRIBUTION},
    {&enum_transpose, VA_TRANSPOSE},                       {&enum_accuracy_mode, VA_RESULT_ACCURACY_MODE},
};

bool vhlo_enum_code(shl_str name, shl_str value, unsigned *code, uint64_t *v) {
  for (size_t i = 0; i < sizeof enum_codes / sizeof enum_codes[0]; i++) {
    const vhlo_enum *e = enum_codes[i].e;
    if (!str_eq_c(name, e->name)) continue;
    for (uint32_t k = 0; k < e->n; k++)
      if (e->values[k] && str_eq_c(value, e->values[k])) {
        *code = enum_codes[i].code;
        *v = k;
        return true;
      }
    return false;
  }
  return false;
}

/* ---- composing text (the builder's text helpers) ---- */

typedef bld_text vtext;
#define vt_printf bld_text_printf

static void vt_double(vtext *t, double d) {
  uint64_t bits;
  memcpy(&bits, &d, 8);
  char buf[FP_FORMAT_MAX];
  fp_format(DT_F64, bits, buf, sizeof buf);
  vt_printf(t, "%s", buf);
}

static shl_status vt_parse(bc_reader *r, const uint8_t *at, vtext *t, const shl_attr **out) {
  shl_status st = bld_text_attr(r->m, t, out);
  if (!st) return NULL;
  shl_status e = bc_error(r, at, "%s", shloc_status_message(st));
  shloc_status_free(st);
  return e;
}

/* ---- attributes ---- */

static shl_status read_enum(bc_cur *c, const vhlo_enum *e, const shl_attr **out) {
  const uint8_t *at = c->p;
  uint64_t v;
  ST_TRY(bc_varint(c, &v));
  if (v >= e->n || !e->values[v]) return bc_error(c->r, at, "invalid %s value %llu", e->name, (unsigned long long)v);
  shl_attr *a = attr_new(c->r->a, AT_ENUM);
  if (!a) return st_oom();
  a->u.en.dialect = str_of("stablehlo");
  a->u.en.name = str_of(e->name);
  a->u.en.value = str_of(e->values[v]);
  *out = a;
  return NULL;
}

/* An attribute's text as the printer writes it, for composed attributes. */
static void vt_attr(vtext *t, const shl_attr *a) {
  shl_printer pr = {0};
  pr_attr(&pr, a);
  if (pr.oom) t->oom = true;
  else vt_printf(t, "%.*s", (int)pr.len, pr.buf);
  free(pr.buf);
}

static void vt_ints(vtext *t, const int64_t *v, uint32_t n) {
  vt_printf(t, "[");
  for (uint32_t i = 0; i < n; i++) vt_printf(t, "%s%lld", i ? ", " : "", (long long)v[i]);
  vt_printf(t, "]");
}

shl_status vhlo_read_attr(bc_cur *c, const shl_attr **out) {
  bc_reader *r = c->r;
  const uint8_t *at = c->p;
  uint64_t code;
  ST_TRY(bc_varint(c, &code));
  switch (code) {
  case VA_ARRAY:
    return bc_attr_array(c, out);
  case VA_BOOLEAN: {
    uint64_t v;
    ST_TRY(bc_varint(c, &v));
    if (v > 1) return bc_error(r, at, "invalid boolean %llu", (unsigned long long)v);
    shl_attr *a = attr_bool(r->a, v == 1);
    if (!a) return st_oom();
    *out = a;
    return NULL;
  }
  case VA_COMPARISON_DIRECTION: return read_enum(c, &enum_comparison_direction, out);
  case VA_COMPARISON_TYPE: return read_enum(c, &enum_comparison_type, out);
  case VA_FFT_TYPE: return read_enum(c, &enum_fft_type, out);
  case VA_PRECISION: return read_enum(c, &enum_precision, out);
  case VA_RNG_ALGORITHM: return read_enum(c, &enum_rng_algorithm, out);
  case VA_RNG_DISTRIBUTION: return read_enum(c, &enum_rng_distribution, out);
  case VA_TRANSPOSE: return read_enum(c, &enum_transpose, out);
  case VA_CUSTOM_CALL_API_VERSION: {
    /* StableHLO keeps the API version as an i32 integer attribute. */
    uint64_t v;
    ST_TRY(bc_varint(c, &v));
    if (v > 4) return bc_error(r, at, "invalid custom call API version %llu", (unsigned long long)v);
    shl_attr *a = attr_int(r->a, type_scalar(r->a, DT_I32), (int64_t)v);
    if (!a || !a->type) return st_oom();
    *out = a;
    return NULL;
  }
  case VA_DICTIONARY: {
    uint64_t n;
    ST_TRY(bc_count(c, 2, &n));
    shl_named_attr *items = ARENA_ARRAY(r->a, shl_named_attr, n ? n : 1);
    shl_attr *a = attr_new(r->a, AT_DICT);
    if (!items || !a) return st_oom();
    for (uint64_t i = 0; i < n; i++) {
      const shl_attr *k;
      const uint8_t *kat = c->p;
      ST_TRY(bc_attr(c, &k));
      if (k->kind != AT_STRING) return bc_error(r, kat, "dictionary key is not a string");
      items[i].name = k->u.str;
      items[i].is_prop = false;
      ST_TRY(bc_attr(c, &items[i].attr));
    }
    uint32_t dup;
    if (!attrs_sort(items, (uint32_t)n, &dup)) return bc_error(r, at, "duplicate dictionary key '%.*s'", (int)items[dup].name.n, items[dup].name.p);
    a->u.dict.n = (uint32_t)n;
    a->u.dict.items = items;
    *out = a;
    return NULL;
  }
  case VA_FLOAT:
  case VA_INTEGER: {
    const shl_type *t;
    ST_TRY(bc_type(c, &t));
    if (t->kind != TY_SCALAR || !dtype_bits(t->dtype)) return bc_error(r, at, "integer/float attribute of a non-scalar type");
    uint64_t v;
    unsigned w = dtype_bits(t->dtype);
    ST_TRY(bc_apint(c, w, &v));
    if (code == VA_INTEGER && t->dtype == DT_I1) {
      shl_attr *a = attr_bool(r->a, v & 1);
      if (!a) return st_oom();
      *out = a;
      return NULL;
    }
    shl_attr *a = attr_new(r->a, code == VA_INTEGER ? AT_INT : AT_FLOAT);
    if (!a) return st_oom();
    a->type = t;
    if (code == VA_FLOAT) {
      a->u.f_bits = w < 64 ? v & ((1ull << w) - 1) : v;
    } else if (dtype_class(t->dtype) == DTC_UINT || w >= 64) {
      a->u.i = (int64_t)(w < 64 ? v & ((1ull << w) - 1) : v);
    } else {
      uint64_t m = 1ull << (w - 1);
      a->u.i = (int64_t)(((v & ((m << 1) - 1)) ^ m) - m);
    }
    *out = a;
    return NULL;
  }
  case VA_STRING: {
    shl_str s;
    ST_TRY(bc_string(c, &s));
    shl_attr *a = attr_string(r->a, s);
    if (!a) return st_oom();
    *out = a;
    return NULL;
  }
  case VA_TENSOR: {
    const shl_type *t;
    const uint8_t *raw;
    size_t n;
    ST_TRY(bc_type(c, &t));
    ST_TRY(bc_blob(c, &raw, &n));
    return bc_dense(r, at, t, raw, n, out);
  }
  case VA_TYPE: {
    shl_attr *a = attr_new(r->a, AT_TYPE);
    if (!a) return st_oom();
    ST_TRY(bc_type(c, &a->type));
    *out = a;
    return NULL;
  }
  case VA_TYPE_EXTENSIONS: {
    int64_t *b;
    uint32_t n;
    ST_TRY(bc_svarints(c, &b, &n));
    vtext t = {0};
    /* StableHLO's spelling of the bounds (its printer's). */
    vt_printf(&t, "#stablehlo.bounds<");
    for (uint32_t i = 0; i < n; i++) {
      if (b[i] == INT64_MIN) vt_printf(&t, "%s?", i ? ", " : "");
      else vt_printf(&t, "%s%lld", i ? ", " : "", (long long)b[i]);
    }
    vt_printf(&t, ">");
    return vt_parse(r, at, &t, out);
  }
  case VA_OUTPUT_OPERAND_ALIAS: {
    int64_t *oti, *ti, oi;
    uint32_t no, nt;
    ST_TRY(bc_svarints(c, &oti, &no));
    ST_TRY(bc_svarint(c, &oi));
    ST_TRY(bc_svarints(c, &ti, &nt));
    vtext t = {0};
    vt_printf(&t, "#stablehlo.output_operand_alias<output_tuple_indices = ");
    vt_ints(&t, oti, no);
    vt_printf(&t, ", operand_index = %lld, operand_tuple_indices = ", (long long)oi);
    vt_ints(&t, ti, nt);
    vt_printf(&t, ">");
    return vt_parse(r, at, &t, out);
  }
  case VA_RESULT_ACCURACY_MODE: {
    const shl_attr *e;
    ST_TRY(read_enum(c, &enum_accuracy_mode, &e));
    vtext t = {0};
    vt_printf(&t, "#stablehlo.result_accuracy_mode<%s>", e->u.en.value.p);
    return vt_parse(r, at, &t, out);
  }
  case VA_RESULT_ACCURACY: {
    uint64_t atol, rtol;
    int64_t ulps;
    const shl_attr *mode;
    ST_TRY(bc_apint(c, 64, &atol));
    ST_TRY(bc_apint(c, 64, &rtol));
    ST_TRY(bc_svarint(c, &ulps));
    ST_TRY(bc_attr(c, &mode));
    vtext t = {0};
    double a, b;
    memcpy(&a, &atol, 8);
    memcpy(&b, &rtol, 8);
    vt_printf(&t, "#stablehlo.result_accuracy<atol = ");
    vt_double(&t, a);
    vt_printf(&t, ", rtol = ");
    vt_double(&t, b);
    vt_printf(&t, ", ulps = %lld, mode = ", (long long)ulps);
    vt_attr(&t, mode);
    vt_printf(&t, ">");
    return vt_parse(r, at, &t, out);
  }
  case VA_SUB_AXIS_INFO: {
    int64_t pre, size;
    ST_TRY(bc_svarint(c, &pre));
    ST_TRY(bc_svarint(c, &size));
    vtext t = {0};
    vt_printf(&t, "#stablehlo.sub_axis_info<pre_size = %lld, size = %lld>", (long long)pre, (long long)size);
    return vt_parse(r, at, &t, out);
  }
  case VA_AXIS_REF: {
    const shl_attr *name, *sub = NULL;
    uint64_t has;
    ST_TRY(bc_attr(c, &name));
    ST_TRY(bc_varint(c, &has));
    if (has) ST_TRY(bc_attr(c, &sub));
    vtext t = {0};
    vt_printf(&t, "#stablehlo.axis_ref<name = ");
    vt_attr(&t, name);
    if (sub) {
      /* sub_axis_info prints as (pre_size)size inside an axis_ref */
      const shl_attr *p = attr_struct_field(sub, "pre_size"), *s = attr_struct_field(sub, "size");
      int64_t pv = 0, sv = 0;
      if (!attr_as_int(p, &pv) || !attr_as_int(s, &sv)) t.oom = true;
      vt_printf(&t, ", sub_axis_info = (%lld)%lld", (long long)pv, (long long)sv);
    }
    vt_printf(&t, ">");
    return vt_parse(r, at, &t, out);
  }
  case VA_REPLICA_GROUP_MESH_AXES: {
    const shl_attr *mesh, *axes;
    ST_TRY(bc_attr(c, &mesh));
    ST_TRY(bc_attr(c, &axes));
    if (axes->kind != AT_ARRAY) return bc_error(r, at, "replica group axes are not an array");
    vtext t = {0};
    vt_printf(&t, "#stablehlo.replica_group_mesh_axes<mesh = ");
    if (mesh->kind == AT_STRING) {
      vt_printf(&t, "@");
      bld_text_symbol(&t, mesh->u.str.p, mesh->u.str.n);
    } else {
      t.oom = true;
    }
    vt_printf(&t, ", axes = [");
    for (uint32_t i = 0; i < axes->u.arr.n; i++) {
      vt_printf(&t, "%s", i ? ", " : "");
      vt_attr(&t, axes->u.arr.items[i]);
    }
    vt_printf(&t, "]>");
    if (t.oom) {
      free(t.p);
      return bc_error(r, at, "unsupported replica group mesh axes");
    }
    return vt_parse(r, at, &t, out);
  }
  default:
    return bc_error(r, at, "VHLO attribute kind %llu is not supported", (unsigned long long)code);
  }
}

/* ---- types ---- */

static shl_status type_list(bc_cur *c, const shl_type *const **out, uint32_t *n) {
  uint64_t cnt;
  ST_TRY(bc_count(c, 1, &cnt));
  const shl_type **v = ARENA_ARRAY(c->r->a, const shl_type *, cnt ? cnt : 1);
  if (!v) return st_oom();
  for (uint64_t i = 0; i < cnt; i++) ST_TRY(bc_type(c, &v[i]));
  *out = v;
  *n = (uint32_t)cnt;
  return NULL;
}

/* The MLIR spelling of a quantized storage type ("i8", "u8"). */
static void vt_storage(vtext *t, const shl_type *st, bool is_signed) {
  unsigned w = dtype_bits(st->dtype);
  vt_printf(t, "%s%u", is_signed ? "i" : "u", w);
}

static bool full_range(const shl_type *st, bool is_signed, int64_t lo, int64_t hi) {
  unsigned w = dtype_bits(st->dtype);
  if (w >= 64) return true;
  if (is_signed) return lo == -(1ll << (w - 1)) && hi == (1ll << (w - 1)) - 1;
  return lo == 0 && hi == (int64_t)((1ull << w) - 1);
}

static shl_status read_quant(bc_cur *c, bool per_axis, const shl_type **out) {
  bc_reader *r = c->r;
  const uint8_t *at = c->p;
  uint64_t flags, axis = 0;
  const shl_type *st, *et;
  int64_t lo, hi;
  ST_TRY(bc_varint(c, &flags));
  ST_TRY(bc_type(c, &st));
  ST_TRY(bc_type(c, &et));
  if (st->kind != TY_SCALAR || et->kind != TY_SCALAR) return bc_error(r, at, "invalid quantized type");
  vtext t = {0};
  bool sgn = flags & 1;
  if (per_axis) {
    ST_TRY(bc_varint(c, &axis));
    ST_TRY(bc_svarint(c, &lo));
    ST_TRY(bc_svarint(c, &hi));
  }
  uint64_t n_scales = 1, n_zps = 1;
  uint64_t *scales = NULL;
  int64_t *zps = NULL;
  if (per_axis) {
    ST_TRY(bc_count(c, 1, &n_scales));
    scales = ARENA_ARRAY(r->a, uint64_t, n_scales ? n_scales : 1);
    if (!scales) return st_oom();
    for (uint64_t i = 0; i < n_scales; i++) ST_TRY(bc_apint(c, 64, &scales[i]));
    ST_TRY(bc_count(c, 1, &n_zps));
    zps = ARENA_ARRAY(r->a, int64_t, n_zps ? n_zps : 1);
    if (!zps) return st_oom();
    for (uint64_t i = 0; i < n_zps; i++) ST_TRY(bc_svarint(c, &zps[i]));
    if (n_zps != n_scales) return bc_error(r, at, "per-axis quantized type has %llu scales and %llu zero points", (unsigned long long)n_scales, (unsigned long long)n_zps);
  } else {
    scales = ARENA_ARRAY(r->a, uint64_t, 1);
    zps = ARENA_ARRAY(r->a, int64_t, 1);
    if (!scales || !zps) return st_oom();
    ST_TRY(bc_apint(c, 64, &scales[0]));
    ST_TRY(bc_svarint(c, &zps[0]));
    ST_TRY(bc_svarint(c, &lo));
    ST_TRY(bc_svarint(c, &hi));
  }
  vt_printf(&t, "!quant.uniform<");
  vt_storage(&t, st, sgn);
  if (!full_range(st, sgn, lo, hi)) vt_printf(&t, "<%lld:%lld>", (long long)lo, (long long)hi);
  vt_printf(&t, ":%s", dtype_name(et->dtype));
  if (per_axis) vt_printf(&t, ":%llu, {", (unsigned long long)axis);
  else vt_printf(&t, ", ");
  for (uint64_t i = 0; i < n_scales; i++) {
    double d;
    memcpy(&d, &scales[i], 8);
    if (i) vt_printf(&t, ","); /* MLIR's separator here has no space */
    vt_double(&t, d);
    if (zps[i]) vt_printf(&t, ":%lld", (long long)zps[i]);
  }
  vt_printf(&t, per_axis ? "}>" : ">");
  if (t.oom) {
    free(t.p);
    return st_oom();
  }
  shl_status s = bc_parse_type_text(r, at, t.p, t.n, out);
  free(t.p);
  return s;
}

static shl_status ranked(bc_cur *c, bool enc, bool buffer, const shl_type **out) {
  bc_reader *r = c->r;
  const uint8_t *at = c->p;
  const shl_attr *encoding = NULL;
  if (enc) ST_TRY(bc_attr(c, &encoding));
  int64_t *dims;
  uint32_t rank;
  const shl_type *el;
  ST_TRY(bc_svarints(c, &dims, &rank));
  ST_TRY(bc_type(c, &el));
  if (el->kind != TY_SCALAR) return bc_error(r, at, "tensor element type is not a scalar type");
  ST_TRY(bc_check_shape(r, at, dims, rank));
  if (buffer) {
    vtext t = {0};
    vt_printf(&t, "memref<");
    for (uint32_t i = 0; i < rank; i++) {
      if (dims[i] == SHL_DYN) vt_printf(&t, "?x");
      else vt_printf(&t, "%lldx", (long long)dims[i]);
    }
    vt_printf(&t, "%s>", dtype_name(el->dtype));
    if (t.oom) {
      free(t.p);
      return st_oom();
    }
    shl_status s = bc_parse_type_text(r, at, t.p, t.n, out);
    free(t.p);
    return s;
  }
  shl_type *t = type_tensor(r->a, el->dtype, (int32_t)rank, dims);
  if (!t) return st_oom();
  t->quant = el->quant;
  t->encoding = encoding;
  *out = t;
  return NULL;
}

shl_status vhlo_read_type(bc_cur *c, const shl_type **out) {
  bc_reader *r = c->r;
  const uint8_t *at = c->p;
  uint64_t code;
  ST_TRY(bc_varint(c, &code));
  if (code >= sizeof vhlo_types / sizeof vhlo_types[0])
    return bc_error(r, at, "VHLO type kind %llu is not supported", (unsigned long long)code);
  shl_type *t;
  switch (vhlo_types[code].kind) {
  case VT_SCALAR:
    if (!(t = type_scalar(r->a, vhlo_types[code].dt))) return st_oom();
    *out = t;
    return NULL;
  case VT_COMPLEX: {
    const shl_type *el;
    ST_TRY(bc_type(c, &el));
    if (el->kind != TY_SCALAR || (el->dtype != DT_F32 && el->dtype != DT_F64))
      return bc_error(r, at, "only complex<f32> and complex<f64> are supported");
    if (!(t = type_scalar(r->a, el->dtype == DT_F32 ? DT_C64 : DT_C128))) return st_oom();
    *out = t;
    return NULL;
  }
  case VT_TOKEN:
    if (!(t = type_token(r->a))) return st_oom();
    *out = t;
    return NULL;
  case VT_NONE:
  case VT_FUNCTION:
  case VT_TUPLE:
    if (!(t = arena_alloc(r->a, sizeof *t))) return st_oom();
    t->kind = vhlo_types[code].kind == VT_NONE ? TY_NONE : vhlo_types[code].kind == VT_TUPLE ? TY_TUPLE : TY_FUNCTION;
    if (t->kind != TY_NONE) ST_TRY(type_list(c, &t->in, &t->n_in));
    if (t->kind == TY_FUNCTION) ST_TRY(type_list(c, &t->out, &t->n_out));
    *out = t;
    return NULL;
  case VT_TENSOR: return ranked(c, false, false, out);
  case VT_TENSOR_ENC: return ranked(c, true, false, out);
  case VT_BUFFER: return ranked(c, false, true, out);
  case VT_UNRANKED: {
    const shl_type *el;
    ST_TRY(bc_type(c, &el));
    if (el->kind != TY_SCALAR) return bc_error(r, at, "tensor element type is not a scalar type");
    if (!(t = type_tensor(r->a, el->dtype, -1, NULL))) return st_oom();
    t->quant = el->quant;
    *out = t;
    return NULL;
  }
  case VT_QUANT: return read_quant(c, false, out);
  case VT_QUANT_AXIS: return read_quant(c, true, out);
  case VT_WITNESS: return bc_parse_type_text(r, at, "!shape.witness", 14, out);
  case VT_FUTURE: {
    /* !stablehlo.future<T, ...>: kept as the type text StableHLO prints. */
    const shl_type *const *types;
    uint32_t n;
    ST_TRY(type_list(c, &types, &n));
    shl_printer pr = {0};
    pr_puts(&pr, "!stablehlo.future<");
    for (uint32_t i = 0; i < n; i++) {
      if (i) pr_puts(&pr, ", ");
      pr_type(&pr, types[i]);
    }
    pr_puts(&pr, ">");
    shl_status st = pr.oom ? st_oom() : bc_parse_type_text(r, at, pr.buf, pr.len, out);
    free(pr.buf);
    return st;
  }
  default: return bc_error(r, at, "VHLO type kind %llu is not supported", (unsigned long long)code);
  }
}
