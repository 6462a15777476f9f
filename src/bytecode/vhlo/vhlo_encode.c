/* StableHLO types and attributes -> VHLO (and builtin) writer nodes, with the
 * encodings of openxla/stablehlo stablehlo/dialect/VhloBytecode.cpp and
 * llvm-project mlir/include/mlir/IR/BuiltinDialectBytecode.td.  The codes and
 * enum spellings are the reader's tables (vhlo_attrs.c). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ir/result_accuracy.h"
#include "vhlo.h"
#include "vhlo_write.h"

enum {
  VA_ARRAY = 1, VA_BOOLEAN = 2, VA_DICTIONARY = 6, VA_FLOAT = 8, VA_INTEGER = 9, VA_OUTPUT_OPERAND_ALIAS = 10,
  VA_STRING = 14, VA_TENSOR = 15, VA_TYPE = 17, VA_TYPE_EXTENSIONS = 18, VA_RESULT_ACCURACY_MODE = 19,
  VA_RESULT_ACCURACY = 20,
};
enum {
  VT_COMPLEX = 1, VT_FUNCTION = 8, VT_TENSOR = 20, VT_TENSOR_ENC = 21, VT_TOKEN = 22, VT_TUPLE = 23, VT_QUANT = 24,
  VT_UNRANKED = 25, VT_WITNESS = 26, VT_QUANT_AXIS = 30, VT_NONE = 33, VT_BUFFER = 41, VT_FUTURE = 42,
};
/* builtin codes */
enum { BA_ARRAY = 0, BA_DICTIONARY = 1, BA_STRING = 2, BA_TYPE = 6, BA_UNIT = 7, BA_INTEGER = 8, BA_FLOAT = 9,
       BA_FILE_LINE_COL_LOC = 11, BA_UNKNOWN_LOC = 15 };
enum { BT_INTEGER = 0, BT_INDEX = 1, BT_BF16 = 3, BT_F16 = 4, BT_F32 = 5, BT_F64 = 6 };

bool vx_older(const uint32_t *a, uint32_t major, uint32_t minor, uint32_t patch) {
  if (a[0] != major) return a[0] < major;
  if (a[1] != minor) return a[1] < minor;
  return a[2] < patch;
}

shl_status vx_need(vx_ctx *x, uint32_t major, uint32_t minor, uint32_t patch, const char *what, ...) {
  if (x->probe) {
    if (vx_older(x->need, major, minor, patch)) {
      x->need[0] = major;
      x->need[1] = minor;
      x->need[2] = patch;
    }
    return NULL;
  }
  if (!vx_older(x->target, major, minor, patch)) return NULL;
  char buf[256];
  va_list ap;
  va_start(ap, what);
  vsnprintf(buf, sizeof buf, what, ap);
  va_end(ap);
  return op_error(x->op, SHLOC_ERR_UNSUPPORTED, "%s needs StableHLO v%u.%u.%u or newer; the target is v%u.%u.%u", buf,
                  major, minor, patch, x->target[0], x->target[1], x->target[2]);
}

static shl_status refuse(vx_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static shl_status refuse(vx_ctx *x, const char *fmt, ...) {
  char buf[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return op_error(x->op, SHLOC_ERR_UNSUPPORTED, "%s", buf);
}

static shl_status done(vx_ctx *x, const bw_node *n, const bw_node **out) {
  (void)x;
  if (!n) return st_oom();
  *out = n;
  return NULL;
}

/* ---- types ---- */

static shl_status code_need(vx_ctx *x, unsigned code, const char *what) {
  const uint8_t *min = vhlo_type_code_min(code);
  if (!min) return refuse(x, "type %s has no VHLO encoding", what);
  return vx_need(x, min[0], min[1], min[2], "type %s", what);
}

static const bw_node *simple_type(vx_ctx *x, unsigned code) {
  bw_enc e;
  bw_enc_begin(x->w, &e);
  bw_varint(&e, code);
  return bw_enc_type(&e, x->d_vhlo);
}

static shl_status scalar_type(vx_ctx *x, shl_dtype dt, const bw_node **out) {
  if (dt == DT_C64 || dt == DT_C128) {
    const bw_node *el;
    ST_TRY(scalar_type(x, dt == DT_C64 ? DT_F32 : DT_F64, &el));
    bw_enc e;
    bw_enc_begin(x->w, &e);
    bw_varint(&e, VT_COMPLEX);
    bw_type(&e, el);
    return done(x, bw_enc_type(&e, x->d_vhlo), out);
  }
  const uint8_t *min;
  int code = vhlo_scalar_type_code(dt, &min);
  if (code < 0) return refuse(x, "element type %s has no VHLO equivalent", dtype_name(dt));
  ST_TRY(vx_need(x, min[0], min[1], min[2], "element type %s", dtype_name(dt)));
  return done(x, simple_type(x, (unsigned)code), out);
}

static shl_status quant_type(vx_ctx *x, const shl_quant *q, const bw_node **out) {
  bool per_axis = q->axis >= 0;
  unsigned w = dtype_bits(q->storage);
  bool sgn = dtype_class(q->storage) == DTC_SINT;
  shl_dtype storage = w == 2 ? DT_I2 : w == 4 ? DT_I4 : w == 8 ? DT_I8 : w == 16 ? DT_I16 : DT_I32;
  const bw_node *st, *et;
  ST_TRY(scalar_type(x, storage, &st));
  ST_TRY(scalar_type(x, q->expressed, &et));
  if (per_axis) ST_TRY(code_need(x, VT_QUANT_AXIS, "quant.uniform per axis"));
  bw_enc e;
  bw_enc_begin(x->w, &e);
  bw_varint(&e, per_axis ? VT_QUANT_AXIS : VT_QUANT);
  bw_varint(&e, sgn ? 1 : 0);
  bw_type(&e, st);
  bw_type(&e, et);
  uint64_t bits;
  if (per_axis) {
    bw_varint(&e, (uint64_t)q->axis);
    bw_svarint(&e, q->storage_min);
    bw_svarint(&e, q->storage_max);
    bw_varint(&e, q->n_scales);
    for (uint32_t i = 0; i < q->n_scales; i++) {
      memcpy(&bits, &q->scales[i], 8);
      bw_svarint(&e, (int64_t)bits);
    }
    bw_varint(&e, q->n_scales);
    for (uint32_t i = 0; i < q->n_scales; i++) bw_svarint(&e, q->zero_points[i]);
  } else {
    memcpy(&bits, &q->scales[0], 8);
    bw_svarint(&e, (int64_t)bits);
    bw_svarint(&e, q->zero_points[0]);
    bw_svarint(&e, q->storage_min);
    bw_svarint(&e, q->storage_max);
  }
  return done(x, bw_enc_type(&e, x->d_vhlo), out);
}

static shl_status element_type(vx_ctx *x, const shl_type *t, const bw_node **out) {
  if (t->dtype == DT_QUANT) {
    if (!t->quant) return refuse(x, "quantized type without parameters");
    return quant_type(x, t->quant, out);
  }
  return scalar_type(x, t->dtype, out);
}

static shl_status type_list(vx_ctx *x, bw_enc *e, const shl_type *const *v, uint32_t n) {
  bw_varint(e, n);
  for (uint32_t i = 0; i < n; i++) {
    const bw_node *t;
    ST_TRY(vx_type(x, v[i], &t));
    bw_type(e, t);
  }
  return NULL;
}

/* Bounds of #stablehlo.bounds<4, ?> (parsed or kept as text). */
static shl_status bounds_of(vx_ctx *x, const shl_attr *a, int64_t *v, size_t cap, size_t *n) {
  *n = 0;
  bool ext = a->kind == AT_OPAQUE && str_starts(a->u.str, "#stablehlo.type_extensions<");
  if (a->kind == AT_OPAQUE && (ext || str_starts(a->u.str, "#stablehlo.bounds<"))) {
    const char *p = a->u.str.p, *end = a->u.str.p + a->u.str.n;
    p = memchr(p, ext ? '[' : '<', (size_t)(end - p));
    char close = ext ? ']' : '>';
    if (!p) return refuse(x, "malformed tensor bounds");
    p++;
    while (p < end && *p != close) {
      while (p < end && (*p == ' ' || *p == ',')) p++;
      if (p < end && *p == '?') {
        if (*n < cap) v[(*n)++] = SHL_DYN;
        p++;
      } else if (p < end && *p != close) {
        char *q;
        long long val = strtoll(p, &q, 10);
        if (q == p) return refuse(x, "malformed tensor bounds");
        if (*n < cap) v[(*n)++] = val;
        p = q;
      }
    }
    return NULL;
  }
  if (a->kind == AT_STRUCT) {
    const shl_attr *b = attr_struct_field(a, "bounds");
    if (b && attr_as_ints(b, v, cap, n)) return NULL;
  }
  return refuse(x, "tensor encoding cannot be expressed in VHLO (only #stablehlo.bounds can)");
}

shl_status vx_type(vx_ctx *x, const shl_type *t, const bw_node **out) {
  bw_enc e;
  switch (t->kind) {
  case TY_SCALAR: return element_type(x, t, out);
  case TY_TOKEN: return done(x, simple_type(x, VT_TOKEN), out);
  case TY_NONE:
    ST_TRY(code_need(x, VT_NONE, "none"));
    return done(x, simple_type(x, VT_NONE), out);
  case TY_TENSOR: {
    const bw_node *el, *enc = NULL;
    ST_TRY(element_type(x, t, &el));
    bw_enc_begin(x->w, &e);
    if (t->rank < 0) {
      bw_varint(&e, VT_UNRANKED);
      bw_type(&e, el);
      return done(x, bw_enc_type(&e, x->d_vhlo), out);
    }
    if (t->encoding) {
      int64_t b[64];
      size_t nb;
      ST_TRY(bounds_of(x, t->encoding, b, 64, &nb));
      bw_enc be;
      bw_enc_begin(x->w, &be);
      bw_varint(&be, VA_TYPE_EXTENSIONS);
      bw_varint(&be, nb);
      for (size_t i = 0; i < nb; i++) bw_svarint(&be, b[i]);
      if (!(enc = bw_enc_attr(&be, x->d_vhlo))) return st_oom();
    }
    bw_varint(&e, enc ? VT_TENSOR_ENC : VT_TENSOR);
    if (enc) bw_attr(&e, enc);
    bw_varint(&e, (uint64_t)t->rank);
    for (int32_t i = 0; i < t->rank; i++) bw_svarint(&e, t->dims[i]);
    bw_type(&e, el);
    return done(x, bw_enc_type(&e, x->d_vhlo), out);
  }
  case TY_MEMREF: {
    if (t->encoding || t->memspace) return refuse(x, "memref types with a layout or memory space cannot be expressed in VHLO");
    ST_TRY(code_need(x, VT_BUFFER, "memref"));
    const bw_node *el;
    ST_TRY(scalar_type(x, t->dtype, &el));
    bw_enc_begin(x->w, &e);
    bw_varint(&e, VT_BUFFER);
    bw_varint(&e, (uint64_t)(t->rank < 0 ? 0 : t->rank));
    for (int32_t i = 0; i < t->rank; i++) bw_svarint(&e, t->dims[i]);
    bw_type(&e, el);
    return done(x, bw_enc_type(&e, x->d_vhlo), out);
  }
  case TY_TUPLE:
    if (t->future) ST_TRY(code_need(x, VT_FUTURE, "!stablehlo.future"));
    bw_enc_begin(x->w, &e);
    bw_varint(&e, t->future ? VT_FUTURE : VT_TUPLE);
    ST_TRY(type_list(x, &e, t->in, t->n_in));
    return done(x, bw_enc_type(&e, x->d_vhlo), out);
  case TY_FUNCTION:
    bw_enc_begin(x->w, &e);
    bw_varint(&e, VT_FUNCTION);
    ST_TRY(type_list(x, &e, t->in, t->n_in));
    ST_TRY(type_list(x, &e, t->out, t->n_out));
    return done(x, bw_enc_type(&e, x->d_vhlo), out);
  case TY_OPAQUE:
    if (str_eq_c(t->text, "!shape.witness")) return done(x, simple_type(x, VT_WITNESS), out);
    return refuse(x, "type '%.*s' cannot be expressed in VHLO", (int)(t->text.n > 80 ? 80 : t->text.n), t->text.p);
  }
  return refuse(x, "type cannot be expressed in VHLO");
}

/* ---- attributes ---- */

const bw_node *vx_int(vx_ctx *x, int64_t v) {
  const bw_node *t = simple_type(x, 14); /* i64 */
  bw_enc e;
  bw_enc_begin(x->w, &e);
  bw_varint(&e, VA_INTEGER);
  bw_type(&e, t);
  bw_svarint(&e, v);
  return bw_enc_attr(&e, x->d_vhlo);
}

const bw_node *vx_bool(vx_ctx *x, bool v) {
  bw_enc e;
  bw_enc_begin(x->w, &e);
  bw_varint(&e, VA_BOOLEAN);
  bw_varint(&e, v);
  return bw_enc_attr(&e, x->d_vhlo);
}

const bw_node *vx_string(vx_ctx *x, shl_str s) {
  bw_enc e;
  bw_enc_begin(x->w, &e);
  bw_varint(&e, VA_STRING);
  bw_string(&e, s.p, s.n);
  return bw_enc_attr(&e, x->d_vhlo);
}

const bw_node *vx_enum(vx_ctx *x, unsigned code, uint64_t v) {
  bw_enc e;
  bw_enc_begin(x->w, &e);
  bw_varint(&e, code);
  bw_varint(&e, v);
  return bw_enc_attr(&e, x->d_vhlo);
}

const bw_node *vx_array(vx_ctx *x, const bw_node *const *items, size_t n) {
  bw_enc e;
  bw_enc_begin(x->w, &e);
  bw_varint(&e, VA_ARRAY);
  bw_varint(&e, n);
  for (size_t i = 0; i < n; i++) bw_attr(&e, items[i]);
  return bw_enc_attr(&e, x->d_vhlo);
}

const bw_node *vx_none_type_attr(vx_ctx *x) {
  bw_enc e;
  bw_enc_begin(x->w, &e);
  bw_varint(&e, VA_TYPE);
  bw_type(&e, simple_type(x, VT_NONE));
  return bw_enc_attr(&e, x->d_vhlo);
}

static shl_status tensor_attr(vx_ctx *x, const bw_node *type, const void *raw, size_t n, const bw_node **out) {
  bw_enc e;
  bw_enc_begin(x->w, &e);
  bw_varint(&e, VA_TENSOR);
  bw_type(&e, type);
  bw_blob(&e, raw, n);
  return done(x, bw_enc_attr(&e, x->d_vhlo), out);
}

static shl_status ranked_type(vx_ctx *x, shl_dtype dt, const int64_t *dims, int rank, const bw_node **out) {
  const bw_node *el;
  ST_TRY(scalar_type(x, dt, &el));
  bw_enc e;
  bw_enc_begin(x->w, &e);
  bw_varint(&e, VT_TENSOR);
  bw_varint(&e, (uint64_t)rank);
  for (int i = 0; i < rank; i++) bw_svarint(&e, dims[i]);
  bw_type(&e, el);
  return done(x, bw_enc_type(&e, x->d_vhlo), out);
}

shl_status vx_i64_tensor(vx_ctx *x, const int64_t *v, size_t n, const int64_t *dims, int rank, const bw_node **out) {
  int64_t d1 = (int64_t)n;
  const bw_node *t;
  ST_TRY(ranked_type(x, DT_I64, dims ? dims : &d1, dims ? rank : 1, &t));
  /* MLIR stores equal elements once (a splat). */
  size_t k = n;
  if (n > 1) {
    k = 1;
    for (size_t i = 1; i < n; i++)
      if (v[i] != v[0]) k = n;
  }
  /* Encoded data lives as long as the writer (large blobs are borrowed). */
  uint8_t *raw = arena_alloc_uninit(&x->w->arena, k ? k * 8 : 1);
  if (!raw) return st_oom();
  for (size_t i = 0; i < k; i++)
    for (int b = 0; b < 8; b++) raw[i * 8 + b] = (uint8_t)((uint64_t)v[i] >> (8 * b));
  return tensor_attr(x, t, raw, k * 8, out);
}

/* i1 data as VhloBytecode.cpp writes it: a splat of more than one element
 * as 0xFF / 0x00, else packed eight to a byte. */
static shl_status pack_bools(vx_ctx *x, const bw_node *type, const uint8_t *v, size_t stored, int64_t count,
                             const bw_node **out) {
  bool splat = stored == 1 || count <= 1;
  if (!splat) {
    splat = true;
    for (size_t i = 1; i < stored; i++)
      if ((v[i] != 0) != (v[0] != 0)) splat = false;
  }
  if (splat && count > 1) {
    uint8_t b = stored && v[0] ? 0xFF : 0x00;
    return tensor_attr(x, type, &b, 1, out);
  }
  size_t nb = ((size_t)count + 7) / 8;
  uint8_t *p = arena_alloc(&x->w->arena, nb ? nb : 1);
  if (!p) return st_oom();
  for (int64_t i = 0; i < count; i++)
    if (v[stored == 1 ? 0 : i]) p[i / 8] |= (uint8_t)(1u << (i % 8));
  return tensor_attr(x, type, p, nb, out);
}

shl_status vx_bool_tensor(vx_ctx *x, const uint8_t *v, size_t n, const bw_node **out) {
  int64_t d = (int64_t)n;
  const bw_node *t;
  ST_TRY(ranked_type(x, DT_I1, &d, 1, &t));
  return pack_bools(x, t, v, n, d, out);
}

static shl_status dense_attr(vx_ctx *x, const shl_attr *a, const bw_node **out) {
  const bw_node *t;
  ST_TRY(vx_type(x, a->type, &t));
  int64_t count = type_num_elements(a->type);
  if (count < 0) return refuse(x, "dense elements of a dynamic shape");
  shl_dtype dt = type_storage_dtype(a->type);
  size_t sz = dtype_bytes(dt);
  const uint8_t *data = attr_dense_data(a);
  if (!data && a->u.dense.nbytes) return st_oom();
  /* A splat keeps its one element even for a tensor with no elements. */
  size_t stored = sz ? a->u.dense.nbytes / sz : 0;
  if (count && !stored) return refuse(x, "dense elements without data");
  if (dt == DT_I1) return pack_bools(x, t, data, stored, count, out);
  /* Literal lists of equal values become splats in MLIR (hex data does not). */
  if (stored > 1 && !attr_dense_hex(a) && memcmp(data, data + sz, (stored - 1) * sz) == 0) stored = 1;
  size_t n = stored * sz;
  unsigned bits = dtype_bits(dt);
  if (bits >= 8 || dtype_is_complex(dt)) return tensor_attr(x, t, data, n, out);
  /* Sub-byte elements: one byte each, only the element's bits set. */
  uint8_t *p = arena_alloc_uninit(&x->w->arena, n ? n : 1);
  if (!p) return st_oom();
  for (size_t i = 0; i < n; i++) p[i] = data[i] & (uint8_t)((1u << bits) - 1);
  return tensor_attr(x, t, p, n, out);
}

/* APInt of a known width: a byte up to 8 bits, else a zigzag varint of the
 * zero-extended value. */
static void apint(bw_enc *e, uint64_t v, unsigned width) {
  if (width < 64) v &= (1ull << width) - 1;
  if (width <= 8) bw_byte(e, (uint8_t)v);
  else bw_svarint(e, (int64_t)v);
}

shl_status vx_result_accuracy(vx_ctx *x, const bw_node **out) {
  ra_spec s;
  ST_TRY(result_accuracy_of(x->op, &s));
  const bw_node *mode = vx_enum(x, VA_RESULT_ACCURACY_MODE, (uint64_t)s.mode);
  bw_enc e;
  bw_enc_begin(x->w, &e);
  bw_varint(&e, VA_RESULT_ACCURACY);
  uint64_t bits;
  memcpy(&bits, &s.atol, 8);
  apint(&e, bits, 64);
  memcpy(&bits, &s.rtol, 8);
  apint(&e, bits, 64);
  bw_svarint(&e, s.ulps);
  bw_attr(&e, mode);
  return done(x, bw_enc_attr(&e, x->d_vhlo), out);
}

/* ---- #stablehlo.replica_group_mesh_axes (kept as text by the parser) ---- */

static const char *skip_ws(const char *p, const char *end) {
  while (p < end && *p == ' ') p++;
  return p;
}

static bool lit(const char **p, const char *end, const char *s) {
  const char *q = skip_ws(*p, end);
  size_t n = strlen(s);
  if ((size_t)(end - q) < n || memcmp(q, s, n)) return false;
  *p = q + n;
  return true;
}

/* A quoted string (escapes other than \" and \\ refused) or a bare symbol. */
static bool name_token(const char **p, const char *end, char *buf, size_t cap, bool bare_ok) {
  const char *q = skip_ws(*p, end);
  size_t n = 0;
  if (q < end && *q == '"') {
    for (q++; q < end && *q != '"'; q++) {
      if (*q == '\\') {
        if (++q == end || (*q != '"' && *q != '\\')) return false;
      }
      if (n + 1 >= cap) return false;
      buf[n++] = *q;
    }
    if (q == end) return false;
    q++;
  } else {
    if (!bare_ok) return false;
    while (q < end && (isalnum((unsigned char)*q) || *q == '_' || *q == '$' || *q == '.' || *q == '-')) {
      if (n + 1 >= cap) return false;
      buf[n++] = *q++;
    }
    if (!n) return false;
  }
  buf[n] = 0;
  *p = q;
  return true;
}

static shl_status mesh_axes(vx_ctx *x, shl_str text, const bw_node **out) {
  ST_TRY(vx_need(x, 1, 16, 0, "replica_group_mesh_axes"));
  const char *p = text.p, *end = text.p + text.n;
  char buf[256];
  const bw_node *axes[64], *mesh;
  size_t n = 0;
  if (!lit(&p, end, "#stablehlo.replica_group_mesh_axes<") || !lit(&p, end, "mesh") || !lit(&p, end, "=") ||
      !lit(&p, end, "@") || !name_token(&p, end, buf, sizeof buf, true))
    goto bad;
  mesh = vx_string(x, str_of(buf));
  if (!lit(&p, end, ",") || !lit(&p, end, "axes") || !lit(&p, end, "=") || !lit(&p, end, "[")) goto bad;
  while (!lit(&p, end, "]")) {
    if (n && !lit(&p, end, ",")) goto bad;
    if (n == 64 || !lit(&p, end, "#stablehlo.axis_ref<") || !lit(&p, end, "name") || !lit(&p, end, "=") ||
        !name_token(&p, end, buf, sizeof buf, false))
      goto bad;
    bw_enc e;
    bw_enc_begin(x->w, &e);
    bw_varint(&e, 22);
    bw_attr(&e, vx_string(x, str_of(buf)));
    if (lit(&p, end, ",")) {
      char *q;
      if (!lit(&p, end, "sub_axis_info") || !lit(&p, end, "=") || !lit(&p, end, "(")) goto bad_enc;
      long long pre = strtoll(p, &q, 10);
      if (q == p) goto bad_enc;
      p = q;
      if (!lit(&p, end, ")")) goto bad_enc;
      long long size = strtoll(p, &q, 10);
      if (q == p) goto bad_enc;
      p = q;
      bw_enc se;
      bw_enc_begin(x->w, &se);
      bw_varint(&se, 21);
      bw_svarint(&se, pre);
      bw_svarint(&se, size);
      bw_varint(&e, 1);
      bw_attr(&e, bw_enc_attr(&se, x->d_vhlo));
    } else {
      bw_varint(&e, 0);
    }
    if (!lit(&p, end, ">")) goto bad_enc;
    if (!(axes[n++] = bw_enc_attr(&e, x->d_vhlo))) return st_oom();
    continue;
  bad_enc:
    goto bad;
  }
  if (!lit(&p, end, ">") || skip_ws(p, end) != end) goto bad;
  bw_enc e;
  bw_enc_begin(x->w, &e);
  bw_varint(&e, 23);
  bw_attr(&e, mesh);
  bw_attr(&e, vx_array(x, axes, n));
  return done(x, bw_enc_attr(&e, x->d_vhlo), out);
bad:
  return refuse(x, "replica groups '%.*s' cannot be expressed in VHLO (only a mesh symbol and axis refs can)",
                (int)(text.n > 80 ? 80 : text.n), text.p);
}

static shl_status struct_attr(vx_ctx *x, const shl_attr *a, const char *name, const bw_node **out) {
  if (str_eq_c(a->u.st.name, "stablehlo.output_operand_alias")) {
    int64_t ot[64], ti[64], oi;
    size_t no = 0, nt = 0;
    const shl_attr *fo = attr_struct_field(a, "output_tuple_indices"), *ft = attr_struct_field(a, "operand_tuple_indices");
    if ((fo && !attr_as_ints(fo, ot, 64, &no)) || (ft && !attr_as_ints(ft, ti, 64, &nt)) ||
        !attr_as_int(attr_struct_field(a, "operand_index"), &oi) || no > 64 || nt > 64)
      return refuse(x, "malformed output_operand_alias");
    bw_enc e;
    bw_enc_begin(x->w, &e);
    bw_varint(&e, VA_OUTPUT_OPERAND_ALIAS);
    bw_varint(&e, no);
    for (size_t i = 0; i < no; i++) bw_svarint(&e, ot[i]);
    bw_svarint(&e, oi);
    bw_varint(&e, nt);
    for (size_t i = 0; i < nt; i++) bw_svarint(&e, ti[i]);
    return done(x, bw_enc_attr(&e, x->d_vhlo), out);
  }
  if (str_eq_c(a->u.st.name, "stablehlo.result_accuracy") && name && !strcmp(name, "result_accuracy"))
    return vx_result_accuracy(x, out);
  return refuse(x, "attribute '%s' (#%.*s) cannot be expressed in VHLO", name ? name : "?", (int)a->u.st.name.n,
                a->u.st.name.p);
}

shl_status vx_attr(vx_ctx *x, const shl_attr *a, const char *name, const bw_node **out) {
  bw_enc e;
  switch (a->kind) {
  case AT_BOOL: return done(x, vx_bool(x, a->u.b), out);
  case AT_INT:
  case AT_FLOAT: {
    const shl_type *ty = a->type;
    shl_dtype dt = ty ? ty->dtype : DT_I64;
    const bw_node *t;
    ST_TRY(scalar_type(x, dt, &t));
    bw_enc_begin(x->w, &e);
    bw_varint(&e, a->kind == AT_INT ? VA_INTEGER : VA_FLOAT);
    bw_type(&e, t);
    apint(&e, a->kind == AT_INT ? (uint64_t)a->u.i : a->u.f_bits, dtype_bits(dt));
    return done(x, bw_enc_attr(&e, x->d_vhlo), out);
  }
  case AT_STRING: return done(x, vx_string(x, a->u.str), out);
  case AT_TYPE: {
    const bw_node *t;
    ST_TRY(vx_type(x, a->type, &t));
    bw_enc_begin(x->w, &e);
    bw_varint(&e, VA_TYPE);
    bw_type(&e, t);
    return done(x, bw_enc_attr(&e, x->d_vhlo), out);
  }
  case AT_ARRAY: {
    const bw_node **v = malloc((a->u.arr.n ? a->u.arr.n : 1) * sizeof *v);
    if (!v) return st_oom();
    shl_status st = NULL;
    for (uint32_t i = 0; i < a->u.arr.n && !st; i++) st = vx_attr(x, a->u.arr.items[i], name, &v[i]);
    if (!st) st = done(x, vx_array(x, v, a->u.arr.n), out);
    free(v);
    return st;
  }
  case AT_DENSE_ARRAY: {
    shl_dtype dt = a->type ? a->type->dtype : DT_I64;
    if (dt == DT_I64) return vx_i64_tensor(x, a->u.darr.data, (size_t)a->u.darr.n, NULL, 1, out);
    if (dt == DT_I1) return vx_bool_tensor(x, a->u.darr.data, (size_t)a->u.darr.n, out);
    return refuse(x, "attribute '%s': array<%s> cannot be expressed in VHLO", name ? name : "?", dtype_name(dt));
  }
  case AT_DENSE: return dense_attr(x, a, out);
  case AT_DICT: {
    bw_enc_begin(x->w, &e);
    bw_varint(&e, VA_DICTIONARY);
    bw_varint(&e, a->u.dict.n);
    for (uint32_t i = 0; i < a->u.dict.n; i++) {
      const bw_node *v;
      ST_TRY(vx_attr(x, a->u.dict.items[i].attr, name, &v));
      bw_attr(&e, vx_string(x, a->u.dict.items[i].name));
      bw_attr(&e, v);
    }
    return done(x, bw_enc_attr(&e, x->d_vhlo), out);
  }
  case AT_SYMREF:
    if (memchr(a->u.sym.text.p, ':', a->u.sym.text.n))
      return refuse(x, "nested symbol reference '%.*s' cannot be expressed in VHLO", (int)a->u.sym.text.n, a->u.sym.text.p);
    return done(x, vx_string(x, a->u.sym.root), out);
  case AT_ENUM: {
    unsigned code;
    uint64_t v;
    if (!str_eq_c(a->u.en.dialect, "stablehlo") || !vhlo_enum_code(a->u.en.name, a->u.en.value, &code, &v))
      return refuse(x, "attribute '%s' (#%.*s<%.*s %.*s>) cannot be expressed in VHLO", name ? name : "?",
                    (int)a->u.en.dialect.n, a->u.en.dialect.p, (int)a->u.en.name.n, a->u.en.name.p,
                    (int)a->u.en.value.n, a->u.en.value.p);
    if (code == VA_RESULT_ACCURACY_MODE) ST_TRY(vx_need(x, 1, 9, 0, "result_accuracy_mode"));
    return done(x, vx_enum(x, code, v), out);
  }
  case AT_STRUCT: return struct_attr(x, a, name, out);
  case AT_UNIT:
    return refuse(x, "unit attribute '%s' cannot be expressed in VHLO", name ? name : "?");
  case AT_OPAQUE:
    if (str_starts(a->u.str, "#stablehlo.replica_group_mesh_axes<")) return mesh_axes(x, a->u.str, out);
    break;
  case AT_INTLIST:
    break;
  }
  shl_str text = a->kind == AT_OPAQUE ? a->u.str : str_of("?");
  return refuse(x, "attribute '%s' (%.*s) cannot be expressed in VHLO", name ? name : "?",
                (int)(text.n > 80 ? 80 : text.n), text.p);
}

/* ---- builtin ---- */

const bw_node *bx_string(vx_ctx *x, shl_str s) {
  bw_enc e;
  bw_enc_begin(x->w, &e);
  bw_varint(&e, BA_STRING);
  bw_string(&e, s.p, s.n);
  return bw_enc_attr(&e, x->d_builtin);
}

const bw_node *bx_dict(vx_ctx *x, const shl_str *names, const bw_node *const *vals, size_t n) {
  bw_enc e;
  bw_enc_begin(x->w, &e);
  bw_varint(&e, BA_DICTIONARY);
  bw_varint(&e, n);
  for (size_t i = 0; i < n; i++) {
    bw_attr(&e, bx_string(x, names[i]));
    bw_attr(&e, vals[i]);
  }
  return bw_enc_attr(&e, x->d_builtin);
}

const bw_node *bx_unknown_loc(vx_ctx *x) {
  if (x->w->unknown_loc) return x->w->unknown_loc;
  bw_enc e;
  bw_enc_begin(x->w, &e);
  bw_varint(&e, BA_UNKNOWN_LOC);
  return x->w->unknown_loc = bw_enc_attr(&e, x->d_builtin);
}

const bw_node *bx_file_loc(vx_ctx *x, const char *file, int line, int col) {
  bw_enc e;
  bw_enc_begin(x->w, &e);
  bw_varint(&e, BA_FILE_LINE_COL_LOC);
  bw_attr(&e, bx_string(x, str_of(file ? file : "-")));
  bw_varint(&e, (uint64_t)(line < 0 ? 0 : line));
  bw_varint(&e, (uint64_t)(col < 0 ? 0 : col));
  return bw_enc_attr(&e, x->d_builtin);
}

static const bw_node *builtin_type(vx_ctx *x, shl_dtype dt) {
  bw_enc e;
  bw_enc_begin(x->w, &e);
  switch (dt) {
  case DT_INDEX: bw_varint(&e, BT_INDEX); break;
  case DT_BF16: bw_varint(&e, BT_BF16); break;
  case DT_F16: bw_varint(&e, BT_F16); break;
  case DT_F32: bw_varint(&e, BT_F32); break;
  case DT_F64: bw_varint(&e, BT_F64); break;
  default: {
    unsigned sign = dtype_class(dt) == DTC_UINT ? 2 : dt >= DT_SI2 && dt <= DT_SI64 ? 1 : 0;
    bw_varint(&e, BT_INTEGER);
    bw_varint(&e, (uint64_t)dtype_bits(dt) << 2 | sign);
  }
  }
  return bw_enc_type(&e, x->d_builtin);
}

shl_status bx_attr(vx_ctx *x, const shl_attr *a, const bw_node **out) {
  bw_enc e;
  bw_enc_begin(x->w, &e);
  switch (a->kind) {
  case AT_BOOL:
  case AT_INT: {
    shl_dtype dt = a->kind == AT_BOOL ? DT_I1 : a->type ? a->type->dtype : DT_I64;
    if (dt != DT_INDEX && (dtype_class(dt) == DTC_FLOAT || dtype_is_complex(dt))) break;
    bw_varint(&e, BA_INTEGER);
    bw_type(&e, builtin_type(x, dt));
    apint(&e, a->kind == AT_BOOL ? (uint64_t)a->u.b : (uint64_t)a->u.i, dtype_bits(dt));
    return done(x, bw_enc_attr(&e, x->d_builtin), out);
  }
  case AT_FLOAT:
    if (!a->type || (a->type->dtype != DT_F32 && a->type->dtype != DT_F64 && a->type->dtype != DT_F16 &&
                     a->type->dtype != DT_BF16))
      break;
    bw_varint(&e, BA_FLOAT);
    bw_type(&e, builtin_type(x, a->type->dtype));
    apint(&e, a->u.f_bits, dtype_bits(a->type->dtype));
    return done(x, bw_enc_attr(&e, x->d_builtin), out);
  case AT_STRING: return done(x, bx_string(x, a->u.str), out);
  case AT_UNIT:
    bw_varint(&e, BA_UNIT);
    return done(x, bw_enc_attr(&e, x->d_builtin), out);
  case AT_ARRAY:
    bw_varint(&e, BA_ARRAY);
    bw_varint(&e, a->u.arr.n);
    for (uint32_t i = 0; i < a->u.arr.n; i++) {
      const bw_node *v;
      ST_TRY(bx_attr(x, a->u.arr.items[i], &v));
      bw_attr(&e, v);
    }
    return done(x, bw_enc_attr(&e, x->d_builtin), out);
  case AT_DICT: {
    shl_str *names = malloc((a->u.dict.n ? a->u.dict.n : 1) * sizeof *names);
    const bw_node **vals = malloc((a->u.dict.n ? a->u.dict.n : 1) * sizeof *vals);
    shl_status st = names && vals ? NULL : st_oom();
    for (uint32_t i = 0; i < a->u.dict.n && !st; i++) {
      names[i] = a->u.dict.items[i].name;
      st = bx_attr(x, a->u.dict.items[i].attr, &vals[i]);
    }
    if (!st) st = done(x, bx_dict(x, names, vals, a->u.dict.n), out);
    free(names);
    free(vals);
    return st;
  }
  default: break;
  }
  /* Anything else is kept as the text MLIR prints, under its dialect. */
  if (a->kind != AT_OPAQUE || a->u.str.n < 2 || a->u.str.p[0] != '#')
    return refuse(x, "a module attribute of this kind cannot be written");
  size_t k = 1;
  while (k < a->u.str.n && a->u.str.p[k] != '.' && a->u.str.p[k] != '<') k++;
  uint32_t d = bw_dialect(x->w, a->u.str.p + 1, k - 1);
  return done(x, bw_text_attr(x->w, d, a->u.str.p, a->u.str.n), out);
}
