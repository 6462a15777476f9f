/* Types: tensor<...>, element types, complex, tuple, function types,
 * !stablehlo.token, !quant.uniform<...>, aliases and opaque dialect types. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>

#include "parser.h"
#include "quant_text.h"

static shl_type *new_type(shl_parser *p, shl_type_kind k) {
  shl_type *t = ARENA_NEW(p->a, shl_type);
  if (t) t->kind = k;
  return t;
}

/* Skips blanks in [s, end). */
static const char *q_blank(const char *s, const char *end) {
  while (s < end && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')) s++;
  return s;
}

/* A decimal integer with an optional sign; NULL when there is none or it overflows. */
static const char *q_int(const char *s, const char *end, int64_t *out) {
  bool neg = s < end && (*s == '-' || *s == '+') ? *s++ == '-' : false;
  if (s >= end || !isdigit((unsigned char)*s)) return NULL;
  uint64_t v = 0;
  for (; s < end && isdigit((unsigned char)*s); s++) {
    if (v > (UINT64_MAX - 9) / 10) return NULL;
    v = v * 10 + (uint64_t)(*s - '0');
  }
  if (v > (uint64_t)INT64_MAX + neg) return NULL;
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return s;
}

/* A float literal (decimal or 0x hex bits of an f64, as MLIR prints scales). */
static const char *q_float(const char *s, const char *end, double *out) {
  const char *e = s;
  while (e < end && (isalnum((unsigned char)*e) || *e == '.' || *e == '-' || *e == '+')) e++;
  char buf[64];
  size_t n = (size_t)(e - s);
  if (!n || n >= sizeof buf) return NULL;
  memcpy(buf, s, n);
  buf[n] = 0;
  char *stop;
  if (n > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) {
    uint64_t bits = strtoull(buf + 2, &stop, 16);
    if (*stop) return NULL;
    memcpy(out, &bits, sizeof bits);
  } else {
    *out = strtod(buf, &stop);
    if (*stop) return NULL;
  }
  return e;
}

/* Storage type: iN / siN / uiN (the spec's names) or uN (MLIR quant's name
 * for unsigned), 2 to 32 bits wide. */
static shl_dtype q_storage(const char *s, size_t n) {
  char buf[8];
  if (n >= 2 && n < 5 && s[0] == 'u' && isdigit((unsigned char)s[1])) {
    buf[0] = 'u';
    buf[1] = 'i';
    memcpy(buf + 2, s + 1, n - 1);
    s = buf;
    n++;
  }
  shl_dtype dt = dtype_from_name(s, n);
  if (!dt || !dtype_is_int(dt) || dtype_class(dt) == DTC_BOOL || dtype_bits(dt) > 32) return DT_INVALID;
  return dt;
}

/* !quant.uniform<storage[<min:max>]:expressed[:axis], scale[:zp] | {scale[:zp], ...}>
 * with the spec's constraints on quantized element types (C1-C11). */
static shl_status quant_type(shl_parser *p, shl_str text, shl_quant **out) {
  shl_quant *q = ARENA_NEW(p->a, shl_quant);
  if (!q) return st_oom();
  /* Stored in MLIR's canonical spelling, so that equal types print alike. */
  if (!quant_canonical(p->a, text, &q->text)) q->text = text;
  q->axis = -1;
  const char *s = text.p + strlen("!quant.uniform<"), *end = text.p + text.n - 1; /* before '>' */
  if (end < s) return parse_error(p, "bad quantized type");
  s = q_blank(s, end);
  const char *e = s;
  while (e < end && isalnum((unsigned char)*e)) e++;
  q->storage = q_storage(s, (size_t)(e - s));
  if (!q->storage)
    return parse_error(p, "quantized type: storage type must be an integer type of 2 to 32 bits, got '%.*s'",
                       (int)(e - s), s);
  bool is_signed = dtype_class(q->storage) == DTC_SINT;
  unsigned bits = dtype_bits(q->storage);
  int64_t tmin = is_signed ? -((int64_t)1 << (bits - 1)) : 0;
  int64_t tmax = is_signed ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
  q->storage_min = tmin;
  q->storage_max = tmax;
  s = q_blank(e, end);
  if (s < end && *s == '<') {
    s = q_int(q_blank(s + 1, end), end, &q->storage_min);
    if (s) s = q_blank(s, end);
    if (!s || s >= end || *s != ':') return parse_error(p, "quantized type: expected '<min:max>' storage range");
    s = q_int(q_blank(s + 1, end), end, &q->storage_max);
    if (s) s = q_blank(s, end);
    if (!s || s >= end || *s != '>') return parse_error(p, "quantized type: expected '<min:max>' storage range");
    s = q_blank(s + 1, end);
    if (q->storage_min < tmin || q->storage_max > tmax || q->storage_min >= q->storage_max)
      return parse_error(p, "quantized type: storage range [%lld, %lld] must lie within [%lld, %lld] with min < max",
                         (long long)q->storage_min, (long long)q->storage_max, (long long)tmin, (long long)tmax);
  }
  if (s >= end || *s != ':') return parse_error(p, "quantized type: expected ':' before the expressed type");
  s = q_blank(s + 1, end);
  e = s;
  while (e < end && isalnum((unsigned char)*e)) e++;
  q->expressed = dtype_from_name(s, (size_t)(e - s));
  if (!q->expressed || !dtype_is_float(q->expressed))
    return parse_error(p, "quantized type: expressed type must be a floating-point type, got '%.*s'", (int)(e - s), s);
  s = q_blank(e, end);
  if (s < end && *s == ':') {
    int64_t axis;
    s = q_int(q_blank(s + 1, end), end, &axis);
    if (!s || axis < 0 || axis > INT32_MAX) return parse_error(p, "quantized type: bad quantization dimension");
    q->axis = (int32_t)axis;
    s = q_blank(s, end);
  }
  if (s >= end || *s != ',') return parse_error(p, "quantized type: expected ',' before the scales");
  s = q_blank(s + 1, end);
  bool braced = s < end && *s == '{';
  if (braced) s++;
  uint32_t cap = 1;
  for (const char *c = s; c < end; c++) cap += *c == ',';
  double *scales = ARENA_ARRAY(p->a, double, cap);
  int64_t *zps = ARENA_ARRAY(p->a, int64_t, cap);
  if (!scales || !zps) return st_oom();
  uint32_t n = 0;
  for (;;) {
    s = q_blank(s, end);
    s = s < end ? q_float(s, end, &scales[n]) : NULL;
    if (!s) return parse_error(p, "quantized type: expected a scale");
    s = q_blank(s, end);
    zps[n] = 0;
    if (s < end && *s == ':') {
      s = q_int(q_blank(s + 1, end), end, &zps[n]);
      if (!s) return parse_error(p, "quantized type: expected an integer zero point");
      s = q_blank(s, end);
    }
    if (!(scales[n] > 0) || !isfinite(scales[n]))
      return parse_error(p, "quantized type: scale #%u must be positive and finite", n);
    if (zps[n] < q->storage_min || zps[n] > q->storage_max)
      return parse_error(p, "quantized type: zero point %lld lies outside the storage range [%lld, %lld]",
                         (long long)zps[n], (long long)q->storage_min, (long long)q->storage_max);
    n++;
    if (!braced || s >= end || *s != ',') break;
    s++;
  }
  if (braced) {
    if (s >= end || *s != '}') return parse_error(p, "quantized type: expected '}' after the scales");
    s = q_blank(s + 1, end);
  }
  if (s != end) return parse_error(p, "quantized type: unexpected '%c'", *s);
  if (q->axis < 0 && n != 1) return parse_error(p, "quantized type: per-tensor quantization takes one scale");
  q->n_scales = n;
  q->scales = scales;
  q->zero_points = zps;
  *out = q;
  return NULL;
}

static shl_status element_after_prefix(shl_parser *p, const shl_type **out);

/* True for `affine_map<(d0, d1) -> (d0, d1)>`: the identity layout, which
 * MLIR drops from memref types. */
static bool affine_identity(const shl_attr *a) {
  if (a->kind != AT_OPAQUE || a->type || !str_starts(a->u.str, "affine_map<(")) return false;
  char buf[256];
  size_t n = 0;
  for (size_t i = 0; i < a->u.str.n; i++) {
    if (a->u.str.p[i] == ' ') continue;
    if (n + 1 >= sizeof buf) return false;
    buf[n++] = a->u.str.p[i];
  }
  buf[n] = 0;
  const char *dims = buf + strlen("affine_map<("), *close = strchr(dims, ')');
  if (!close) return false;
  size_t k = (size_t)(close - dims);
  return strncmp(close, ")->(", 4) == 0 && strncmp(close + 4, dims, k) == 0 && strcmp(close + 4 + k, ")>") == 0;
}

/* `, layout` and/or `, memory space` of a memref type, kept as MLIR keeps
 * them: an identity affine map and the default space 0 are dropped. */
static shl_status memref_tail(shl_parser *p, shl_type *t) {
  for (int i = 0; i < 2 && p_punct(p, ','); i++) {
    shl_token at = *p_tok(p);
    const shl_attr *a;
    ST_TRY(p_attr(p, &a));
    bool layout = a->kind == AT_OPAQUE && (str_starts(a->u.str, "affine_map<") || str_starts(a->u.str, "strided<"));
    if (layout && (i || t->rank < 0)) return parse_error_at(p, &at, "a memref layout must come before its memory space");
    if (layout) t->encoding = affine_identity(a) ? NULL : a;
    else {
      t->memspace = a->kind == AT_INT && !a->type && a->u.i == 0 ? NULL : a;
      break;
    }
  }
  return NULL;
}

/* Scans "2x?x3x" directly from the characters after "tensor<" / "memref<". */
static shl_status tensor_type(shl_parser *p, shl_type_kind kind, const shl_type **out) {
  shl_lexer *lx = &p->lx;
  shl_token at = lx->tok; /* 'tensor' */
  const char *c = lx->p, *end = lx->end;
  if (c >= end || *c != '<') return parse_error(p, "expected '<' after '%s'", kind == TY_MEMREF ? "memref" : "tensor");
  c++;
  int64_t dims_buf[16], *dims = dims_buf;
  int32_t rank = 0, cap = 16;
  bool unranked = false;
  uint64_t count = 1;
  bool overflow = false;
  for (;;) {
    while (c < end && (*c == ' ')) c++;
    int64_t d;
    if (c < end && *c == '*' && rank == 0) {
      unranked = true;
      c++;
    } else if (c < end && *c == '?') {
      d = SHL_DYN;
      c++;
    } else if (c < end && isdigit((unsigned char)*c)) {
      const char *q = c;
      d = 0;
      while (q < end && isdigit((unsigned char)*q)) {
        if (d > (INT64_MAX - 9) / 10) {
          lexer_seek(lx, c, lx->line, lx->line_start);
          return parse_error(p, "dimension size too large");
        }
        d = d * 10 + (*q - '0');
        q++;
      }
      /* Digits not followed by 'x' are not a dimension (e.g. an element type can't start with a digit). */
      if (q >= end || *q != 'x') break;
      c = q;
    } else {
      break;
    }
    if (c >= end || *c != 'x') {
      lexer_seek(lx, c, lx->line, lx->line_start);
      return parse_error(p, "expected 'x' in dimension list");
    }
    c++;
    if (unranked) break;
    if (rank == cap) {
      int64_t *nd = ARENA_ARRAY(p->a, int64_t, (size_t)cap * 2);
      if (!nd) return st_oom();
      memcpy(nd, dims, (size_t)rank * sizeof *nd);
      dims = nd;
      cap *= 2;
    }
    if (rank >= 4096) return parse_error(p, "tensor rank too large");
    dims[rank++] = d;
    if (d >= 0) {
      if (d && count > UINT64_MAX / (uint64_t)d) overflow = true;
      else count *= (uint64_t)d;
    }
  }
  lexer_seek(lx, c, lx->line, lx->line_start);
  if (overflow || count > p->limits->max_elements)
    return st_error(SHLOC_ERR_LIMIT, &(shl_srcpos){lx->file, at.line, at.col}, NULL,
                    "tensor type has more elements than the limit of %llu",
                    (unsigned long long)p->limits->max_elements);
  const shl_type *elem;
  ST_TRY(element_after_prefix(p, &elem));
  shl_type *t = new_type(p, kind);
  if (!t) return st_oom();
  t->dtype = elem->dtype;
  t->quant = elem->quant;
  t->rank = unranked ? -1 : rank;
  if (rank > 0 && !unranked) {
    int64_t *d = ARENA_ARRAY(p->a, int64_t, (size_t)rank);
    if (!d) return st_oom();
    memcpy(d, dims, (size_t)rank * sizeof *d);
    t->dims = d;
  }
  const shl_quant *q = elem->quant;
  if (q && q->axis >= 0 && !unranked) {
    if (q->axis >= rank)
      return parse_error(p, "quantization dimension %d is out of range for a tensor of rank %d", q->axis, rank);
    if (t->dims[q->axis] >= 0 && t->dims[q->axis] != (int64_t)q->n_scales)
      return parse_error(p, "dimension %d has size %lld but the quantized type has %u scales", q->axis,
                         (long long)t->dims[q->axis], q->n_scales);
  }
  if (kind == TY_MEMREF) {
    ST_TRY(memref_tail(p, t));
  } else if (p_punct(p, ',')) {
    const shl_attr *enc;
    ST_TRY(p_attr(p, &enc));
    t->encoding = enc;
  }
  ST_TRY(p_expect(p, '>'));
  *out = t;
  return NULL;
}

static shl_status element_after_prefix(shl_parser *p, const shl_type **out) {
  shl_token at = *p_tok(p);
  const shl_type *t;
  ST_TRY(p_type(p, &t));
  if (t->kind != TY_SCALAR) return parse_error_at(p, &at, "expected element type");
  *out = t;
  return NULL;
}

/* tuple<...>, or !stablehlo.future<...> (a tuple of the values it will hold). */
static shl_status tuple_type(shl_parser *p, bool future, const shl_type **out) {
  ST_TRY(p_expect(p, '<'));
  shl_type *t = new_type(p, TY_TUPLE);
  if (!t) return st_oom();
  t->future = future;
  if (!p_punct(p, '>')) {
    const shl_type **ts;
    ST_TRY(p_type_list(p, &ts, &t->n_in));
    t->in = ts;
    ST_TRY(p_expect(p, '>'));
  }
  *out = t;
  return NULL;
}

static shl_status function_type(shl_parser *p, const shl_type **out) {
  ST_TRY(p_expect(p, '('));
  shl_type *t = new_type(p, TY_FUNCTION);
  if (!t) return st_oom();
  if (!p_punct(p, ')')) {
    const shl_type **ts;
    ST_TRY(p_type_list(p, &ts, &t->n_in));
    t->in = ts;
    ST_TRY(p_expect(p, ')'));
  }
  ST_TRY(p_expect_arrow(p));
  if (p_punct(p, '(')) {
    if (!p_punct(p, ')')) {
      const shl_type **ts;
      ST_TRY(p_type_list(p, &ts, &t->n_out));
      t->out = ts;
      ST_TRY(p_expect(p, ')'));
    }
  } else {
    const shl_type **one = ARENA_ARRAY(p->a, const shl_type *, 1);
    if (!one) return st_oom();
    ST_TRY(p_type(p, &one[0]));
    t->out = one;
    t->n_out = 1;
  }
  *out = t;
  return NULL;
}

/* The text of the whole `tensor<...>` when it holds only dimensions and a
 * plain element type (no encoding, complex or quantized element); else empty. */
static shl_str simple_tensor_text(const shl_lexer *lx) {
  const char *c = lx->p, *end = lx->end;
  if (c >= end || *c != '<') return (shl_str){NULL, 0};
  for (c++; c < end; c++) {
    unsigned char u = (unsigned char)*c;
    if (!((unsigned)((u | 0x20) - 'a') < 26 || (unsigned)(u - '0') < 10 || u == '?' || u == '*')) break;
  }
  if (c >= end || *c != '>') return (shl_str){NULL, 0};
  return (shl_str){lx->tok.text.p, (size_t)(c + 1 - lx->tok.text.p)};
}

/* tensor<...>; the simple forms are shared per spelling, since programs
 * repeat a few types thousands of times. */
static shl_status tensor_type_shared(shl_parser *p, const shl_type **out) {
  shl_str key = simple_tensor_text(&p->lx);
  if (!key.p) return tensor_type(p, TY_TENSOR, out);
  if (!p->tensor_types.arena) strmap_init(&p->tensor_types, p->a); /* the parser starts zeroed */
  const shl_type *t = str_eq(key, p->last_tensor_text) ? p->last_tensor : strmap_get(&p->tensor_types, key);
  if (t) {
    p->last_tensor_text = key;
    p->last_tensor = t;
    lexer_seek(&p->lx, key.p + key.n, p->lx.line, p->lx.line_start);
    *out = t;
    return NULL;
  }
  ST_TRY(tensor_type(p, TY_TENSOR, out));
  return strmap_put(&p->tensor_types, key, (void *)*out) ? NULL : st_oom();
}

shl_status p_type(shl_parser *p, const shl_type **out) {
  shl_token t = *p_tok(p);
  ST_TRY(p_nest_enter(p));
  shl_status st = NULL;
  if (t.kind == TK_BARE_ID) {
    shl_dtype dt;
    if (str_eq_c(t.text, "tensor")) {
      st = tensor_type_shared(p, out);
    } else if (str_eq_c(t.text, "memref")) {
      st = tensor_type(p, TY_MEMREF, out);
    } else if ((dt = dtype_from_name(t.text.p, t.text.n))) {
      p_next(p);
      if (!p->scalar_types[dt]) {
        shl_type *ty = new_type(p, TY_SCALAR);
        if (ty) ty->dtype = dt;
        p->scalar_types[dt] = ty;
      }
      if (!(*out = p->scalar_types[dt])) st = st_oom();
    } else if (str_eq_c(t.text, "complex")) {
      p_next(p);
      const shl_type *e;
      if (!(st = p_expect(p, '<')) && !(st = element_after_prefix(p, &e)) && !(st = p_expect(p, '>'))) {
        if (e->dtype != DT_F32 && e->dtype != DT_F64) {
          st = parse_error_at(p, &t, "only complex<f32> and complex<f64> are supported");
        } else {
          shl_type *ty = new_type(p, TY_SCALAR);
          if (!ty) st = st_oom();
          else ty->dtype = e->dtype == DT_F32 ? DT_C64 : DT_C128;
          *out = ty;
        }
      }
    } else if (str_eq_c(t.text, "tuple")) {
      p_next(p);
      st = tuple_type(p, false, out);
    } else if (str_eq_c(t.text, "none")) {
      p_next(p);
      shl_type *ty = new_type(p, TY_NONE);
      if (!ty) st = st_oom();
      *out = ty;
    } else {
      st = parse_error(p, "unknown type '%.*s'", (int)t.text.n, t.text.p);
    }
  } else if (t.kind == TK_BANG_ID) {
    if (str_eq_c(t.text, "!stablehlo.token")) {
      p_next(p);
      shl_type *ty = new_type(p, TY_TOKEN);
      if (!ty) st = st_oom();
      *out = ty;
    } else if (str_eq_c(t.text, "!stablehlo.future") && p->lx.p < p->lx.end && *p->lx.p == '<') {
      p_next(p);
      st = tuple_type(p, true, out);
    } else if (memchr(t.text.p, '.', t.text.n) == NULL && !(p->lx.p < p->lx.end && *p->lx.p == '<')) {
      /* `!name` without a dialect prefix is an alias. */
      const shl_type *a = strmap_get(&p->type_aliases, t.text);
      if (!a) st = parse_error(p, "undefined type alias '%.*s'", (int)t.text.n, t.text.p);
      else {
        p_next(p);
        *out = a;
      }
    } else {
      const char *start = t.text.p;
      p_next(p);
      shl_str body = {start + t.text.n, 0};
      if (tok_punct(p_tok(p), '<') && p_tok(p)->text.p == start + t.text.n) st = p_balanced(p, '<', &body);
      if (!st) {
        shl_str text = {start, (size_t)(body.p + body.n - start)};
        if (str_eq_c(t.text, "!quant.uniform")) {
          shl_quant *q = NULL;
          st = quant_type(p, text, &q);
          if (!st) {
            shl_type *ty = new_type(p, TY_SCALAR);
            if (!ty) st = st_oom();
            else {
              ty->dtype = DT_QUANT;
              ty->quant = q;
            }
            *out = ty;
          }
        } else {
          shl_type *ty = new_type(p, TY_OPAQUE);
          if (!ty) st = st_oom();
          else ty->text = text;
          *out = ty;
        }
      }
    }
  } else if (tok_punct(&t, '(')) {
    st = function_type(p, out);
  } else {
    st = parse_error(p, "expected type");
  }
  p_nest_leave(p);
  return st;
}
