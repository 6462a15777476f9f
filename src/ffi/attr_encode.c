/* Attribute builder and its encoding into XLA FFI attribute structs.
 *
 * The builder records entries in insertion order (one flat node list, each
 * node naming its enclosing dictionary) with names and payloads copied into
 * one byte buffer.  Encoding sorts every dictionary by name (byte-wise, a
 * shorter prefix first, as std::string comparison does), rejects duplicate
 * names, and lays all structs out in a single allocation: one pass measures,
 * a second pass writes. */
#include <stdlib.h>
#include <string.h>

#include "ffi/ffi_impl.h"

/* Deeper nesting than any real backend_config; keeps encoding recursion small. */
#define FFI_ATTRS_MAX_DEPTH 64

typedef struct {
  XLA_FFI_AttrType kind;
  XLA_FFI_DataType dtype; /* scalar, array */
  size_t name_off, name_len;
  size_t data_off, data_len; /* payload bytes in ffi_attrs.bytes */
  size_t count;              /* array elements */
  long parent;               /* enclosing dictionary node, -1 for the top level */
} attr_node;

struct ffi_attrs {
  attr_node *nodes;
  size_t n, cap;
  char *bytes;
  size_t nbytes, capbytes;
  long open; /* innermost open dictionary, -1 for the top level */
  int depth;
};

shl_status ffi_attrs_create(ffi_attrs **out) {
  *out = NULL;
  ffi_attrs *a = calloc(1, sizeof *a);
  if (!a) return st_oom();
  a->open = -1;
  *out = a;
  return NULL;
}

void ffi_attrs_destroy(ffi_attrs *a) {
  if (!a) return;
  free(a->nodes);
  free(a->bytes);
  free(a);
}

/* Appends `len` bytes (8-aligned start) and returns their offset. */
static shl_status push_bytes(ffi_attrs *a, const void *src, size_t len, size_t *off) {
  size_t start = (a->nbytes + 7) & ~(size_t)7;
  if (start + len < start) return st_oom();
  if (start + len > a->capbytes) {
    size_t cap = a->capbytes ? a->capbytes : 256;
    while (cap < start + len) {
      if (cap > SIZE_MAX / 2) return st_oom();
      cap *= 2;
    }
    char *b = realloc(a->bytes, cap);
    if (!b) return st_oom();
    a->bytes = b;
    a->capbytes = cap;
  }
  if (len) memcpy(a->bytes + start, src, len);
  a->nbytes = start + len;
  *off = start;
  return NULL;
}

/* Adds a node; on failure the builder is left as it was. */
static shl_status push_node(ffi_attrs *a, attr_node node, const char *name, size_t name_len, const void *data,
                            size_t data_len) {
  if (name_len == 0) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "custom call attribute with an empty name");
  if (a->n == a->cap) {
    size_t cap = a->cap ? 2 * a->cap : 16;
    attr_node *n = realloc(a->nodes, cap * sizeof *n);
    if (!n) return st_oom();
    a->nodes = n;
    a->cap = cap;
  }
  size_t saved = a->nbytes;
  ST_TRY(push_bytes(a, name, name_len, &node.name_off));
  shl_status st = push_bytes(a, data, data_len, &node.data_off);
  if (st) {
    a->nbytes = saved;
    return st;
  }
  node.name_len = name_len;
  node.data_len = data_len;
  node.parent = a->open;
  a->nodes[a->n++] = node;
  return NULL;
}

/* The FFI dtype XLA gives an MLIR integer/float attribute of type `t`, or an
 * error worded like XLA's. */
static shl_status attr_dtype(shl_dtype t, bool array, const char *name, size_t name_len, XLA_FFI_DataType *out) {
  switch (t) {
    case DT_I1:
      if (!array) {
        *out = XLA_FFI_DataType_PRED;
        return NULL;
      }
      return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL,
                      "Unsupported array element type i1 for custom call attribute '%.*s'", (int)name_len, name);
    case DT_I8:
    case DT_SI8: *out = XLA_FFI_DataType_S8; return NULL;
    case DT_I16:
    case DT_SI16: *out = XLA_FFI_DataType_S16; return NULL;
    case DT_I32:
    case DT_SI32: *out = XLA_FFI_DataType_S32; return NULL;
    case DT_I64:
    case DT_SI64: *out = XLA_FFI_DataType_S64; return NULL;
    case DT_UI8: *out = XLA_FFI_DataType_U8; return NULL;
    case DT_UI16: *out = XLA_FFI_DataType_U16; return NULL;
    case DT_UI32: *out = XLA_FFI_DataType_U32; return NULL;
    case DT_UI64: *out = XLA_FFI_DataType_U64; return NULL;
    case DT_F32: *out = XLA_FFI_DataType_F32; return NULL;
    case DT_F64: *out = XLA_FFI_DataType_F64; return NULL;
    default: break;
  }
  const char *what = t > DT_INVALID && t < DT_COUNT && dtype_is_int(t)     ? "Unsupported integer attribute bit width"
                     : t > DT_INVALID && t < DT_COUNT && dtype_is_float(t) ? "Unsupported float attribute bit width"
                                                                           : "Unsupported attribute type";
  const char *tname = t > DT_INVALID && t < DT_COUNT ? dtype_name(t) : "?";
  return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL, "%s (%s) for custom call attribute '%.*s'", what, tname,
                  (int)name_len, name);
}

shl_status ffi_attrs_add_scalar(ffi_attrs *a, const char *name, size_t name_len, shl_dtype dtype, const void *value) {
  attr_node node = {.kind = XLA_FFI_AttrType_SCALAR};
  ST_TRY(attr_dtype(dtype, false, name, name_len, &node.dtype));
  size_t size = shloc_ffi_dtype_bytes(node.dtype);
  uint8_t pred;
  if (node.dtype == XLA_FFI_DataType_PRED) {
    pred = *(const uint8_t *)value != 0;
    value = &pred;
  }
  return push_node(a, node, name, name_len, value, size);
}

shl_status ffi_attrs_add_array(ffi_attrs *a, const char *name, size_t name_len, shl_dtype dtype, size_t count,
                               const void *data) {
  attr_node node = {.kind = XLA_FFI_AttrType_ARRAY, .count = count};
  ST_TRY(attr_dtype(dtype, true, name, name_len, &node.dtype));
  size_t size = shloc_ffi_dtype_bytes(node.dtype);
  if (count > SIZE_MAX / size) return st_oom();
  return push_node(a, node, name, name_len, data, count * size);
}

shl_status ffi_attrs_add_string(ffi_attrs *a, const char *name, size_t name_len, const char *s, size_t len) {
  attr_node node = {.kind = XLA_FFI_AttrType_STRING};
  return push_node(a, node, name, name_len, s, len);
}

shl_status ffi_attrs_begin_dict(ffi_attrs *a, const char *name, size_t name_len) {
  if (a->depth == FFI_ATTRS_MAX_DEPTH)
    return st_error(SHLOC_ERR_LIMIT, NULL, NULL, "custom call attributes nested deeper than %d dictionaries",
                    FFI_ATTRS_MAX_DEPTH);
  attr_node node = {.kind = XLA_FFI_AttrType_DICTIONARY};
  ST_TRY(push_node(a, node, name, name_len, NULL, 0));
  a->open = (long)a->n - 1;
  a->depth++;
  return NULL;
}

shl_status ffi_attrs_end_dict(ffi_attrs *a) {
  if (a->open < 0) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "ffi_attrs_end_dict without begin_dict");
  a->open = a->nodes[a->open].parent;
  a->depth--;
  return NULL;
}

/* ---- encoding -------------------------------------------------------- */

typedef struct {
  const char *name;
  size_t len;
  long parent;
  size_t node;
} child_ref;

static int cmp_names(const char *a, size_t alen, const char *b, size_t blen) {
  int c = memcmp(a, b, alen < blen ? alen : blen);
  if (c) return c;
  return (alen > blen) - (alen < blen);
}

static int cmp_child(const void *pa, const void *pb) {
  const child_ref *a = pa, *b = pb;
  if (a->parent != b->parent) return a->parent < b->parent ? -1 : 1;
  return cmp_names(a->name, a->len, b->name, b->len);
}

typedef struct {
  const ffi_attrs *a;
  const child_ref *refs; /* sorted by (parent, name) */
  const size_t *first;   /* first[p + 1]: index in refs of dictionary p's first child */
  const size_t *count;   /* count[p + 1]: its number of children */
  char *base;            /* NULL while measuring */
  size_t off;
} encoder;

/* Reserves `size` bytes aligned to `align`; NULL while measuring. */
static void *reserve(encoder *e, size_t size, size_t align) {
  e->off = (e->off + align - 1) & ~(align - 1);
  void *p = e->base ? e->base + e->off : NULL;
  e->off += size;
  return p;
}

/* Lays out the dictionary `parent` into `dst` (which may be NULL when measuring). */
static void encode_dict(encoder *e, long parent, XLA_FFI_Attrs *dst) {
  size_t k = e->count[parent + 1], first = e->first[parent + 1];
  XLA_FFI_AttrType *types = reserve(e, k * sizeof *types, 8);
  XLA_FFI_ByteSpan **names = reserve(e, k * sizeof *names, 8);
  void **attrs = reserve(e, k * sizeof *attrs, 8);
  if (dst) *dst = (XLA_FFI_Attrs){XLA_FFI_Attrs_STRUCT_SIZE, NULL, (int64_t)k, types, names, attrs};
  for (size_t i = 0; i < k; i++) {
    const attr_node *n = &e->a->nodes[e->refs[first + i].node];
    const char *data = e->a->bytes + n->data_off;
    XLA_FFI_ByteSpan *name = reserve(e, sizeof *name, 8);
    char *name_chars = reserve(e, n->name_len + 1, 1);
    void *payload = NULL;
    switch (n->kind) {
      case XLA_FFI_AttrType_SCALAR: {
        XLA_FFI_Scalar *s = reserve(e, sizeof *s, 8);
        void *v = reserve(e, n->data_len, 8);
        if (s) {
          memcpy(v, data, n->data_len);
          *s = (XLA_FFI_Scalar){n->dtype, v};
        }
        payload = s;
        break;
      }
      case XLA_FFI_AttrType_ARRAY: {
        XLA_FFI_Array *arr = reserve(e, sizeof *arr, 8);
        void *v = reserve(e, n->data_len, 16);
        if (arr) {
          if (n->data_len) memcpy(v, data, n->data_len);
          *arr = (XLA_FFI_Array){n->dtype, n->count, v};
        }
        payload = arr;
        break;
      }
      case XLA_FFI_AttrType_STRING: {
        XLA_FFI_ByteSpan *s = reserve(e, sizeof *s, 8);
        char *chars = reserve(e, n->data_len + 1, 1);
        if (s) {
          if (n->data_len) memcpy(chars, data, n->data_len);
          chars[n->data_len] = '\0';
          *s = (XLA_FFI_ByteSpan){chars, n->data_len};
        }
        payload = s;
        break;
      }
      case XLA_FFI_AttrType_DICTIONARY: {
        XLA_FFI_Attrs *d = reserve(e, sizeof *d, 8);
        encode_dict(e, (long)e->refs[first + i].node, d);
        payload = d;
        break;
      }
    }
    if (dst) {
      memcpy(name_chars, e->a->bytes + n->name_off, n->name_len);
      name_chars[n->name_len] = '\0';
      *name = (XLA_FFI_ByteSpan){name_chars, n->name_len};
      types[i] = n->kind;
      names[i] = name;
      attrs[i] = payload;
    }
  }
}

static shl_status encode_sorted(const ffi_attrs *a, child_ref *refs, size_t *first, size_t *count, char **block,
                                XLA_FFI_Attrs **root) {
  size_t n = a->n;
  for (size_t i = 0; i < n; i++) {
    const attr_node *node = &a->nodes[i];
    refs[i] = (child_ref){a->bytes + node->name_off, node->name_len, node->parent, i};
  }
  qsort(refs, n, sizeof *refs, cmp_child);
  for (size_t i = 0; i < n; i++) {
    if (i > 0 && cmp_child(&refs[i - 1], &refs[i]) == 0)
      return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "duplicate custom call attribute '%.*s'", (int)refs[i].len,
                      refs[i].name);
    size_t p = (size_t)(refs[i].parent + 1);
    if (count[p]++ == 0) first[p] = i;
  }
  encoder e = {a, refs, first, count, NULL, 0};
  reserve(&e, sizeof(XLA_FFI_Attrs), 8);
  encode_dict(&e, -1, NULL);
  size_t total = e.off;
  e.base = malloc(total);
  if (!e.base) return st_oom();
  e.off = 0;
  XLA_FFI_Attrs *top = reserve(&e, sizeof *top, 8);
  encode_dict(&e, -1, top);
  *block = e.base;
  *root = top;
  return NULL;
}

shl_status ffi_attrs_encode(const ffi_attrs *a, char **block, XLA_FFI_Attrs **root) {
  *block = NULL;
  *root = NULL;
  static const ffi_attrs empty = {NULL, 0, 0, NULL, 0, 0, -1, 0};
  if (!a) a = &empty;
  if (a->open >= 0)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "custom call attribute dictionary '%.*s' is not closed",
                    (int)a->nodes[a->open].name_len, a->bytes + a->nodes[a->open].name_off);
  size_t n = a->n;
  child_ref *refs = malloc((n ? n : 1) * sizeof *refs);
  size_t *first = calloc(n + 1, sizeof *first);
  size_t *count = calloc(n + 1, sizeof *count);
  shl_status st = refs && first && count ? encode_sorted(a, refs, first, count, block, root) : st_oom();
  free(refs);
  free(first);
  free(count);
  return st;
}
