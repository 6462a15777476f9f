/* The builtin dialect's bytecode encodings (llvm-project
 * mlir/include/mlir/IR/BuiltinDialectBytecode.td: one code per attribute or
 * type kind, in that file's order), plus the constructors the dialect
 * decoders share: dense data from raw storage and MLIR text. */
#include <stdio.h>
#include <stdlib.h>

#include "bc_reader.h"
#include "builder/builder_impl.h"
#include "text/parse_fragment.h"

enum {
  BA_ARRAY, BA_DICTIONARY, BA_STRING, BA_STRING_WITH_TYPE, BA_FLAT_SYMBOL_REF, BA_SYMBOL_REF, BA_TYPE, BA_UNIT,
  BA_INTEGER, BA_FLOAT, BA_CALLSITE_LOC, BA_FILE_LINE_COL_LOC, BA_FUSED_LOC, BA_FUSED_LOC_WITH_METADATA, BA_NAME_LOC,
  BA_UNKNOWN_LOC, BA_DENSE_RESOURCE, BA_DENSE_ARRAY, BA_DENSE_INT_OR_FP, BA_DENSE_STRING, BA_SPARSE, BA_DISTINCT,
};

enum {
  BT_INTEGER, BT_INDEX, BT_FUNCTION, BT_BF16, BT_F16, BT_F32, BT_F64, BT_F80, BT_F128, BT_COMPLEX, BT_MEMREF,
  BT_MEMREF_MEMSPACE, BT_NONE, BT_RANKED_TENSOR, BT_RANKED_TENSOR_ENCODING, BT_TUPLE, BT_UNRANKED_MEMREF,
  BT_UNRANKED_MEMREF_MEMSPACE, BT_UNRANKED_TENSOR, BT_VECTOR, BT_VECTOR_SCALABLE,
};

/* ---- text ---- */

shl_status bc_parse_attr_text(bc_reader *r, const uint8_t *at, const char *text, size_t n, const shl_attr **out) {
  shl_status st = text_parse_attr_unbounded(r->m, text, n, out);
  if (!st) return NULL;
  shl_status e = bc_error(r, at, "%s (in attribute '%.*s')", shloc_status_message(st), (int)(n > 80 ? 80 : n), text);
  shloc_status_free(st);
  return e;
}

shl_status bc_parse_type_text(bc_reader *r, const uint8_t *at, const char *text, size_t n, const shl_type **out) {
  shl_status st = text_parse_type(r->m, text, n, out);
  if (!st) return NULL;
  shl_status e = bc_error(r, at, "%s (in type '%.*s')", shloc_status_message(st), (int)(n > 80 ? 80 : n), text);
  shloc_status_free(st);
  return e;
}

/* ---- dense data ---- */

static void store_low_bits(uint8_t *p, shl_dtype dt, uint8_t byte) {
  unsigned w = dtype_bits(dt);
  uint8_t v = byte & (uint8_t)((1u << w) - 1);
  /* Signed sub-byte integers are kept sign-extended, as the text parser keeps them. */
  if (dtype_class(dt) == DTC_SINT && (v >> (w - 1)) & 1) v |= (uint8_t)(0xFF << w);
  *p = v;
}

shl_status bc_dense(bc_reader *r, const uint8_t *at, const shl_type *type, const uint8_t *raw, size_t n,
                    const shl_attr **out) {
  if (type->kind != TY_TENSOR || type->rank < 0) return bc_error(r, at, "dense elements need a ranked tensor type");
  int64_t count = type_num_elements(type);
  if (count < 0) return bc_error(r, at, "dense elements need a static shape");
  shl_dtype dt = type_storage_dtype(type);
  size_t sz = dtype_bytes(dt);
  if (!sz) return bc_error(r, at, "dense elements of this element type are not supported");
  size_t want = dt == DT_I1 ? (size_t)count / 8 + (count % 8 != 0) : sz * (size_t)count;
  /* A splat (one element) is valid for any shape, an empty one included. */
  if (n != want && n != sz && !(dt == DT_I1 && n == (size_t)count))
    return bc_error(r, at, "dense data has %zu bytes; the type needs %zu (or %zu for a splat)", n, want, sz);
  shl_attr *a = attr_new(r->a, AT_DENSE);
  if (!a) return st_oom();
  a->type = type;
  if (dt == DT_I1) {
    /* Bit-packed (or one byte per element); a splat is 0x00 / 0xFF. */
    size_t cnt = (size_t)count;
    uint8_t *b = arena_alloc(r->a, cnt ? cnt : 1);
    if (!b) return st_oom();
    if (n == cnt && n != want) {
      for (size_t i = 0; i < cnt; i++) b[i] = raw[i] != 0;
    } else if (n == want) {
      for (size_t i = 0; i < cnt; i++) b[i] = (raw[i / 8] >> (i % 8)) & 1;
    } else {
      if (raw[0] != 0 && raw[0] != 0xFF) return bc_error(r, at, "an i1 splat must be 0x00 or 0xFF");
      b[0] = raw[0] & 1;
      cnt = 1;
    }
    if (cnt > 1 && memchr(b, !b[0], cnt) == NULL) cnt = 1;
    a->u.dense.storage = b;
    a->u.dense.nbytes = cnt;
    a->u.dense.splat = cnt == 1;
    *out = a;
    return NULL;
  }
  size_t cnt = n / sz;
  /* All-equal data is stored as a splat, as MLIR canonicalizes it. */
  if (cnt > 1 && memcmp(raw, raw + sz, (cnt - 1) * sz) == 0) cnt = 1;
  const uint8_t *data = raw;
  if (dtype_bits(dt) < 8) {
    uint8_t *b = arena_alloc_uninit(r->a, cnt ? cnt : 1);
    if (!b) return st_oom();
    for (size_t i = 0; i < cnt; i++) store_low_bits(b + i, dt, raw[i]);
    data = b;
  } else if (!r->borrowed || cnt * sz < 4096 || ((uintptr_t)raw % (sz > 8 ? 8 : sz)) != 0) {
    /* Small or misaligned data, or an input that does not outlive the
     * module: one copy into the arena. */
    data = arena_memdup(r->a, raw, cnt ? cnt * sz : 1);
    if (!data) return st_oom();
  }
  a->u.dense.storage = data;
  a->u.dense.nbytes = cnt * sz;
  a->u.dense.splat = cnt == 1;
  *out = a;
  return NULL;
}

/* ---- attributes ---- */

/* A location as the text MLIR prints inside loc(...). */
static shl_status loc_inner(bc_cur *c, char **buf, size_t *len, size_t *cap);

static shl_status append(bc_reader *r, char **buf, size_t *len, size_t *cap, const char *s, size_t n) {
  if (*len + n + 1 > *cap) {
    size_t nc = *cap ? *cap * 2 : 128;
    while (nc < *len + n + 1) nc *= 2;
    if (nc > r->m->ctx->limits.max_attr_text_bytes * 4) return bc_error(r, NULL, "location text too long");
    char *nb = arena_alloc_uninit(r->a, nc);
    if (!nb) return st_oom();
    if (*len) memcpy(nb, *buf, *len);
    *buf = nb;
    *cap = nc;
  }
  memcpy(*buf + *len, s, n);
  *len += n;
  (*buf)[*len] = 0;
  return NULL;
}

static shl_status append_quoted(bc_reader *r, char **buf, size_t *len, size_t *cap, shl_str s) {
  ST_TRY(append(r, buf, len, cap, "\"", 1));
  for (size_t i = 0; i < s.n; i++) {
    unsigned char ch = (unsigned char)s.p[i];
    char esc[4];
    if (ch == '"' || ch == '\\') {
      esc[0] = '\\';
      esc[1] = (char)ch;
      ST_TRY(append(r, buf, len, cap, esc, 2));
    } else if (ch < 0x20 || ch >= 0x7F) {
      snprintf(esc, sizeof esc, "\\%02X", ch);
      ST_TRY(append(r, buf, len, cap, esc, 3));
    } else {
      ST_TRY(append(r, buf, len, cap, (const char *)&ch, 1));
    }
  }
  return append(r, buf, len, cap, "\"", 1);
}

/* A location attribute decoded earlier: AT_OPAQUE "loc(...)". */
static shl_status append_loc(bc_cur *c, char **buf, size_t *len, size_t *cap) {
  const uint8_t *at = c->p;
  const shl_attr *l;
  ST_TRY(bc_attr(c, &l));
  if (l->kind != AT_OPAQUE || !str_starts(l->u.str, "loc(")) return bc_error(c->r, at, "expected a location");
  return append(c->r, buf, len, cap, l->u.str.p + 4, l->u.str.n - 5);
}

static shl_status loc_inner(bc_cur *c, char **buf, size_t *len, size_t *cap) { return append_loc(c, buf, len, cap); }

static shl_status read_loc(bc_cur *c, uint64_t code, const shl_attr **out) {
  bc_reader *r = c->r;
  char *buf = NULL;
  size_t len = 0, cap = 0;
  ST_TRY(append(r, &buf, &len, &cap, "loc(", 4));
  switch (code) {
  case BA_UNKNOWN_LOC: ST_TRY(append(r, &buf, &len, &cap, "unknown", 7)); break;
  case BA_FILE_LINE_COL_LOC: {
    const shl_attr *f;
    uint64_t line, col;
    ST_TRY(bc_attr(c, &f));
    ST_TRY(bc_varint(c, &line));
    ST_TRY(bc_varint(c, &col));
    if (f->kind != AT_STRING) return bc_error(r, c->p, "file name of a location is not a string");
    ST_TRY(append_quoted(r, &buf, &len, &cap, f->u.str));
    char nums[48];
    int k = snprintf(nums, sizeof nums, ":%llu:%llu", (unsigned long long)line, (unsigned long long)col);
    ST_TRY(append(r, &buf, &len, &cap, nums, (size_t)k));
    break;
  }
  case BA_NAME_LOC: {
    const shl_attr *nm;
    ST_TRY(bc_attr(c, &nm));
    if (nm->kind != AT_STRING) return bc_error(r, c->p, "name of a location is not a string");
    ST_TRY(append_quoted(r, &buf, &len, &cap, nm->u.str));
    size_t mark = len;
    ST_TRY(append(r, &buf, &len, &cap, "(", 1));
    ST_TRY(loc_inner(c, &buf, &len, &cap));
    if (len - mark == 1 + 7 && memcmp(buf + mark + 1, "unknown", 7) == 0) len = mark; /* name only */
    else ST_TRY(append(r, &buf, &len, &cap, ")", 1));
    break;
  }
  case BA_CALLSITE_LOC:
    ST_TRY(append(r, &buf, &len, &cap, "callsite(", 9));
    ST_TRY(loc_inner(c, &buf, &len, &cap));
    ST_TRY(append(r, &buf, &len, &cap, " at ", 4));
    ST_TRY(loc_inner(c, &buf, &len, &cap));
    ST_TRY(append(r, &buf, &len, &cap, ")", 1));
    break;
  case BA_FUSED_LOC:
  case BA_FUSED_LOC_WITH_METADATA: {
    uint64_t n;
    ST_TRY(bc_count(c, 1, &n));
    ST_TRY(append(r, &buf, &len, &cap, "fused", 5));
    char *items = NULL;
    size_t ilen = 0, icap = 0;
    for (uint64_t i = 0; i < n; i++) {
      if (i) ST_TRY(append(r, &items, &ilen, &icap, ", ", 2));
      ST_TRY(loc_inner(c, &items, &ilen, &icap));
    }
    if (code == BA_FUSED_LOC_WITH_METADATA) {
      const shl_attr *md;
      ST_TRY(bc_attr(c, &md));
      (void)md; /* metadata is kept only when it has a text form; dropped here */
    }
    ST_TRY(append(r, &buf, &len, &cap, "[", 1));
    if (ilen) ST_TRY(append(r, &buf, &len, &cap, items, ilen));
    ST_TRY(append(r, &buf, &len, &cap, "]", 1));
    break;
  }
  default: return bc_error(r, c->p, "unsupported location kind %llu", (unsigned long long)code);
  }
  ST_TRY(append(r, &buf, &len, &cap, ")", 1));
  shl_attr *a = attr_new(r->a, AT_OPAQUE);
  if (!a) return st_oom();
  a->u.str = (shl_str){buf, len};
  *out = a;
  return NULL;
}

/* @root or @root::@nested...: composed as text (bare names where the printer
 * prints them bare) so the attribute equals the parsed one. */
static shl_status read_symref(bc_cur *c, bool nested, const shl_attr **out) {
  bc_reader *r = c->r;
  const uint8_t *at = c->p;
  const shl_attr *root;
  ST_TRY(bc_attr(c, &root));
  if (root->kind != AT_STRING) return bc_error(r, at, "symbol reference root is not a string");
  uint64_t n = 0;
  if (nested) ST_TRY(bc_count(c, 1, &n));
  const shl_attr **parts = ARENA_ARRAY(r->a, const shl_attr *, n ? n : 1);
  if (!parts) return st_oom();
  for (uint64_t i = 0; i < n; i++) {
    const uint8_t *pat = c->p;
    ST_TRY(bc_attr(c, &parts[i]));
    if (parts[i]->kind != AT_SYMREF) return bc_error(r, pat, "nested symbol reference is not a symbol");
  }
  bld_text t = {0};
  bld_text_printf(&t, "@");
  bld_text_symbol(&t, root->u.str.p, root->u.str.n);
  for (uint64_t i = 0; i < n; i++) bld_text_printf(&t, "::%.*s", (int)parts[i]->u.sym.text.n, parts[i]->u.sym.text.p);
  shl_status st = bld_text_attr(r->m, &t, out);
  if (!st) return NULL;
  shl_status e = bc_error(r, at, "%s", shloc_status_message(st));
  shloc_status_free(st);
  return e;
}

/* An array attribute: a count, then that many attribute references (the
 * encoding builtin's and VHLO's arrays share). */
shl_status bc_attr_array(bc_cur *c, const shl_attr **out) {
  uint64_t n;
  ST_TRY(bc_count(c, 1, &n));
  const shl_attr **items = ARENA_ARRAY(c->r->a, const shl_attr *, n ? n : 1);
  shl_attr *a = attr_new(c->r->a, AT_ARRAY);
  if (!items || !a) return st_oom();
  for (uint64_t i = 0; i < n; i++) ST_TRY(bc_attr(c, &items[i]));
  a->u.arr.n = (uint32_t)n;
  a->u.arr.items = items;
  *out = a;
  return NULL;
}

shl_status builtin_read_attr(bc_cur *c, const shl_attr **out) {
  bc_reader *r = c->r;
  const uint8_t *at = c->p;
  uint64_t code;
  ST_TRY(bc_varint(c, &code));
  switch (code) {
  case BA_ARRAY:
    return bc_attr_array(c, out);
  case BA_DICTIONARY: {
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
      ST_TRY(bc_attr(c, &items[i].attr));
    }
    uint32_t dup;
    if (!attrs_sort(items, (uint32_t)n, &dup)) return bc_error(r, at, "duplicate dictionary key '%.*s'", (int)items[dup].name.n, items[dup].name.p);
    a->u.dict.n = (uint32_t)n;
    a->u.dict.items = items;
    *out = a;
    return NULL;
  }
  case BA_STRING:
  case BA_STRING_WITH_TYPE: {
    shl_str s;
    ST_TRY(bc_string(c, &s));
    if (code == BA_STRING_WITH_TYPE) {
      const shl_type *t;
      ST_TRY(bc_type(c, &t)); /* typed strings keep only their text */
    }
    shl_attr *a = attr_string(r->a, s);
    if (!a) return st_oom();
    *out = a;
    return NULL;
  }
  case BA_FLAT_SYMBOL_REF: return read_symref(c, false, out);
  case BA_SYMBOL_REF: return read_symref(c, true, out);
  case BA_TYPE: {
    shl_attr *a = attr_new(r->a, AT_TYPE);
    if (!a) return st_oom();
    ST_TRY(bc_type(c, &a->type));
    *out = a;
    return NULL;
  }
  case BA_UNIT: {
    shl_attr *a = attr_new(r->a, AT_UNIT);
    if (!a) return st_oom();
    *out = a;
    return NULL;
  }
  case BA_INTEGER:
  case BA_FLOAT: {
    const shl_type *t;
    ST_TRY(bc_type(c, &t));
    if (t->kind != TY_SCALAR) return bc_error(r, at, "integer/float attribute of a non-scalar type");
    uint64_t v;
    ST_TRY(bc_apint(c, dtype_bits(t->dtype), &v));
    if (code == BA_INTEGER && t->dtype == DT_I1) {
      shl_attr *a = attr_bool(r->a, v & 1);
      if (!a) return st_oom();
      *out = a;
      return NULL;
    }
    shl_attr *a = attr_new(r->a, code == BA_INTEGER ? AT_INT : AT_FLOAT);
    if (!a) return st_oom();
    a->type = t;
    unsigned w = dtype_bits(t->dtype);
    if (code == BA_FLOAT) {
      a->u.f_bits = w < 64 ? v & ((1ull << w) - 1) : v;
    } else if (dtype_class(t->dtype) == DTC_UINT || w >= 64) {
      a->u.i = (int64_t)(w < 64 ? v & ((1ull << w) - 1) : v);
    } else {
      /* Sign-extend from the type's width. */
      uint64_t m = 1ull << (w - 1);
      uint64_t x = v & ((m << 1) - 1);
      a->u.i = (int64_t)((x ^ m) - m);
    }
    *out = a;
    return NULL;
  }
  case BA_CALLSITE_LOC:
  case BA_FILE_LINE_COL_LOC:
  case BA_FUSED_LOC:
  case BA_FUSED_LOC_WITH_METADATA:
  case BA_NAME_LOC:
  case BA_UNKNOWN_LOC: return read_loc(c, code, out);
  case BA_DENSE_ARRAY: {
    const shl_type *t;
    uint64_t n;
    const uint8_t *raw;
    size_t nb;
    ST_TRY(bc_type(c, &t));
    ST_TRY(bc_varint(c, &n));
    ST_TRY(bc_blob(c, &raw, &nb));
    if (t->kind != TY_SCALAR) return bc_error(r, at, "dense array of a non-scalar element type");
    size_t sz = dtype_bytes(t->dtype);
    if (!sz || n > nb || nb != n * sz) return bc_error(r, at, "dense array data has %zu bytes for %llu elements", nb, (unsigned long long)n);
    shl_attr *a = attr_new(r->a, AT_DENSE_ARRAY);
    void *d = arena_memdup(r->a, raw, nb ? nb : 1);
    if (!a || !d) return st_oom();
    a->type = t;
    a->u.darr.n = (int64_t)n;
    a->u.darr.data = d;
    *out = a;
    return NULL;
  }
  case BA_DENSE_INT_OR_FP: {
    const shl_type *t;
    const uint8_t *raw;
    size_t nb;
    ST_TRY(bc_type(c, &t));
    ST_TRY(bc_blob(c, &raw, &nb));
    return bc_dense(r, at, t, raw, nb, out);
  }
  default:
    return bc_error(r, at, "builtin attribute kind %llu is not supported", (unsigned long long)code);
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

static shl_status scalar(bc_reader *r, shl_dtype dt, const shl_type **out) {
  shl_type *t = type_scalar(r->a, dt);
  if (!t) return st_oom();
  *out = t;
  return NULL;
}

static shl_status tensor(bc_cur *c, const shl_attr *enc, const shl_type **out) {
  bc_reader *r = c->r;
  const uint8_t *at = c->p;
  int64_t *dims;
  uint32_t rank;
  const shl_type *el;
  ST_TRY(bc_svarints(c, &dims, &rank));
  ST_TRY(bc_type(c, &el));
  if (el->kind != TY_SCALAR) return bc_error(r, at, "tensor element type is not a scalar type");
  ST_TRY(bc_check_shape(r, at, dims, rank)); /* MLIR writes '?' as INT64_MIN, as shloc keeps it */
  shl_type *t = type_tensor(r->a, el->dtype, (int32_t)rank, dims);
  if (!t) return st_oom();
  t->quant = el->quant;
  t->encoding = enc;
  *out = t;
  return NULL;
}

shl_status builtin_read_type(bc_cur *c, const shl_type **out) {
  bc_reader *r = c->r;
  const uint8_t *at = c->p;
  uint64_t code;
  ST_TRY(bc_varint(c, &code));
  switch (code) {
  case BT_INTEGER: {
    uint64_t v;
    ST_TRY(bc_varint(c, &v));
    uint64_t width = v >> 2, sign = v & 3;
    char name[32];
    int k = snprintf(name, sizeof name, "%s%llu", sign == 1 ? "si" : sign == 2 ? "ui" : "i", (unsigned long long)width);
    shl_dtype dt = dtype_from_name(name, (size_t)k);
    if (dt == DT_INVALID) return bc_error(r, at, "integer type %s is not supported", name);
    return scalar(r, dt, out);
  }
  case BT_INDEX: return scalar(r, DT_INDEX, out);
  case BT_BF16: return scalar(r, DT_BF16, out);
  case BT_F16: return scalar(r, DT_F16, out);
  case BT_F32: return scalar(r, DT_F32, out);
  case BT_F64: return scalar(r, DT_F64, out);
  case BT_COMPLEX: {
    const shl_type *el;
    ST_TRY(bc_type(c, &el));
    if (el->kind != TY_SCALAR || (el->dtype != DT_F32 && el->dtype != DT_F64))
      return bc_error(r, at, "only complex<f32> and complex<f64> are supported");
    return scalar(r, el->dtype == DT_F32 ? DT_C64 : DT_C128, out);
  }
  case BT_NONE: {
    shl_type *t = arena_alloc(r->a, sizeof *t);
    if (!t) return st_oom();
    t->kind = TY_NONE;
    *out = t;
    return NULL;
  }
  case BT_FUNCTION:
  case BT_TUPLE: {
    shl_type *t = arena_alloc(r->a, sizeof *t);
    if (!t) return st_oom();
    t->kind = code == BT_FUNCTION ? TY_FUNCTION : TY_TUPLE;
    ST_TRY(type_list(c, &t->in, &t->n_in));
    if (code == BT_FUNCTION) ST_TRY(type_list(c, &t->out, &t->n_out));
    *out = t;
    return NULL;
  }
  case BT_RANKED_TENSOR: return tensor(c, NULL, out);
  case BT_RANKED_TENSOR_ENCODING: {
    const shl_attr *enc;
    ST_TRY(bc_attr(c, &enc));
    return tensor(c, enc, out);
  }
  case BT_UNRANKED_TENSOR: {
    const shl_type *el;
    ST_TRY(bc_type(c, &el));
    if (el->kind != TY_SCALAR) return bc_error(r, at, "tensor element type is not a scalar type");
    shl_type *t = type_tensor(r->a, el->dtype, -1, NULL);
    if (!t) return st_oom();
    t->quant = el->quant;
    *out = t;
    return NULL;
  }
  default:
    return bc_error(r, at, "builtin type kind %llu is not supported", (unsigned long long)code);
  }
}
