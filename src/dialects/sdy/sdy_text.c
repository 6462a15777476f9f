/* Shardy attributes: parsing from MLIR tokens, and the canonical text
 * (what Shardy's printer writes: `"a"=2`, `{"a", ?}p0`, `"a":(1)2`,
 * replicated before unreduced, iota device ids dropped). */
#include "sdy_text.h"

#include <stdlib.h>

#include "text/printer.h"

/* ------------------------------------------------------------------ lists */

/* A growing array in the parser's arena (old copies stay in the arena:
 * the lists are short, bounded by the tokens of the attribute). */
static shl_status grow(shl_parser *p, void **v, uint32_t n, uint32_t *cap, size_t size) {
  if (n < *cap) return NULL;
  uint32_t ncap = *cap ? *cap * 2 : 4;
  void *nv = arena_array(p->a, ncap, size);
  if (!nv) return st_oom();
  if (n) memcpy(nv, *v, (size_t)n * size);
  *v = nv;
  *cap = ncap;
  return NULL;
}

static shl_status non_negative(shl_parser *p, int64_t *out) {
  shl_token t = *p_tok(p);
  ST_TRY(p_int(p, out));
  if (*out < 0) return parse_error_at(p, &t, "expected a non-negative integer");
  return NULL;
}

/* ------------------------------------------------------------------ printing */

static void print_axis_ref(shl_printer *pr, const sdy_axis_ref *r) {
  pr_string_lit(pr, r->name);
  if (!r->size) return;
  pr_puts(pr, ":(");
  pr_int(pr, r->pre_size);
  pr_puts(pr, ")");
  pr_int(pr, r->size);
}

static void print_axis_list(shl_printer *pr, const sdy_axis_ref *v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (i) pr_puts(pr, ", ");
    print_axis_ref(pr, &v[i]);
  }
}

static void print_mesh_body(shl_printer *pr, const sdy_mesh *m) {
  pr_puts(pr, "<[");
  for (uint32_t i = 0; i < m->n_axes; i++) {
    if (i) pr_puts(pr, ", ");
    pr_string_lit(pr, m->axes[i].name);
    pr_puts(pr, "=");
    pr_int(pr, m->axes[i].size);
  }
  pr_puts(pr, "]");
  if (m->n_device_ids) {
    pr_puts(pr, ", device_ids=[");
    for (uint32_t i = 0; i < m->n_device_ids; i++) {
      if (i) pr_puts(pr, ", ");
      pr_int(pr, m->device_ids[i]);
    }
    pr_puts(pr, "]");
  }
  pr_puts(pr, ">");
}

static void print_sharding_body(shl_printer *pr, const sdy_sharding *s) {
  pr_puts(pr, "<");
  if (s->mesh) {
    pr_puts(pr, "mesh");
    print_mesh_body(pr, s->mesh);
  } else {
    pr_symbol_name(pr, s->mesh_name);
  }
  pr_puts(pr, ", [");
  for (uint32_t d = 0; d < s->rank; d++) {
    const sdy_dim_sharding *ds = &s->dims[d];
    if (d) pr_puts(pr, ", ");
    pr_puts(pr, "{");
    print_axis_list(pr, ds->axes, ds->n_axes);
    if (!ds->closed) pr_puts(pr, ds->n_axes ? ", ?" : "?");
    pr_puts(pr, "}");
    if (ds->priority >= 0) {
      pr_puts(pr, "p");
      pr_int(pr, ds->priority);
    }
  }
  pr_puts(pr, "]");
  if (s->n_replicated) {
    pr_puts(pr, ", replicated={");
    print_axis_list(pr, s->replicated, s->n_replicated);
    pr_puts(pr, "}");
  }
  if (s->n_unreduced) {
    pr_puts(pr, s->reduction == SDY_REDUCE_MAX   ? ", unreduced=max{"
                : s->reduction == SDY_REDUCE_MIN ? ", unreduced=min{"
                                                 : ", unreduced={");
    print_axis_list(pr, s->unreduced, s->n_unreduced);
    pr_puts(pr, "}");
  }
  pr_puts(pr, ">");
}

/* The AT_OPAQUE attribute for `parsed`: `prefix` + its printed body. */
static shl_status make_attr(shl_parser *p, const char *prefix, const void *parsed, const shl_attr **out) {
  shl_printer pr = {0};
  pr_puts(&pr, prefix);
  const sdy_kind *k = parsed;
  switch (*k) {
    case SDY_MESH: print_mesh_body(&pr, parsed); break;
    case SDY_SHARDING: print_sharding_body(&pr, parsed); break;
    case SDY_SHARDING_PER_VALUE: {
      const sdy_sharding_per_value *pv = parsed;
      pr_puts(&pr, "<[");
      for (uint32_t i = 0; i < pv->n; i++) {
        if (i) pr_puts(&pr, ", ");
        print_sharding_body(&pr, pv->v[i]);
      }
      pr_puts(&pr, "]>");
      break;
    }
    case SDY_MANUAL_AXES: {
      const sdy_manual_axes *ma = parsed;
      pr_puts(&pr, "{");
      for (uint32_t i = 0; i < ma->n; i++) {
        if (i) pr_puts(&pr, ", ");
        pr_string_lit(&pr, ma->names[i]);
      }
      pr_puts(&pr, "}>");
      break;
    }
  }
  char *text = pr.oom ? NULL : arena_strndup(p->a, pr.buf, pr.len);
  size_t len = pr.len;
  free(pr.buf);
  shl_attr *a = text ? attr_new(p->a, AT_OPAQUE) : NULL;
  if (!a) return st_oom();
  a->u.opq.text = (shl_str){text, len};
  a->u.opq.parsed = parsed;
  *out = a;
  return NULL;
}

/* ------------------------------------------------------------------ parsing */

/* "a" or "a":(pre)size */
static shl_status axis_ref(shl_parser *p, sdy_axis_ref *r) {
  memset(r, 0, sizeof *r);
  ST_TRY(p_string(p, &r->name));
  if (!p_punct(p, ':')) return NULL;
  ST_TRY(p_expect(p, '('));
  ST_TRY(non_negative(p, &r->pre_size));
  ST_TRY(p_expect(p, ')'));
  ST_TRY(non_negative(p, &r->size));
  return NULL;
}

/* {axis-ref, ...} */
static shl_status axis_list(shl_parser *p, const sdy_axis_ref **out, uint32_t *n) {
  ST_TRY(p_expect(p, '{'));
  sdy_axis_ref *v = NULL;
  uint32_t cap = 0;
  *n = 0;
  if (!p_punct(p, '}')) {
    for (;;) {
      ST_TRY(grow(p, (void **)&v, *n, &cap, sizeof *v));
      ST_TRY(axis_ref(p, &v[(*n)++]));
      if (p_punct(p, ',')) continue;
      ST_TRY(p_expect(p, '}'));
      break;
    }
  }
  *out = v;
  return NULL;
}

/* {"a", "b", ?}p1 */
static shl_status dim_sharding(shl_parser *p, sdy_dim_sharding *d) {
  ST_TRY(p_expect(p, '{'));
  sdy_axis_ref *v = NULL;
  uint32_t n = 0, cap = 0;
  d->closed = true;
  d->priority = -1;
  while (!p_punct(p, '}')) {
    if (n && !p_punct(p, ',')) return parse_error(p, "expected ',' or '}' in a dimension sharding");
    if (p_punct(p, '?')) {
      d->closed = false;
      ST_TRY(p_expect(p, '}'));
      break;
    }
    ST_TRY(grow(p, (void **)&v, n, &cap, sizeof *v));
    ST_TRY(axis_ref(p, &v[n++]));
  }
  d->axes = v;
  d->n_axes = n;
  shl_token t = *p_tok(p);
  if (t.kind != TK_BARE_ID) return NULL;
  /* p<digits>, without leading zeros */
  shl_str digits = {t.text.p + 1, t.text.n - 1};
  bool ok = t.text.p[0] == 'p' && digits.n > 0 && digits.n <= 18 && !(digits.p[0] == '0' && digits.n > 1);
  for (size_t i = 0; ok && i < digits.n; i++) ok = digits.p[i] >= '0' && digits.p[i] <= '9';
  if (!ok)
    return parse_error(p, "expected a priority 'p<number>' without leading zeros, found '%.*s'", (int)t.text.n, t.text.p);
  d->priority = 0;
  for (size_t i = 0; i < digits.n; i++) d->priority = d->priority * 10 + (digits.p[i] - '0');
  p_next(p);
  return NULL;
}

/* "a"=2, "b"=4 up to (not including) `close`, or up to a `device_ids`
 * after a comma (the bracket-less spelling). */
static shl_status mesh_axes(shl_parser *p, sdy_mesh *m, char close) {
  sdy_mesh_axis *axes = NULL;
  uint32_t cap = 0;
  if (p_tok(p)->kind == TK_STRING)
    for (;;) {
      ST_TRY(grow(p, (void **)&axes, m->n_axes, &cap, sizeof *axes));
      sdy_mesh_axis *ax = &axes[m->n_axes++];
      ST_TRY(p_string(p, &ax->name));
      ST_TRY(p_expect(p, '='));
      ST_TRY(p_int(p, &ax->size));
      if (!p_punct(p, ',') || (close == '>' && tok_kw(p_tok(p), "device_ids"))) break;
    }
  m->axes = axes;
  return close == ']' ? p_expect(p, ']') : NULL;
}

/* device_ids=[0, 1, ...] */
static shl_status mesh_device_ids(shl_parser *p, sdy_mesh *m) {
  int64_t *ids = NULL;
  uint32_t cap = 0;
  ST_TRY(p_expect_kw(p, "device_ids"));
  ST_TRY(p_expect(p, '='));
  ST_TRY(p_expect(p, '['));
  if (!p_punct(p, ']')) {
    for (;;) {
      ST_TRY(grow(p, (void **)&ids, m->n_device_ids, &cap, sizeof *ids));
      ST_TRY(p_int(p, &ids[m->n_device_ids++]));
      if (p_punct(p, ',')) continue;
      ST_TRY(p_expect(p, ']'));
      break;
    }
  }
  m->device_ids = ids;
  return NULL;
}

/* <["a"=2, "b"=4], device_ids=[...]>, and the spellings of older Shardy
 * versions: <"a"=2, "b"=4> (no brackets), <> (empty), <device_id=3> and
 * <device_ids=[3]> (a maximal mesh: no axes, one device). */
static shl_status mesh_body(shl_parser *p, sdy_mesh **out) {
  sdy_mesh *m = ARENA_NEW(p->a, sdy_mesh);
  if (!m) return st_oom();
  m->kind = SDY_MESH;
  ST_TRY(p_expect(p, '<'));
  bool ids = false;
  if (p_punct(p, '[')) {
    ST_TRY(mesh_axes(p, m, ']'));
    ids = p_punct(p, ',');
  } else if (p_tok(p)->kind == TK_STRING) {
    ST_TRY(mesh_axes(p, m, '>'));
    ids = tok_kw(p_tok(p), "device_ids");
  } else if (p_kw(p, "device_id")) {
    int64_t *id = ARENA_NEW(p->a, int64_t);
    if (!id) return st_oom();
    ST_TRY(p_expect(p, '='));
    ST_TRY(p_int(p, id));
    m->device_ids = id;
    m->n_device_ids = 1;
  } else {
    ids = tok_kw(p_tok(p), "device_ids");
  }
  if (ids) ST_TRY(mesh_device_ids(p, m));
  ST_TRY(p_expect(p, '>'));
  /* Shardy's builder drops device ids equal to iota(product of the axis sizes). */
  bool iota = m->n_axes > 0 && (int64_t)m->n_device_ids == sdy_mesh_devices(m);
  for (uint32_t i = 0; iota && i < m->n_device_ids; i++) iota = m->device_ids[i] == (int64_t)i;
  if (iota) m->n_device_ids = 0;
  *out = m;
  return NULL;
}

/* <@mesh or mesh<...>, [dims], replicated={...}, unreduced=max{...}> */
static shl_status sharding_body(shl_parser *p, sdy_sharding **out) {
  sdy_sharding *s = ARENA_NEW(p->a, sdy_sharding);
  if (!s) return st_oom();
  s->kind = SDY_SHARDING;
  ST_TRY(p_expect(p, '<'));
  if (p_kw(p, "mesh")) {
    sdy_mesh *m;
    ST_TRY(mesh_body(p, &m));
    s->mesh = m;
  } else if (p_tok(p)->kind == TK_AT_ID) {
    ST_TRY(p_symbol_name(p, &s->mesh_name));
  } else {
    return parse_error(p, "expected a mesh symbol (@name) or an inline mesh<...>");
  }
  ST_TRY(p_expect(p, ','));
  ST_TRY(p_expect(p, '['));
  sdy_dim_sharding *dims = NULL;
  uint32_t cap = 0;
  if (!p_punct(p, ']')) {
    for (;;) {
      ST_TRY(grow(p, (void **)&dims, s->rank, &cap, sizeof *dims));
      ST_TRY(dim_sharding(p, &dims[s->rank++]));
      if (p_punct(p, ',')) continue;
      ST_TRY(p_expect(p, ']'));
      break;
    }
  }
  s->dims = dims;
  while (p_punct(p, ',')) {
    if (!s->n_replicated && p_kw(p, "replicated")) {
      ST_TRY(p_expect(p, '='));
      ST_TRY(axis_list(p, &s->replicated, &s->n_replicated));
    } else if (!s->n_unreduced && p_kw(p, "unreduced")) {
      if (p_punct(p, '=')) {
        if (p_kw(p, "max")) s->reduction = SDY_REDUCE_MAX;
        else if (p_kw(p, "min")) s->reduction = SDY_REDUCE_MIN;
        else p_kw(p, "sum");
      }
      ST_TRY(axis_list(p, &s->unreduced, &s->n_unreduced));
    } else {
      return parse_error(p, "expected 'replicated={...}' or 'unreduced={...}' after ','");
    }
  }
  ST_TRY(p_expect(p, '>'));
  *out = s;
  return NULL;
}

shl_status sdy_parse_mesh(shl_parser *p, const shl_attr **out) {
  sdy_mesh *m;
  ST_TRY(mesh_body(p, &m));
  return make_attr(p, "#sdy.mesh", m, out);
}

shl_status sdy_parse_sharding(shl_parser *p, const shl_attr **out) {
  sdy_sharding *s;
  ST_TRY(sharding_body(p, &s));
  return make_attr(p, "#sdy.sharding", s, out);
}

/* [<...>, <...>] */
shl_status sdy_parse_per_value(shl_parser *p, const shl_attr **out) {
  sdy_sharding_per_value *pv = ARENA_NEW(p->a, sdy_sharding_per_value);
  if (!pv) return st_oom();
  pv->kind = SDY_SHARDING_PER_VALUE;
  ST_TRY(p_expect(p, '['));
  const sdy_sharding **v = NULL;
  uint32_t cap = 0;
  if (!p_punct(p, ']')) {
    for (;;) {
      sdy_sharding *s;
      ST_TRY(sharding_body(p, &s));
      ST_TRY(grow(p, (void **)&v, pv->n, &cap, sizeof *v));
      v[pv->n++] = s;
      if (p_punct(p, ',')) continue;
      ST_TRY(p_expect(p, ']'));
      break;
    }
  }
  pv->v = v;
  return make_attr(p, "#sdy.sharding_per_value", pv, out);
}

/* {"a", "b"} */
shl_status sdy_parse_manual_axes(shl_parser *p, const shl_attr **out) {
  sdy_manual_axes *ma = ARENA_NEW(p->a, sdy_manual_axes);
  if (!ma) return st_oom();
  ma->kind = SDY_MANUAL_AXES;
  ST_TRY(p_expect(p, '{'));
  shl_str *v = NULL;
  uint32_t cap = 0;
  if (!p_punct(p, '}')) {
    for (;;) {
      ST_TRY(grow(p, (void **)&v, ma->n, &cap, sizeof *v));
      ST_TRY(p_string(p, &v[ma->n++]));
      if (p_punct(p, ',')) continue;
      ST_TRY(p_expect(p, '}'));
      break;
    }
  }
  ma->names = v;
  return make_attr(p, "#sdy<manual_axes", ma, out);
}

shl_status sdy_parse_hash_attr(shl_parser *p, const shl_attr **out) {
  *out = NULL;
  shl_token t = *p_tok(p);
  if (!(p->lx.p < p->lx.end && *p->lx.p == '<')) return NULL;
  shl_str name = {t.text.p + 1, t.text.n - 1};
  if (str_eq_c(name, "sdy")) {
    /* #sdy<manual_axes{...}> / #sdy<propagation_direction X> */
    shl_lexer saved = p->lx;
    p_next(p);
    p_next(p);
    if (p_kw(p, "manual_axes")) {
      ST_TRY(sdy_parse_manual_axes(p, out));
      return p_expect(p, '>');
    }
    if (p_kw(p, "propagation_direction")) {
      shl_token vt = *p_tok(p);
      shl_str v;
      ST_TRY(p_bare_id(p, &v));
      if (!str_eq_c(v, "NONE") && !str_eq_c(v, "FORWARD") && !str_eq_c(v, "BACKWARD") && !str_eq_c(v, "BOTH"))
        return parse_error_at(p, &vt, "unknown propagation direction '%.*s' (NONE, FORWARD, BACKWARD or BOTH)",
                              (int)v.n, v.p);
      ST_TRY(p_expect(p, '>'));
      *out = make_enum(p, "sdy", "propagation_direction", v);
      return *out ? NULL : st_oom();
    }
    p->lx = saved;
    return NULL;
  }
  bool mesh = str_eq_c(name, "sdy.mesh"), sharding = str_eq_c(name, "sdy.sharding");
  if (!mesh && !sharding && !str_eq_c(name, "sdy.sharding_per_value")) return NULL;
  p_next(p);
  if (mesh) return sdy_parse_mesh(p, out);
  if (sharding) return sdy_parse_sharding(p, out);
  ST_TRY(p_expect(p, '<'));
  ST_TRY(sdy_parse_per_value(p, out));
  return p_expect(p, '>');
}
