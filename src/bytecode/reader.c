/* MLIR bytecode: the file header, the section table and the tables that the
 * IR refers to by index (strings, dialects, op names, attributes and types,
 * properties).  Entry point: bytecode_read (bytecode.h). */
#include <stdarg.h>
#include <stdio.h>

#include "bc_reader.h"
#include "bytecode.h"
#include "vhlo/vhlo.h"

/* Attributes and types nest (arrays of dictionaries of tensors...); deeper
 * than this is refused rather than recursed into. */
enum { BC_MAX_DEPTH = 200 };

shl_status bc_error(bc_reader *r, const uint8_t *at, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  size_t off = at && at >= r->data && at <= r->data + r->len ? (size_t)(at - r->data) : r->len;
  /* Offsets past 2 GiB are reported as the end of what a column can hold. */
  shl_srcpos pos = {r->fname, 0, off > INT32_MAX ? INT32_MAX : (int)off};
  if (r->cur_op) return st_error(SHLOC_ERR_PARSE, &pos, r->cur_op, "'%s' op: %s", r->cur_op, msg);
  return st_error(SHLOC_ERR_PARSE, &pos, NULL, "%s", msg);
}

bool bytecode_is(const void *data, size_t len) {
  return len >= 4 && memcmp(data, "ML\xEFR", 4) == 0;
}

/* ---- strings ---- */

static shl_status read_strings(bc_reader *r) {
  bc_cur c = {r, r->sec[BC_SEC_STRING], r->sec[BC_SEC_STRING] + r->sec_len[BC_SEC_STRING]};
  uint64_t n;
  ST_TRY(bc_count(&c, 2, &n)); /* a size varint and a NUL at least */
  r->n_strings = (uint32_t)n;
  r->strings = ARENA_ARRAY(r->a, shl_str, n ? n : 1);
  if (!r->strings) return st_oom();
  /* Sizes come last string first; the string data fills the section's end. */
  const uint8_t *at = c.p;
  uint64_t *sizes = ARENA_ARRAY(r->a, uint64_t, n ? n : 1);
  if (!sizes) return st_oom();
  for (uint64_t i = 0; i < n; i++) ST_TRY(bc_varint(&c, &sizes[i]));
  size_t end = bc_left(&c);
  for (uint64_t i = 0; i < n; i++) {
    uint64_t sz = sizes[i];
    if (sz == 0 || sz > end) return bc_error(r, at, "string %llu has an invalid size %llu", (unsigned long long)(n - 1 - i), (unsigned long long)sz);
    const uint8_t *s = c.p + end - sz;
    if (s[sz - 1] != 0) return bc_error(r, s + sz - 1, "string is not NUL-terminated");
    r->strings[n - 1 - i] = (shl_str){(const char *)s, sz - 1};
    end -= sz;
  }
  return NULL;
}

shl_status bc_string(bc_cur *c, shl_str *out) {
  const uint8_t *at = c->p;
  uint64_t i;
  ST_TRY(bc_varint(c, &i));
  if (i >= c->r->n_strings) return bc_error(c->r, at, "string index %llu out of range (%u strings)", (unsigned long long)i, c->r->n_strings);
  *out = c->r->strings[i];
  return NULL;
}

static shl_status string_at(bc_reader *r, uint64_t i, const uint8_t *at, shl_str *out) {
  if (i >= r->n_strings) return bc_error(r, at, "string index %llu out of range (%u strings)", (unsigned long long)i, r->n_strings);
  *out = r->strings[i];
  return NULL;
}

/* ---- dialects and op names ---- */

static bc_dialect_kind dialect_kind(shl_str name) {
  if (str_eq_c(name, "builtin")) return BD_BUILTIN;
  if (str_eq_c(name, "vhlo")) return BD_VHLO;
  if (str_eq_c(name, "func")) return BD_FUNC;
  return BD_OTHER;
}

/* `dialect index, count, count entries` groups until `total` entries are read. */
static shl_status dialect_group(bc_cur *c, uint32_t *dialect, uint64_t *count) {
  const uint8_t *at = c->p;
  uint64_t d;
  ST_TRY(bc_varint(c, &d));
  if (d >= c->r->n_dialects) return bc_error(c->r, at, "dialect index %llu out of range (%u dialects)", (unsigned long long)d, c->r->n_dialects);
  *dialect = (uint32_t)d;
  return bc_count(c, 1, count);
}

static shl_status read_dialects(bc_reader *r) {
  bc_cur c = {r, r->sec[BC_SEC_DIALECT], r->sec[BC_SEC_DIALECT] + r->sec_len[BC_SEC_DIALECT]};
  uint64_t n;
  ST_TRY(bc_count(&c, 1, &n));
  r->n_dialects = (uint32_t)n;
  r->dialects = ARENA_ARRAY(r->a, bc_dialect, n ? n : 1);
  if (!r->dialects) return st_oom();
  for (uint64_t i = 0; i < n; i++) {
    bc_dialect *d = &r->dialects[i];
    const uint8_t *at = c.p;
    uint64_t name;
    bool versioned = false;
    if (r->version < BC_V_DIALECT_VERSIONING) ST_TRY(bc_varint(&c, &name));
    else ST_TRY(bc_varint_flag(&c, &name, &versioned));
    ST_TRY(string_at(r, name, at, &d->name));
    d->kind = dialect_kind(d->name);
    if (versioned) {
      uint8_t id;
      bc_cur v;
      at = c.p;
      ST_TRY(bc_section(&c, &id, &v));
      if (id != BC_SEC_DIALECT_VERSIONS) return bc_error(r, at, "expected a dialect version section, found section %u", id);
      d->has_version = true;
      d->version = v.p;
      d->version_len = bc_left(&v);
    }
  }
  /* Op names, grouped by dialect. */
  uint64_t total = 0;
  bool counted = r->version >= BC_V_ELIDE_UNKNOWN_BLOCK_ARG_LOC;
  if (counted) ST_TRY(bc_count(&c, 1, &total));
  size_t cap = counted ? total : bc_left(&c);
  r->opnames = ARENA_ARRAY(r->a, bc_opname, cap ? cap : 1);
  if (!r->opnames) return st_oom();
  while (!bc_done(&c)) {
    uint32_t d;
    uint64_t cnt;
    ST_TRY(dialect_group(&c, &d, &cnt));
    if (cnt > cap - r->n_opnames) return bc_error(r, c.p, "more op names than announced");
    for (uint64_t i = 0; i < cnt; i++) {
      const uint8_t *at = c.p;
      uint64_t s;
      bool registered = true;
      if (r->version < BC_V_NATIVE_PROPERTIES) ST_TRY(bc_varint(&c, &s));
      else ST_TRY(bc_varint_flag(&c, &s, &registered));
      shl_str op;
      ST_TRY(string_at(r, s, at, &op));
      shl_str dn = r->dialects[d].name;
      char *full = arena_alloc_uninit(r->a, dn.n + 1 + op.n + 1);
      if (!full) return st_oom();
      memcpy(full, dn.p, dn.n);
      full[dn.n] = '.';
      memcpy(full + dn.n + 1, op.p, op.n);
      full[dn.n + 1 + op.n] = 0;
      bc_opname *on = &r->opnames[r->n_opnames++];
      on->dialect = d;
      on->registered = registered;
      on->name = (shl_str){full, dn.n + 1 + op.n};
      on->vhlo = r->dialects[d].kind == BD_VHLO ? vhlo_op_lookup(op) : NULL;
      on->def = opdef_lookup(on->name);
    }
  }
  if (counted && r->n_opnames != total)
    return bc_error(r, c.p, "%u op names found, %llu announced", r->n_opnames, (unsigned long long)total);
  return NULL;
}

/* ---- attributes and types ---- */

static shl_status read_attr_type_offsets(bc_reader *r) {
  bc_cur c = {r, r->sec[BC_SEC_ATTR_TYPE_OFFSET], r->sec[BC_SEC_ATTR_TYPE_OFFSET] + r->sec_len[BC_SEC_ATTR_TYPE_OFFSET]};
  uint64_t na, nt;
  ST_TRY(bc_count(&c, 1, &na));
  ST_TRY(bc_count(&c, 1, &nt));
  if (na + nt > bc_left(&c)) return bc_error(r, c.p, "%llu attributes and types announced, too many for the offset table", (unsigned long long)(na + nt));
  r->n_attrs = (uint32_t)na;
  r->n_types = (uint32_t)nt;
  r->attrs = ARENA_ARRAY(r->a, bc_entry, na ? na : 1);
  r->types = ARENA_ARRAY(r->a, bc_entry, nt ? nt : 1);
  if (!r->attrs || !r->types) return st_oom();
  const uint8_t *data = r->sec[BC_SEC_ATTR_TYPE];
  size_t left = r->sec_len[BC_SEC_ATTR_TYPE], off = 0;
  for (int pass = 0; pass < 2; pass++) {
    bc_entry *v = pass ? r->types : r->attrs;
    uint64_t n = pass ? nt : na, i = 0;
    while (i < n) {
      uint32_t d;
      uint64_t cnt;
      ST_TRY(dialect_group(&c, &d, &cnt));
      if (cnt > n - i) return bc_error(r, c.p, "more %s than announced", pass ? "types" : "attributes");
      for (uint64_t k = 0; k < cnt; k++, i++) {
        const uint8_t *at = c.p;
        uint64_t size;
        bool custom;
        ST_TRY(bc_varint_flag(&c, &size, &custom));
        if (size > left - off) return bc_error(r, at, "entry of %llu bytes runs past the attribute/type section", (unsigned long long)size);
        v[i] = (bc_entry){.p = data + off, .n = size, .dialect = d, .custom = custom};
        off += size;
      }
    }
  }
  return NULL;
}

/* Text of an entry without a bytecode encoding: NUL-terminated. */
static shl_status entry_text(bc_reader *r, const bc_entry *e, size_t *n) {
  if (!e->n || e->p[e->n - 1] != 0) return bc_error(r, e->p, "attribute/type text is not NUL-terminated");
  *n = e->n - 1;
  return NULL;
}

static shl_status enter(bc_reader *r, bc_entry *e, const uint8_t *at, const char *what) {
  if (e->state == BE_BUSY) return bc_error(r, at, "%s refers to itself (reference cycle)", what);
  if (++r->depth > BC_MAX_DEPTH) return bc_error(r, at, "%ss nested deeper than %d", what, BC_MAX_DEPTH);
  e->state = BE_BUSY;
  return NULL;
}

shl_status bc_attr_at(bc_reader *r, uint64_t idx, const uint8_t *at, const shl_attr **out) {
  if (idx >= r->n_attrs) return bc_error(r, at, "attribute index %llu out of range (%u attributes)", (unsigned long long)idx, r->n_attrs);
  bc_entry *e = &r->attrs[idx];
  if (e->state == BE_DONE) {
    *out = e->v.attr;
    return NULL;
  }
  ST_TRY(enter(r, e, at, "attribute"));
  bc_cur c = {r, e->p, e->p + e->n};
  const bc_dialect *d = &r->dialects[e->dialect];
  if (!e->custom) {
    size_t n = 0;
    ST_TRY(entry_text(r, e, &n));
    ST_TRY(bc_parse_attr_text(r, e->p, (const char *)e->p, n, &e->v.attr));
  } else if (d->kind == BD_BUILTIN) {
    ST_TRY(builtin_read_attr(&c, &e->v.attr));
  } else if (d->kind == BD_VHLO) {
    ST_TRY(vhlo_read_attr(&c, &e->v.attr));
  } else {
    return bc_error(r, e->p, "attribute of dialect '%.*s' uses a bytecode encoding shloc cannot read", (int)d->name.n, d->name.p);
  }
  r->depth--;
  e->state = BE_DONE;
  *out = e->v.attr;
  return NULL;
}

shl_status bc_type_at(bc_reader *r, uint64_t idx, const uint8_t *at, const shl_type **out) {
  if (idx >= r->n_types) return bc_error(r, at, "type index %llu out of range (%u types)", (unsigned long long)idx, r->n_types);
  bc_entry *e = &r->types[idx];
  if (e->state == BE_DONE) {
    *out = e->v.type;
    return NULL;
  }
  ST_TRY(enter(r, e, at, "type"));
  bc_cur c = {r, e->p, e->p + e->n};
  const bc_dialect *d = &r->dialects[e->dialect];
  if (!e->custom) {
    size_t n = 0;
    ST_TRY(entry_text(r, e, &n));
    ST_TRY(bc_parse_type_text(r, e->p, (const char *)e->p, n, &e->v.type));
  } else if (d->kind == BD_BUILTIN) {
    ST_TRY(builtin_read_type(&c, &e->v.type));
  } else if (d->kind == BD_VHLO) {
    ST_TRY(vhlo_read_type(&c, &e->v.type));
  } else {
    return bc_error(r, e->p, "type of dialect '%.*s' uses a bytecode encoding shloc cannot read", (int)d->name.n, d->name.p);
  }
  r->depth--;
  e->state = BE_DONE;
  *out = e->v.type;
  return NULL;
}

shl_status bc_attr(bc_cur *c, const shl_attr **out) {
  const uint8_t *at = c->p;
  uint64_t i;
  ST_TRY(bc_varint(c, &i));
  return bc_attr_at(c->r, i, at, out);
}

shl_status bc_type(bc_cur *c, const shl_type **out) {
  const uint8_t *at = c->p;
  uint64_t i;
  ST_TRY(bc_varint(c, &i));
  return bc_type_at(c->r, i, at, out);
}

shl_status bc_check_shape(bc_reader *r, const uint8_t *at, const int64_t *dims, uint32_t rank) {
  uint64_t count = 1;
  bool overflow = false;
  for (uint32_t i = 0; i < rank; i++) {
    if (dims[i] == SHL_DYN) continue;
    if (dims[i] < 0) return bc_error(r, at, "invalid dimension size %lld", (long long)dims[i]);
    if (dims[i] && count > UINT64_MAX / (uint64_t)dims[i]) overflow = true;
    else count *= (uint64_t)dims[i];
  }
  if (overflow || count > r->m->ctx->limits.max_elements)
    return bc_error(r, at, "tensor type has more elements than the limit of %llu",
                    (unsigned long long)r->m->ctx->limits.max_elements);
  return NULL;
}

shl_status bc_svarints(bc_cur *c, int64_t **out, uint32_t *n) {
  uint64_t cnt;
  ST_TRY(bc_count(c, 1, &cnt));
  int64_t *v = ARENA_ARRAY(c->r->a, int64_t, cnt ? cnt : 1);
  if (!v) return st_oom();
  for (uint64_t i = 0; i < cnt; i++) ST_TRY(bc_svarint(c, &v[i]));
  *out = v;
  *n = (uint32_t)cnt;
  return NULL;
}

shl_status bc_apint(bc_cur *c, unsigned width, uint64_t *out) {
  if (width <= 8) {
    uint8_t b;
    ST_TRY(bc_byte(c, &b));
    *out = b;
    return NULL;
  }
  if (width <= 64) {
    int64_t v;
    ST_TRY(bc_svarint(c, &v));
    *out = (uint64_t)v;
    return NULL;
  }
  return bc_error(c->r, c->p, "integers wider than 64 bits are not supported");
}

shl_status bc_blob(bc_cur *c, const uint8_t **out, size_t *n) {
  uint64_t sz;
  ST_TRY(bc_varint(c, &sz));
  ST_TRY(bc_bytes(c, sz, out));
  *n = sz;
  return NULL;
}

/* ---- properties ---- */

static shl_status read_properties(bc_reader *r) {
  if (!r->sec[BC_SEC_PROPERTIES]) return NULL;
  bc_cur c = {r, r->sec[BC_SEC_PROPERTIES], r->sec[BC_SEC_PROPERTIES] + r->sec_len[BC_SEC_PROPERTIES]};
  uint64_t n;
  ST_TRY(bc_count(&c, 1, &n));
  r->n_props = (uint32_t)n;
  r->props = ARENA_ARRAY(r->a, const uint8_t *, n ? n : 1);
  r->props_len = ARENA_ARRAY(r->a, size_t, n ? n : 1);
  if (!r->props || !r->props_len) return st_oom();
  for (uint64_t i = 0; i < n; i++) ST_TRY(bc_blob(&c, &r->props[i], &r->props_len[i]));
  return NULL;
}

/* ---- versions ---- */

static shl_status check_vhlo_version(bc_reader *r) {
  for (uint32_t i = 0; i < r->n_dialects; i++) {
    bc_dialect *d = &r->dialects[i];
    if (d->kind != BD_VHLO || !d->has_version) continue;
    bc_cur c = {r, d->version, d->version + d->version_len};
    uint64_t v[3];
    for (int k = 0; k < 3; k++) {
      ST_TRY(bc_varint(&c, &v[k]));
      if (v[k] > 9999) return bc_error(r, d->version, "invalid VHLO version");
    }
    for (int k = 0; k < 3; k++) r->vhlo_version[k] = (uint32_t)v[k];
  }
  /* Artifacts name their StableHLO version in the producer string too
   * ("StableHLO_v1.2.3"), also when the dialect carries none. */
  unsigned maj, min, pat;
  if (!r->vhlo_version[0] && !r->vhlo_version[1] && r->producer.n > 11 && str_starts(r->producer, "StableHLO_v") &&
      r->producer.n < 64) {
    char buf[64];
    memcpy(buf, r->producer.p, r->producer.n);
    buf[r->producer.n] = 0;
    if (sscanf(buf + 11, "%4u.%4u.%4u", &maj, &min, &pat) == 3) {
      r->vhlo_version[0] = maj;
      r->vhlo_version[1] = min;
      r->vhlo_version[2] = pat;
    }
  }
  const uint32_t *cur = vhlo_current_version();
  const uint32_t *have = r->vhlo_version;
  if (have[0] > cur[0] || (have[0] == cur[0] && (have[1] > cur[1] || (have[1] == cur[1] && have[2] > cur[2]))))
    return bc_error(r, (const uint8_t *)r->producer.p, "artifact is StableHLO v%u.%u.%u, newest readable is v%u.%u.%u", have[0], have[1],
                    have[2], cur[0], cur[1], cur[2]);
  return NULL;
}

shl_status bytecode_read(shloc_module *m, const uint8_t *data, size_t len, bool borrowed) {
  bc_reader r = {.m = m, .a = &m->arena, .fname = m->filename, .data = data, .len = len, .borrowed = borrowed};
  bc_cur c = {&r, data, data + len};
  const uint8_t *magic;
  ST_TRY(bc_bytes(&c, 4, &magic));
  if (memcmp(magic, "ML\xEFR", 4) != 0) return bc_error(&r, data, "not MLIR bytecode (bad magic)");
  const uint8_t *at = c.p;
  ST_TRY(bc_varint(&c, &r.version));
  /* Producer: NUL-terminated. */
  const uint8_t *nul = memchr(c.p, 0, bc_left(&c));
  if (!nul) return bc_error(&r, c.p, "producer string is not NUL-terminated");
  r.producer = (shl_str){(const char *)c.p, (size_t)(nul - c.p)};
  c.p = nul + 1;
  if (r.version > BC_V_NEWEST) {
    /* The producer names the StableHLO version when there is one. */
    return bc_error(&r, at, "bytecode version %llu (producer '%.*s') is newer than the newest readable, %d",
                    (unsigned long long)r.version, (int)(r.producer.n > 64 ? 64 : r.producer.n), r.producer.p,
                    BC_V_NEWEST);
  }
  while (!bc_done(&c)) {
    uint8_t id;
    bc_cur s;
    at = c.p;
    ST_TRY(bc_section(&c, &id, &s));
    if (id >= BC_SEC_COUNT || id == BC_SEC_DIALECT_VERSIONS) return bc_error(&r, at, "unknown section id %u", id);
    if (r.sec[id]) return bc_error(&r, at, "section %u appears twice", id);
    r.sec[id] = s.p;
    r.sec_len[id] = bc_left(&s);
  }
  static const uint8_t required[] = {BC_SEC_STRING, BC_SEC_DIALECT, BC_SEC_ATTR_TYPE, BC_SEC_ATTR_TYPE_OFFSET, BC_SEC_IR};
  for (size_t i = 0; i < sizeof required; i++)
    if (!r.sec[required[i]]) return bc_error(&r, c.p, "missing section %u", required[i]);
  ST_TRY(read_strings(&r));
  ST_TRY(read_dialects(&r));
  ST_TRY(check_vhlo_version(&r));
  ST_TRY(read_attr_type_offsets(&r));
  ST_TRY(read_properties(&r));
  return bc_read_ir(&r);
}
