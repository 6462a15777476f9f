#include "attrs.h"

#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "support/hex.h"

/* Large hex constants are validated while parsing but decoded only when
 * something reads their bytes (`shloc check` and `shloc fmt` never do), so
 * parsing them costs one read of the text and no writes. */
struct shl_dense_lazy {
  const char *hex; /* 2 * nbytes uppercase hex digits */
  atomic_int state; /* LAZY_PENDING -> LAZY_BUSY (one decoder) -> LAZY_DONE */
};

enum { LAZY_PENDING, LAZY_BUSY, LAZY_DONE };

const void *attr_dense_data(const shl_attr *a) {
  shl_dense_lazy *z = a->u.dense.lazy;
  if (!z || atomic_load_explicit(&z->state, memory_order_acquire) == LAZY_DONE) return a->u.dense.storage;
  int expect = LAZY_PENDING;
  if (atomic_compare_exchange_strong_explicit(&z->state, &expect, LAZY_BUSY, memory_order_acquire,
                                              memory_order_acquire)) {
    /* The digits were validated by the parser, so decoding cannot fail. */
    hex_decode(z->hex, a->u.dense.nbytes, (uint8_t *)a->u.dense.storage);
    atomic_store_explicit(&z->state, LAZY_DONE, memory_order_release);
  } else {
    while (atomic_load_explicit(&z->state, memory_order_acquire) != LAZY_DONE) sched_yield();
  }
  return a->u.dense.storage;
}

const char *attr_dense_hex(const shl_attr *a) { return a->u.dense.lazy ? a->u.dense.lazy->hex : NULL; }

shl_attr *attr_dense_lazy(shl_arena *a, const shl_type *type, const char *hex, size_t nbytes) {
  shl_attr *at = attr_new(a, AT_DENSE);
  shl_dense_lazy *z = ARENA_NEW(a, shl_dense_lazy);
  /* Reserved, not touched: large arena blocks are fresh mappings, so pages
   * are only faulted in if the data is ever decoded. */
  void *data = arena_alloc_uninit(a, nbytes ? nbytes : 1);
  if (!at || !z || !data) return NULL;
  z->hex = hex;
  atomic_init(&z->state, LAZY_PENDING);
  at->type = type;
  at->u.dense.storage = data;
  at->u.dense.nbytes = nbytes;
  at->u.dense.lazy = z;
  return at;
}

static bool named_list_eq(const shl_named_attr *a, const shl_named_attr *b, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (!str_eq(a[i].name, b[i].name) || !attr_eq(a[i].attr, b[i].attr)) return false;
  return true;
}

/* Empty payloads may have NULL data, which memcmp must not see. */
static bool bytes_eq(const void *a, const void *b, size_t n) { return n == 0 || memcmp(a, b, n) == 0; }

bool attr_eq(const shl_attr *a, const shl_attr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  if ((a->type || b->type) && !type_eq(a->type, b->type)) {
    /* An integer without a written type means i64. */
    if (a->kind != AT_INT) return false;
    const shl_type *ta = a->type, *tb = b->type;
    shl_dtype da = ta ? ta->dtype : DT_I64, db = tb ? tb->dtype : DT_I64;
    if (da != db) return false;
  }
  switch (a->kind) {
    case AT_UNIT:
      return true;
    case AT_BOOL:
      return a->u.b == b->u.b;
    case AT_INT:
      return a->u.i == b->u.i;
    case AT_FLOAT:
      return a->u.f_bits == b->u.f_bits;
    case AT_STRING:
    case AT_SYMREF:
    case AT_OPAQUE:
      return str_eq(a->u.str, b->u.str);
    case AT_TYPE:
      return true; /* compared through ->type above */
    case AT_ARRAY:
      if (a->u.arr.n != b->u.arr.n) return false;
      for (uint32_t i = 0; i < a->u.arr.n; i++)
        if (!attr_eq(a->u.arr.items[i], b->u.arr.items[i])) return false;
      return true;
    case AT_INTLIST:
      return a->u.ints.n == b->u.ints.n && bytes_eq(a->u.ints.v, b->u.ints.v, a->u.ints.n * sizeof(int64_t));
    case AT_DENSE_ARRAY:
      return a->u.darr.n == b->u.darr.n &&
             bytes_eq(a->u.darr.data, b->u.darr.data, (size_t)a->u.darr.n * dtype_bytes(a->type->dtype));
    case AT_DENSE:
      if (a->u.dense.splat != b->u.dense.splat || a->u.dense.nbytes != b->u.dense.nbytes) return false;
      if (attr_dense_hex(a) && attr_dense_hex(b)) /* canonical digits: equal text <=> equal bytes */
        return memcmp(attr_dense_hex(a), attr_dense_hex(b), 2 * a->u.dense.nbytes) == 0;
      return bytes_eq(attr_dense_data(a), attr_dense_data(b), a->u.dense.nbytes);
    case AT_DICT:
      return a->u.dict.n == b->u.dict.n && named_list_eq(a->u.dict.items, b->u.dict.items, a->u.dict.n);
    case AT_ENUM:
      return str_eq(a->u.en.dialect, b->u.en.dialect) && str_eq(a->u.en.name, b->u.en.name) &&
             str_eq(a->u.en.value, b->u.en.value);
    case AT_STRUCT:
      return str_eq(a->u.st.name, b->u.st.name) && a->u.st.n == b->u.st.n &&
             named_list_eq(a->u.st.fields, b->u.st.fields, a->u.st.n);
  }
  return false;
}

const shl_attr *attr_dict_get(const shl_named_attr *items, uint32_t n, const char *name) {
  shl_str key = str_of(name);
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    int c = str_cmp(items[mid].name, key);
    if (c == 0) return items[mid].attr;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

const shl_attr *attr_struct_field(const shl_attr *st, const char *name) {
  if (!st || st->kind != AT_STRUCT) return NULL;
  for (uint32_t i = 0; i < st->u.st.n; i++)
    if (str_eq_c(st->u.st.fields[i].name, name)) return st->u.st.fields[i].attr;
  return NULL;
}

bool attr_as_int(const shl_attr *a, int64_t *out) {
  if (!a) return false;
  if (a->kind == AT_INT) {
    *out = a->u.i;
    return true;
  }
  if (a->kind == AT_BOOL) {
    *out = a->u.b;
    return true;
  }
  return false;
}

static int64_t load_int(const void *p, shl_dtype dt) {
  switch (dtype_bytes(dt)) {
    case 1: return dtype_is_signed(dt) ? *(const int8_t *)p : *(const uint8_t *)p;
    case 2: return dtype_is_signed(dt) ? *(const int16_t *)p : *(const uint16_t *)p;
    case 4: return dtype_is_signed(dt) ? (int64_t)*(const int32_t *)p : (int64_t)*(const uint32_t *)p;
    default: return *(const int64_t *)p;
  }
}

bool attr_as_ints(const shl_attr *a, int64_t *out, size_t cap, size_t *n) {
  if (!a) return false;
  switch (a->kind) {
    case AT_INTLIST:
      *n = a->u.ints.n;
      for (size_t i = 0; out && i < *n && i < cap; i++) out[i] = a->u.ints.v[i];
      return true;
    case AT_DENSE_ARRAY: {
      shl_dtype dt = a->type->dtype;
      if (!dtype_is_int(dt)) return false;
      *n = (size_t)a->u.darr.n;
      size_t sz = dtype_bytes(dt);
      for (size_t i = 0; out && i < *n && i < cap; i++) out[i] = load_int((const char *)a->u.darr.data + i * sz, dt);
      return true;
    }
    case AT_ARRAY:
      *n = a->u.arr.n;
      for (size_t i = 0; i < *n; i++) {
        int64_t v;
        if (!attr_as_int(a->u.arr.items[i], &v)) return false;
        if (out && i < cap) out[i] = v;
      }
      return true;
    case AT_DENSE: {
      const shl_type *t = a->type;
      if (!dtype_is_int(t->dtype)) return false;
      int64_t count = type_num_elements(t);
      if (count < 0) return false;
      *n = (size_t)count;
      size_t sz = dtype_bytes(t->dtype);
      const char *d = out && *n && cap ? attr_dense_data(a) : NULL;
      for (size_t i = 0; d && i < *n && i < cap; i++) out[i] = load_int(d + (a->u.dense.splat ? 0 : i * sz), t->dtype);
      return true;
    }
    default:
      return false;
  }
}

shl_attr *attr_new(shl_arena *a, shl_attr_kind kind) {
  shl_attr *at = ARENA_NEW(a, shl_attr);
  if (at) at->kind = kind;
  return at;
}

shl_attr *attr_int(shl_arena *a, const shl_type *type, int64_t v) {
  shl_attr *at = attr_new(a, AT_INT);
  if (at) {
    at->type = type;
    at->u.i = v;
  }
  return at;
}

shl_attr *attr_bool(shl_arena *a, bool v) {
  shl_attr *at = attr_new(a, AT_BOOL);
  if (at) at->u.b = v;
  return at;
}

shl_attr *attr_string(shl_arena *a, shl_str s) {
  shl_attr *at = attr_new(a, AT_STRING);
  if (!at) return NULL;
  char *d = arena_strndup(a, s.p ? s.p : "", s.n);
  if (!d) return NULL;
  at->u.str = (shl_str){d, s.n};
  return at;
}

shl_attr *attr_dense_array_i64(shl_arena *a, const int64_t *v, int64_t n) {
  shl_attr *at = attr_new(a, AT_DENSE_ARRAY);
  if (!at) return NULL;
  at->type = type_scalar(a, DT_I64);
  at->u.darr.n = n;
  at->u.darr.data = arena_memdup(a, v, (size_t)n * sizeof(int64_t));
  if (!at->type || (n && !at->u.darr.data)) return NULL;
  return at;
}

bool attr_is_default_result_accuracy(const shl_attr *a) {
  if (!a || a->kind != AT_STRUCT) return false;
  const shl_attr *atol = attr_struct_field(a, "atol"), *rtol = attr_struct_field(a, "rtol");
  const shl_attr *ulps = attr_struct_field(a, "ulps"), *mode = attr_struct_field(a, "mode");
  /* Zero in any float format: only the sign bit may be set. */
  bool zero = atol && rtol && atol->kind == AT_FLOAT && rtol->kind == AT_FLOAT && (atol->u.f_bits << 1) == 0 &&
              (rtol->u.f_bits << 1) == 0;
  int64_t u;
  bool default_mode =
      mode && ((mode->kind == AT_OPAQUE && str_eq_c(mode->u.str, "#stablehlo.result_accuracy_mode<DEFAULT>")) ||
               (mode->kind == AT_ENUM && str_eq_c(mode->u.en.value, "DEFAULT")));
  return zero && attr_as_int(ulps, &u) && u == 0 && default_mode;
}
