/* Attributes: scalars, strings, arrays, dictionaries, symbol references,
 * types, array<T: ...>, the #stablehlo structured and enum attributes, and
 * opaque dialect attributes (kept verbatim). */
#include <math.h>
#include <stdlib.h>

#include "dialects/sdy/sdy_text.h"
#include "parser.h"
#include "support/scalar.h"

static shl_attr *new_attr(shl_parser *p, shl_attr_kind k) { return attr_new(p->a, k); }

/* Converts a numeric literal token (with sign) into the storage bits of dt. */
shl_status literal_to_bits(shl_parser *p, const shl_token *t, bool neg, shl_dtype dt, uint64_t *bits);
shl_status literal_to_bits(shl_parser *p, const shl_token *t, bool neg, shl_dtype dt, uint64_t *bits) {
  bool is_hex = t->kind == TK_INT && t->text.n > 2 && t->text.p[1] == 'x';
  if (dtype_is_float(dt) || dtype_is_complex(dt)) {
    shl_dtype fdt = dt == DT_C64 ? DT_F32 : dt == DT_C128 ? DT_F64 : dt;
    if (is_hex) {
      /* A hex integer for a float type is its bit pattern. */
      uint64_t v;
      if (!lexer_int_value(t->text, &v) || neg) return parse_error_at(p, t, "invalid hexadecimal float literal");
      if (!fp_storage_from_pattern(fdt, v, bits))
        return parse_error_at(p, t, "hexadecimal float literal too wide for %s", dtype_name(fdt));
      return NULL;
    }
    if (t->kind == TK_BARE_ID) {
      double v;
      if (str_eq_c(t->text, "inf")) v = INFINITY;
      else if (str_eq_c(t->text, "nan")) v = NAN;
      else return parse_error_at(p, t, "expected floating point literal");
      *bits = fp_from_f64(fdt, neg ? -v : v);
      return NULL;
    }
    if (t->kind != TK_INT && t->kind != TK_FLOAT) return parse_error_at(p, t, "expected floating point literal");
    char buf[128];
    if (t->text.n >= sizeof buf) return parse_error_at(p, t, "numeric literal too long");
    memcpy(buf, t->text.p, t->text.n);
    buf[t->text.n] = 0;
    if (fdt == DT_F32) {
      float f = strtof(buf, NULL);
      uint32_t u;
      if (neg) f = -f;
      memcpy(&u, &f, 4);
      *bits = u;
    } else if (fdt == DT_F64) {
      double d = strtod(buf, NULL);
      if (neg) d = -d;
      memcpy(bits, &d, 8);
    } else {
      double d = strtod(buf, NULL);
      *bits = fp_from_f64(fdt, neg ? -d : d);
    }
    return NULL;
  }
  if (t->kind == TK_BARE_ID) {
    if (str_eq_c(t->text, "true") || str_eq_c(t->text, "false")) {
      if (neg) return parse_error_at(p, t, "unexpected '-'");
      if (dt != DT_I1 && !dtype_is_int(dt)) return parse_error_at(p, t, "boolean literal for non-integer type");
      *bits = str_eq_c(t->text, "true");
      return NULL;
    }
    return parse_error_at(p, t, "expected integer literal");
  }
  if (t->kind != TK_INT) return parse_error_at(p, t, "expected integer literal for %s", dtype_name(dt));
  uint64_t v;
  if (!lexer_int_value(t->text, &v)) return parse_error_at(p, t, "integer literal out of range");
  unsigned w = dtype_bits(dt);
  if (dt == DT_I1) {
    if (neg ? v > 1 : v > 1) return parse_error_at(p, t, "integer literal out of range for i1");
    *bits = v;
    return NULL;
  }
  if (dtype_class(dt) == DTC_UINT) {
    if (neg && v) return parse_error_at(p, t, "negative literal for unsigned type %s", dtype_name(dt));
    if (w < 64 && v >> w) return parse_error_at(p, t, "integer literal out of range for %s", dtype_name(dt));
    *bits = v;
    return NULL;
  }
  /* Signless/signed: MLIR accepts values that fit either signed or unsigned. */
  if (neg) {
    unsigned long long lim = w >= 64 ? (1ull << 63) : (1ull << (w - 1));
    if (v > lim) return parse_error_at(p, t, "integer literal out of range for %s", dtype_name(dt));
    *bits = (uint64_t)(0 - v);
  } else {
    if (w < 64 && v >> w) return parse_error_at(p, t, "integer literal out of range for %s", dtype_name(dt));
    *bits = v;
  }
  if (w < 64) *bits &= (1ull << w) - 1;
  return NULL;
}

/* Stores `bits` (low bits significant) at storage width, sign-extending
 * signed sub-byte and narrow integers so loads see the real value. */
void store_bits(void *dst, shl_dtype dt, uint64_t bits);
void store_bits(void *dst, shl_dtype dt, uint64_t bits) {
  unsigned w = dtype_bits(dt);
  if (dtype_class(dt) == DTC_SINT && w < 64 && w < dtype_bytes(dt) * 8 && (bits >> (w - 1)) & 1)
    bits |= ~0ull << w;
  switch (dtype_bytes(dt)) {
    case 1: *(uint8_t *)dst = (uint8_t)bits; break;
    case 2: { uint16_t v = (uint16_t)bits; memcpy(dst, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)bits; memcpy(dst, &v, 4); break; }
    default: memcpy(dst, &bits, 8); break;
  }
}

/* array<T: v, ...> */
static shl_status dense_array(shl_parser *p, const shl_attr **out) {
  ST_TRY(p_expect(p, '<'));
  const shl_type *et;
  shl_token at = *p_tok(p);
  ST_TRY(p_type(p, &et));
  if (et->kind != TY_SCALAR || dtype_is_complex(et->dtype) || et->dtype == DT_QUANT)
    return parse_error_at(p, &at, "array<> element type must be an integer or float type");
  size_t sz = dtype_bytes(et->dtype), n = 0, cap = 0;
  uint8_t *data = NULL;
  if (p_punct(p, ':')) {
    for (;;) {
      bool neg = p_punct(p, '-');
      shl_token t = *p_tok(p);
      uint64_t bits;
      ST_TRY(literal_to_bits(p, &t, neg, et->dtype, &bits));
      p_next(p);
      if (n == cap) {
        size_t ncap = cap ? cap * 2 : 8;
        uint8_t *nd = arena_array(p->a, ncap, sz);
        if (!nd) return st_oom();
        if (n) memcpy(nd, data, n * sz);
        data = nd;
        cap = ncap;
      }
      store_bits(data + n * sz, et->dtype, bits);
      n++;
      if (!p_punct(p, ',')) break;
    }
  }
  ST_TRY(p_expect(p, '>'));
  shl_attr *a = new_attr(p, AT_DENSE_ARRAY);
  if (!a) return st_oom();
  a->type = et;
  a->u.darr.n = (int64_t)n;
  a->u.darr.data = data;
  *out = a;
  return NULL;
}

shl_status p_dict_items(shl_parser *p, shl_named_attr **items, uint32_t *n) {
  ST_TRY(p_expect(p, '{'));
  ST_TRY(p_nest_enter(p));
  uint32_t cap = 0;
  shl_named_attr *v = NULL;
  *n = 0;
  if (!p_punct(p, '}')) {
    for (;;) {
      shl_token t = *p_tok(p);
      shl_str name;
      if (t.kind == TK_BARE_ID) {
        name = t.text;
        p_next(p);
      } else if (t.kind == TK_STRING) {
        ST_TRY(p_string(p, &name));
      } else {
        return parse_error(p, "expected attribute name");
      }
      const shl_attr *val;
      if (p_punct(p, '=')) {
        ST_TRY(p_attr(p, &val));
      } else {
        shl_attr *u = new_attr(p, AT_UNIT);
        if (!u) return st_oom();
        val = u;
      }
      if (*n == cap) {
        uint32_t ncap = cap ? cap * 2 : 8;
        shl_named_attr *nv = ARENA_ARRAY(p->a, shl_named_attr, ncap);
        if (!nv) return st_oom();
        if (*n) memcpy(nv, v, *n * sizeof *nv);
        v = nv;
        cap = ncap;
      }
      v[(*n)++] = (shl_named_attr){name, val, false};
      if (p_punct(p, ',')) continue;
      ST_TRY(p_expect(p, '}'));
      break;
    }
  }
  uint32_t dup;
  if (!attrs_sort(v, *n, &dup)) return parse_error(p, "duplicate key '%.*s' in dictionary", (int)v[dup].name.n, v[dup].name.p);
  *items = v;
  p_nest_leave(p);
  return NULL;
}

/* conv dimension numbers: [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f] */
shl_status p_conv_dims(shl_parser *p, const shl_attr **out);
static shl_status conv_side(shl_parser *p, const char *letters, int64_t *pos_a, int64_t *pos_b, int64_t *spatial,
                            size_t *n_spatial) {
  ST_TRY(p_expect(p, '['));
  *pos_a = *pos_b = -1;
  int64_t idx = 0;
  size_t ns = 0;
  int64_t sp_buf[64];
  int64_t sp_pos[64];
  if (!p_punct(p, ']')) {
    for (;;) {
      shl_token t = *p_tok(p);
      if (idx >= 64) return parse_error(p, "too many convolution dimensions");
      if (t.kind == TK_INT) {
        int64_t d;
        ST_TRY(p_int(p, &d));
        if (d < 0 || d >= 64 || ns >= 64) return parse_error_at(p, &t, "bad spatial dimension index");
        sp_buf[ns] = d;
        sp_pos[ns++] = idx;
      } else if (t.kind == TK_BARE_ID && t.text.n == 1 && (t.text.p[0] == letters[0] || t.text.p[0] == letters[1])) {
        int64_t *slot = t.text.p[0] == letters[0] ? pos_a : pos_b;
        if (*slot >= 0) return parse_error_at(p, &t, "duplicate '%c' in convolution dimensions", t.text.p[0]);
        *slot = idx;
        p_next(p);
      } else {
        return parse_error_at(p, &t, "expected '%c', '%c' or a spatial index", letters[0], letters[1]);
      }
      idx++;
      if (p_punct(p, ',')) continue;
      ST_TRY(p_expect(p, ']'));
      break;
    }
  }
  if (*pos_a < 0 || *pos_b < 0) return parse_error(p, "convolution dimensions must name both '%c' and '%c'", letters[0], letters[1]);
  /* spatial[i] = position of spatial dim i */
  for (size_t i = 0; i < ns; i++) spatial[i] = -1;
  for (size_t i = 0; i < ns; i++) {
    if (sp_buf[i] >= (int64_t)ns || spatial[sp_buf[i]] >= 0) return parse_error(p, "spatial dimensions must be 0..%zu, each once", ns - 1);
    spatial[sp_buf[i]] = sp_pos[i];
  }
  *n_spatial = ns;
  return NULL;
}

/* Attribute text kept verbatim but written over several lines: on one
 * line, as MLIR prints it (line breaks and indentation outside string
 * literals dropped next to brackets and commas, a single space elsewhere). */
static shl_str one_line(shl_arena *a, shl_str t) {
  char *o = arena_alloc_uninit(a, t.n ? t.n : 1);
  if (!o) return (shl_str){NULL, 0};
  size_t n = 0;
  bool in_str = false;
  for (size_t i = 0; i < t.n; i++) {
    char c = t.p[i];
    if (in_str) {
      o[n++] = c;
      if (c == '\\' && i + 1 < t.n) o[n++] = t.p[++i];
      else if (c == '"') in_str = false;
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      size_t j = i;
      while (j < t.n && (t.p[j] == ' ' || t.p[j] == '\n' || t.p[j] == '\t' || t.p[j] == '\r')) j++;
      char prev = n ? o[n - 1] : '<', next = j < t.n ? t.p[j] : '>';
      if (!strchr("[<({", prev) && !strchr("]>)},", next)) o[n++] = ' ';
      i = j - 1;
      continue;
    }
    if (c == '"') in_str = true;
    o[n++] = c;
  }
  return (shl_str){o, n};
}

static shl_attr *int_field(shl_parser *p, int64_t v) { return attr_int(p->a, NULL, v); }
static shl_attr *list_field(shl_parser *p, const int64_t *v, size_t n) {
  shl_attr *a = new_attr(p, AT_INTLIST);
  if (!a) return NULL;
  a->u.ints.n = (uint32_t)n;
  a->u.ints.v = arena_memdup(p->a, v, n * sizeof *v);
  return a;
}

static const char *const conv_fields[9] = {
    "input_batch_dimension",          "input_feature_dimension",         "input_spatial_dimensions",
    "kernel_input_feature_dimension", "kernel_output_feature_dimension", "kernel_spatial_dimensions",
    "output_batch_dimension",         "output_feature_dimension",        "output_spatial_dimensions"};

/* #stablehlo.conv from each side's two named positions (batch and feature,
 * or input and output feature) and its spatial positions. */
static shl_status conv_struct(shl_parser *p, int64_t pos[3][2], int64_t sp[3][64], size_t ns, const shl_attr **out) {
  shl_named_attr *f = ARENA_ARRAY(p->a, shl_named_attr, 9);
  shl_attr *a = new_attr(p, AT_STRUCT);
  if (!f || !a) return st_oom();
  for (int s = 0; s < 3; s++) {
    const shl_attr *v[3] = {int_field(p, pos[s][0]), int_field(p, pos[s][1]), list_field(p, sp[s], ns)};
    for (int k = 0; k < 3; k++) {
      if (!v[k]) return st_oom();
      f[3 * s + k] = (shl_named_attr){str_of(conv_fields[3 * s + k]), v[k], false};
    }
  }
  a->u.st.name = str_of("stablehlo.conv");
  a->u.st.n = 9;
  a->u.st.fields = f;
  *out = a;
  return NULL;
}

shl_status p_conv_dims(shl_parser *p, const shl_attr **out) {
  int64_t pos[3][2], sp[3][64];
  size_t n[3];
  ST_TRY(conv_side(p, "bf", &pos[0][0], &pos[0][1], sp[0], &n[0]));
  if (!p_kw(p, "x")) return parse_error(p, "expected 'x' between convolution input and kernel dimensions");
  ST_TRY(conv_side(p, "io", &pos[1][0], &pos[1][1], sp[1], &n[1]));
  ST_TRY(p_expect_arrow(p));
  ST_TRY(conv_side(p, "bf", &pos[2][0], &pos[2][1], sp[2], &n[2]));
  if (n[0] != n[1] || n[0] != n[2]) return parse_error(p, "convolution input, kernel and output must have the same number of spatial dimensions");
  return conv_struct(p, pos, sp, n[0], out);
}

/* `raw name = value, ...` names the nine fields; it becomes the same
 * attribute as the compact form when they describe a layout (each side's
 * positions a permutation of its dimensions), else *out stays NULL. */
static shl_status conv_from_raw(shl_parser *p, const shl_attr *raw, const shl_attr **out) {
  int64_t pos[3][2], sp[3][64];
  size_t ns = 0;
  *out = NULL;
  if (raw->u.st.n != 9) return NULL;
  for (int s = 0; s < 3; s++) {
    size_t n;
    if (!attr_as_int(attr_struct_field(raw, conv_fields[3 * s]), &pos[s][0]) ||
        !attr_as_int(attr_struct_field(raw, conv_fields[3 * s + 1]), &pos[s][1]) ||
        !attr_as_ints(attr_struct_field(raw, conv_fields[3 * s + 2]), sp[s], 64, &n) || n > 64 || (s && n != ns))
      return NULL;
    ns = n;
    bool seen[66] = {false};
    for (size_t i = 0; i < n + 2; i++) {
      int64_t d = i < 2 ? pos[s][i] : sp[s][i - 2];
      if (d < 0 || d >= (int64_t)n + 2 || seen[d]) return NULL;
      seen[d] = true;
    }
  }
  return conv_struct(p, pos, sp, ns, out);
}

/* `key = value, ...` inside #dialect.name<...>; fails (without side effects
 * beyond the arena) when the body has another shape. */
static shl_status struct_fields(shl_parser *p, shl_attr *a) {
  uint32_t cap = 0, n = 0;
  shl_named_attr *v = NULL;
  if (!tok_punct(p_tok(p), '>')) {
    for (;;) {
      shl_token t = *p_tok(p);
      if (t.kind != TK_BARE_ID) return parse_error(p, "expected field name");
      p_next(p);
      ST_TRY(p_expect(p, '='));
      const shl_attr *val;
      shl_token vt = *p_tok(p);
      if (tok_punct(&vt, '[')) ST_TRY(p_int_list(p, false, &val));
      else ST_TRY(p_attr(p, &val));
      if (n == cap) {
        uint32_t ncap = cap ? cap * 2 : 8;
        shl_named_attr *nv = ARENA_ARRAY(p->a, shl_named_attr, ncap);
        if (!nv) return st_oom();
        if (n) memcpy(nv, v, n * sizeof *nv);
        v = nv;
        cap = ncap;
      }
      v[n++] = (shl_named_attr){t.text, val, false};
      if (!p_punct(p, ',')) break;
    }
  }
  ST_TRY(p_expect(p, '>'));
  a->u.st.n = n;
  a->u.st.fields = v;
  return NULL;
}

/* #alias: a name an `#alias = ...` line defined earlier. */
static shl_status alias_attr(shl_parser *p, const shl_token *t, const shl_attr **out) {
  const shl_attr *a = strmap_get(&p->attr_aliases, t->text);
  if (!a) return parse_error(p, "undefined attribute alias '%.*s'", (int)t->text.n, t->text.p);
  p_next(p);
  *out = a;
  return NULL;
}

/* ---- structured bodies: p is past the '<'; *out stays NULL for a body of
 * another shape (the attribute is then kept verbatim), and p->lx is `after`
 * (past the closing '>') when one is read ---- */

/* #stablehlo<enum_name VALUE> */
static shl_status enum_body(shl_parser *p, shl_str dialect, const shl_lexer *after, const shl_attr **out) {
  shl_token k = *p_tok(p);
  if (k.kind != TK_BARE_ID) return NULL;
  p_next(p);
  shl_token v = *p_tok(p);
  if (v.kind != TK_BARE_ID) return NULL;
  p_next(p);
  if (!tok_punct(p_tok(p), '>')) return NULL;
  p->lx = *after;
  shl_attr *a = new_attr(p, AT_ENUM);
  if (!a) return st_oom();
  a->u.en.dialect = dialect;
  a->u.en.name = k.text;
  a->u.en.value = v.text;
  *out = a;
  return NULL;
}

/* #stablehlo.name<field = value, ...> */
static shl_status struct_body(shl_parser *p, shl_str dialect, const shl_lexer *after, const shl_attr **out) {
  shl_attr *a = new_attr(p, AT_STRUCT);
  if (!a) return st_oom();
  a->u.st.name = dialect;
  shl_status st = struct_fields(p, a);
  if (!st && p->lx.p == after->p) *out = a;
  shloc_status_free(st);
  return NULL;
}

/* #stablehlo.conv<[b, 0, 1, f]x[...]->[...]> or <raw field = ...>; other
 * conv bodies stay verbatim. */
static shl_status conv_body(shl_parser *p, shl_str dialect, const shl_lexer *after, const shl_attr **out) {
  const shl_attr *c = NULL;
  shl_status st;
  if (tok_punct(p_tok(p), '[')) {
    st = p_conv_dims(p, &c);
    if (!st && !tok_punct(p_tok(p), '>')) c = NULL;
  } else if (p_kw(p, "raw")) {
    shl_attr *a = new_attr(p, AT_STRUCT);
    if (!a) return st_oom();
    a->u.st.name = dialect;
    st = struct_fields(p, a);
    if (!st) st = conv_from_raw(p, a, &c);
  } else {
    return NULL;
  }
  if (!st && c) {
    p->lx = *after;
    *out = c;
  }
  shloc_status_free(st);
  return NULL;
}

/* The dialect attributes shloc reads structurally: Shardy's (and printed
 * canonically), and StableHLO/CHLO/MHLO enums and structs.  p->lx is
 * `saved` (at the #name token) on entry. */
static shl_status structured_body(shl_parser *p, const shl_token *t, shl_str dialect, const shl_lexer *after,
                                  const shl_attr **out) {
  if (str_starts(dialect, "sdy")) {
    ST_TRY(sdy_parse_hash_attr(p, out));
    if (*out && p->lx.p != after->p)
      return parse_error(p, "unexpected text at the end of '%.*s'", (int)t->text.n, t->text.p);
    return NULL;
  }
  if (!str_starts(dialect, "stablehlo") && !str_starts(dialect, "chlo") && !str_starts(dialect, "mhlo")) return NULL;
  p_next(p); /* the #name token */
  p_next(p); /* '<' */
  if (!memchr(dialect.p, '.', dialect.n)) return enum_body(p, dialect, after, out);
  if (!str_eq_c(dialect, "stablehlo.conv")) return struct_body(p, dialect, after, out);
  return conv_body(p, dialect, after, out);
}

/* #dialect<...> / #dialect.name<...> / #alias */
static shl_status hash_attr(shl_parser *p, const shl_attr **out) {
  shl_token t = *p_tok(p);
  shl_lexer saved = p->lx;
  bool has_body = p->lx.p < p->lx.end && *p->lx.p == '<';
  if (!has_body && !memchr(t.text.p, '.', t.text.n)) return alias_attr(p, &t, out);
  p_next(p);
  shl_str body = {t.text.p + t.text.n, 0};
  if (has_body) ST_TRY(p_balanced(p, '<', &body));
  shl_str full = {t.text.p, (size_t)(body.p + body.n - t.text.p)};
  if (has_body) {
    /* Brackets were checked above; a body that does not read structurally
     * stays verbatim. */
    shl_lexer after = p->lx;
    uint32_t depth = p->depth;
    const shl_attr *a = NULL;
    p->lx = saved;
    ST_TRY(structured_body(p, &t, (shl_str){t.text.p + 1, t.text.n - 1}, &after, &a));
    if (a) {
      *out = a;
      return NULL;
    }
    p->lx = after;
    p->depth = depth;
  }
  shl_attr *a = new_attr(p, AT_OPAQUE);
  if (!a) return st_oom();
  a->u.str = full;
  if (memchr(full.p, '\n', full.n) && !(a->u.str = one_line(p->a, full)).p) return st_oom();
  *out = a;
  return NULL;
}

static shl_status typed_suffix(shl_parser *p, const shl_type **ty) {
  *ty = NULL;
  if (!tok_punct(p_tok(p), ':')) return NULL;
  p_next(p);
  return p_type(p, ty);
}

/* ---- one parser per attribute form; p_attr dispatches on the first token ---- */

/* *out = a, or out of memory when a could not be allocated. */
static shl_status attr_done(const shl_attr *a, const shl_attr **out) {
  if (!a) return st_oom();
  *out = a;
  return NULL;
}

static shl_status bool_attr(shl_parser *p, const shl_attr **out) {
  bool v = str_eq_c(p_tok(p)->text, "true");
  p_next(p);
  return attr_done(attr_bool(p->a, v), out);
}

static shl_status unit_attr(shl_parser *p, const shl_attr **out) {
  p_next(p);
  return attr_done(new_attr(p, AT_UNIT), out);
}

static shl_status dense_attr(shl_parser *p, const shl_attr **out) {
  p_next(p);
  return p_dense(p, out);
}

static shl_status dense_array_attr(shl_parser *p, const shl_attr **out) {
  p_next(p);
  return dense_array(p, out);
}

/* `inf : f32`, `nan : f64` */
static shl_status float_word_attr(shl_parser *p, const shl_attr **out) {
  shl_token t = *p_tok(p);
  p_next(p);
  const shl_type *ty;
  ST_TRY(typed_suffix(p, &ty));
  if (!ty || ty->kind != TY_SCALAR || !dtype_is_float(ty->dtype))
    return parse_error_at(p, &t, "'%.*s' needs a float type", (int)t.text.n, t.text.p);
  shl_attr *a = new_attr(p, AT_FLOAT);
  if (!a) return st_oom();
  a->type = ty;
  ST_TRY(literal_to_bits(p, &t, false, ty->dtype, &a->u.f_bits));
  *out = a;
  return NULL;
}

/* Builtin attributes shloc keeps as text: `word<...>` with an optional type. */
static shl_status verbatim_attr(shl_parser *p, const shl_attr **out) {
  const char *start = p_tok(p)->text.p;
  p_next(p);
  shl_str body;
  ST_TRY(p_balanced(p, '<', &body));
  const shl_type *ty;
  ST_TRY(typed_suffix(p, &ty));
  shl_attr *a = new_attr(p, AT_OPAQUE);
  if (!a) return st_oom();
  a->u.str = (shl_str){start, (size_t)(body.p + body.n - start)};
  a->type = ty;
  *out = a;
  return NULL;
}

/* A type used as an attribute (`f32`, `tensor<...>`, `!dialect.t`, `(...) -> ...`). */
static shl_status type_attr(shl_parser *p, const shl_attr **out) {
  const shl_type *ty;
  ST_TRY(p_type(p, &ty));
  shl_attr *a = new_attr(p, AT_TYPE);
  if (!a) return st_oom();
  a->type = ty;
  *out = a;
  return NULL;
}

typedef shl_status (*attr_form_fn)(shl_parser *p, const shl_attr **out);

static const struct {
  const char *word;
  attr_form_fn parse;
} keyword_forms[] = {
  {"true", bool_attr},
  {"false", bool_attr},
  {"unit", unit_attr},
  {"dense", dense_attr},
  {"array", dense_array_attr},
  {"inf", float_word_attr},
  {"nan", float_word_attr},
  {"dense_resource", verbatim_attr},
  {"sparse", verbatim_attr},
  {"affine_map", verbatim_attr},
  {"affine_set", verbatim_attr},
  {"distinct", verbatim_attr},
  {"strided", verbatim_attr},
};

/* A bare word: a keyword form, else a type. */
static shl_status keyword_attr(shl_parser *p, const shl_attr **out) {
  shl_str w = p_tok(p)->text;
  for (size_t i = 0; i < sizeof keyword_forms / sizeof *keyword_forms; i++)
    if (str_eq_c(w, keyword_forms[i].word)) return keyword_forms[i].parse(p, out);
  return type_attr(p, out);
}

static shl_status float_attr(shl_parser *p, const shl_token *num, bool neg, const shl_type *ty, const shl_attr **out) {
  if (!ty) {
    static const shl_type f64_type = {.kind = TY_SCALAR, .dtype = DT_F64};
    ty = &f64_type;
  }
  if (!dtype_is_float(ty->dtype)) return parse_error_at(p, num, "floating point literal for non-float type");
  shl_attr *a = new_attr(p, AT_FLOAT);
  if (!a) return st_oom();
  a->type = ty;
  ST_TRY(literal_to_bits(p, num, neg, ty->dtype, &a->u.f_bits));
  *out = a;
  return NULL;
}

static shl_status int_attr(shl_parser *p, const shl_token *num, bool neg, const shl_type *ty, const shl_attr **out) {
  shl_dtype dt = ty ? ty->dtype : DT_I64;
  uint64_t bits;
  ST_TRY(literal_to_bits(p, num, neg, dt, &bits));
  /* Keep the value sign-extended for signed types so comparisons see it. */
  int64_t v = (int64_t)bits;
  unsigned w = dtype_bits(dt);
  if (dtype_class(dt) == DTC_SINT && w < 64 && (bits >> (w - 1)) & 1) v = (int64_t)(bits | (~0ull << w));
  /* `1 : i1` is the boolean true, as in MLIR (and it prints as `true`). */
  return attr_done(dt == DT_I1 ? attr_bool(p->a, bits & 1) : attr_int(p->a, ty, v), out);
}

/* `[-]number [: type]`: a float when the literal or the type says so. */
static shl_status number_attr(shl_parser *p, const shl_attr **out) {
  bool neg = p_punct(p, '-');
  shl_token num = *p_tok(p);
  if (num.kind != TK_INT && num.kind != TK_FLOAT && !(num.kind == TK_BARE_ID && str_eq_c(num.text, "inf")))
    return parse_error(p, "expected number after '-'");
  p_next(p);
  const shl_type *ty;
  ST_TRY(typed_suffix(p, &ty));
  if (ty && (ty->kind != TY_SCALAR || !(dtype_is_int(ty->dtype) || dtype_is_float(ty->dtype))))
    return parse_error_at(p, &num, "numeric attribute needs an integer or float type");
  bool is_float = num.kind == TK_FLOAT || num.kind == TK_BARE_ID || (ty && dtype_is_float(ty->dtype));
  return is_float ? float_attr(p, &num, neg, ty, out) : int_attr(p, &num, neg, ty, out);
}

static shl_status string_attr(shl_parser *p, const shl_attr **out) {
  shl_str s;
  ST_TRY(p_string(p, &s));
  const shl_type *ty;
  ST_TRY(typed_suffix(p, &ty));
  shl_attr *a = new_attr(p, AT_STRING);
  if (!a) return st_oom();
  a->u.str = s;
  a->type = ty;
  *out = a;
  return NULL;
}

/* `[a, b, ...]` */
static shl_status array_attr(shl_parser *p, const shl_attr **out) {
  p_next(p);
  uint32_t n = 0, cap = 0;
  const shl_attr **items = NULL;
  if (!p_punct(p, ']')) {
    do {
      const shl_attr *it;
      ST_TRY(p_attr(p, &it));
      if (n == cap) {
        uint32_t ncap = cap ? cap * 2 : 8;
        const shl_attr **ni = ARENA_ARRAY(p->a, const shl_attr *, ncap);
        if (!ni) return st_oom();
        if (n) memcpy(ni, items, n * sizeof *ni);
        items = ni;
        cap = ncap;
      }
      items[n++] = it;
    } while (p_punct(p, ','));
    ST_TRY(p_expect(p, ']'));
  }
  shl_attr *a = new_attr(p, AT_ARRAY);
  if (!a) return st_oom();
  a->u.arr.n = n;
  a->u.arr.items = items;
  *out = a;
  return NULL;
}

static shl_status dict_attr(shl_parser *p, const shl_attr **out) {
  shl_named_attr *items;
  uint32_t n;
  ST_TRY(p_dict_items(p, &items, &n));
  shl_attr *a = new_attr(p, AT_DICT);
  if (!a) return st_oom();
  a->u.dict.n = n;
  a->u.dict.items = items;
  *out = a;
  return NULL;
}

/* `@name` or nested `@a::@b`; the root name unescaped. */
static shl_status symref_attr(shl_parser *p, const shl_attr **out) {
  shl_token t = *p_tok(p);
  const char *end = t.text.p + t.text.n;
  p_next(p);
  while (tok_punct(p_tok(p), ':') && p->lx.p < p->lx.end && *p->lx.p == ':') {
    p_next(p);
    p_next(p);
    if (p_tok(p)->kind != TK_AT_ID) return parse_error(p, "expected '@' after '::'");
    end = p_tok(p)->text.p + p_tok(p)->text.n;
    p_next(p);
  }
  shl_attr *a = new_attr(p, AT_SYMREF);
  if (!a) return st_oom();
  a->u.sym.text = (shl_str){t.text.p, (size_t)(end - t.text.p)};
  shl_str root = {t.text.p + 1, t.text.n - 1};
  if (root.n && root.p[0] == '"') {
    char *buf = arena_alloc(p->a, root.n);
    long n = buf ? lexer_decode_string(root, buf) : -1;
    if (n < 0) return buf ? parse_error_at(p, &t, "invalid escape in symbol name") : st_oom();
    root = (shl_str){buf, (size_t)n};
  }
  a->u.sym.root = root;
  *out = a;
  return NULL;
}

static shl_status attr_form(shl_parser *p, const shl_attr **out) {
  const shl_token *t = p_tok(p);
  if (t->kind == TK_BARE_ID) return keyword_attr(p, out);
  if (t->kind == TK_INT || t->kind == TK_FLOAT || tok_punct(t, '-')) return number_attr(p, out);
  if (t->kind == TK_STRING) return string_attr(p, out);
  if (tok_punct(t, '[')) return array_attr(p, out);
  if (tok_punct(t, '{')) return dict_attr(p, out);
  if (t->kind == TK_AT_ID) return symref_attr(p, out);
  if (t->kind == TK_HASH_ID) return hash_attr(p, out);
  if (t->kind == TK_BANG_ID || tok_punct(t, '(')) return type_attr(p, out);
  return parse_error(p, "expected attribute value");
}

shl_status p_attr(shl_parser *p, const shl_attr **out) {
  ST_TRY(p_nest_enter(p));
  shl_status st = attr_form(p, out);
  p_nest_leave(p);
  return st;
}

const shl_attr *make_enum(shl_parser *p, const char *dialect, const char *name, shl_str value) {
  shl_attr *a = new_attr(p, AT_ENUM);
  if (!a) return NULL;
  a->u.en.dialect = str_of(dialect);
  a->u.en.name = str_of(name);
  a->u.en.value = value;
  return a;
}
