/* Core of the MLIR text parser: tokens, the generic op form, regions and
 * blocks, module structure.  SSA names, types, attributes and the pretty
 * forms live in their own files. */
#include "parser.h"

#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------------ errors */

shl_srcpos parse_pos(const shl_parser *p) {
  return (shl_srcpos){p->lx.file, p->lx.tok.line, p->lx.tok.col};
}

static shl_status verror_at(shl_parser *p, const shl_token *t, const char *fmt, va_list ap) {
  char msg[768];
  vsnprintf(msg, sizeof msg, fmt, ap);
  shl_srcpos pos = {p->lx.file, t->line, t->col};
  if (t->kind == TK_ERROR && p->lx.error) return st_error(SHLOC_ERR_PARSE, &pos, NULL, "%s", p->lx.error);
  return st_error(SHLOC_ERR_PARSE, &pos, NULL, "%s", msg);
}

shl_status parse_error(shl_parser *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  shl_status st = verror_at(p, &p->lx.tok, fmt, ap);
  va_end(ap);
  return st;
}

shl_status parse_error_at(shl_parser *p, const shl_token *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  shl_status st = verror_at(p, t, fmt, ap);
  va_end(ap);
  return st;
}

#define OOM() st_oom()

/* ------------------------------------------------------------------ tokens */

bool p_punct(shl_parser *p, char c) {
  if (!tok_punct(p_tok(p), c)) return false;
  p_next(p);
  return true;
}

const char *p_tok_desc(const shl_token *t, char *buf, size_t cap) {
  if (t->kind == TK_EOF) return "end of input";
  size_t n = t->text.n < 40 ? t->text.n : 40;
  snprintf(buf, cap, "'%.*s'", (int)n, t->text.p);
  return buf;
}

shl_status p_expect(shl_parser *p, char c) {
  if (p_punct(p, c)) return NULL;
  char buf[64];
  return parse_error(p, "expected '%c', found %s", c, p_tok_desc(p_tok(p), buf, sizeof buf));
}

bool p_kw(shl_parser *p, const char *kw) {
  if (!tok_kw(p_tok(p), kw)) return false;
  p_next(p);
  return true;
}

shl_status p_expect_kw(shl_parser *p, const char *kw) {
  if (p_kw(p, kw)) return NULL;
  char buf[64];
  return parse_error(p, "expected '%s', found %s", kw, p_tok_desc(p_tok(p), buf, sizeof buf));
}

shl_status p_expect_arrow(shl_parser *p) {
  if (p_tok(p)->kind == TK_ARROW) {
    p_next(p);
    return NULL;
  }
  char buf[64];
  return parse_error(p, "expected '->', found %s", p_tok_desc(p_tok(p), buf, sizeof buf));
}

shl_status p_bare_id(shl_parser *p, shl_str *out) {
  if (p_tok(p)->kind != TK_BARE_ID) {
    char buf[64];
    return parse_error(p, "expected identifier, found %s", p_tok_desc(p_tok(p), buf, sizeof buf));
  }
  *out = p_tok(p)->text;
  p_next(p);
  return NULL;
}

shl_status p_int(shl_parser *p, int64_t *out) {
  bool neg = p_punct(p, '-');
  shl_token t = *p_tok(p);
  if (t.kind != TK_INT) return parse_error(p, "expected integer");
  uint64_t v;
  if (!lexer_int_value(t.text, &v) || (!neg && v > INT64_MAX) || (neg && v > (uint64_t)INT64_MAX + 1))
    return parse_error(p, "integer literal out of range");
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  p_next(p);
  return NULL;
}

shl_status p_int_list(shl_parser *p, bool as_dense_array, const shl_attr **out) {
  ST_TRY(p_expect(p, '['));
  int64_t stackbuf[16], *v = stackbuf;
  size_t n = 0, cap = 16;
  shl_status st = NULL;
  if (!p_punct(p, ']')) {
    for (;;) {
      int64_t x;
      if ((st = p_int(p, &x))) goto done;
      if (n == cap) {
        int64_t *nv = malloc(cap * 2 * sizeof *nv);
        if (!nv) {
          st = OOM();
          goto done;
        }
        memcpy(nv, v, n * sizeof *nv);
        if (v != stackbuf) free(v);
        v = nv;
        cap *= 2;
      }
      v[n++] = x;
      if (p_punct(p, ',')) continue;
      if ((st = p_expect(p, ']'))) goto done;
      break;
    }
  }
  if (as_dense_array) {
    *out = attr_dense_array_i64(p->a, v, (int64_t)n);
  } else {
    shl_attr *a = attr_new(p->a, AT_INTLIST);
    if (a) {
      a->u.ints.n = (uint32_t)n;
      a->u.ints.v = arena_memdup(p->a, v, n * sizeof *v);
      if (n && !a->u.ints.v) a = NULL;
    }
    *out = a;
  }
  if (!*out) st = OOM();
done:
  if (v != stackbuf) free(v);
  return st;
}

shl_status p_string(shl_parser *p, shl_str *out) {
  shl_token t = *p_tok(p);
  if (t.kind != TK_STRING) return parse_error(p, "expected string literal");
  char *buf = arena_alloc(p->a, t.text.n);
  if (!buf) return OOM();
  long n = lexer_decode_string(t.text, buf);
  if (n < 0) return parse_error(p, "invalid escape sequence in string");
  *out = (shl_str){buf, (size_t)n};
  p_next(p);
  return NULL;
}

shl_status p_symbol_name(shl_parser *p, shl_str *out) {
  shl_token t = *p_tok(p);
  if (t.kind != TK_AT_ID) return parse_error(p, "expected symbol name");
  shl_str name = {t.text.p + 1, t.text.n - 1};
  if (name.n && name.p[0] == '"') {
    char *buf = arena_alloc(p->a, name.n);
    if (!buf) return OOM();
    long len = lexer_decode_string(name, buf);
    if (len < 0) return parse_error(p, "invalid escape in symbol name");
    name = (shl_str){buf, (size_t)len};
  }
  p_next(p);
  *out = name;
  return NULL;
}

shl_status p_nest_enter(shl_parser *p) {
  if (++p->depth > p->limits->max_nesting) {
    p->depth--;
    return st_error(SHLOC_ERR_LIMIT, &(shl_srcpos){p->lx.file, p_tok(p)->line, p_tok(p)->col}, NULL,
                    "nesting deeper than the limit of %u", p->limits->max_nesting);
  }
  return NULL;
}

shl_status p_balanced(shl_parser *p, char open, shl_str *out) {
  static const char openers[] = "([{<", closers[] = ")]}>";
  const char *start = p_tok(p)->text.p;
  if (!tok_punct(p_tok(p), open)) return parse_error(p, "expected '%c'", open);
  /* Brackets of every kind must nest properly, as MLIR requires of dialect
   * attribute and type bodies, so that e.g. '>' inside "(...)" is not taken
   * for the end; '->' is its own token and closes nothing.  `expect` holds
   * the closers still due, innermost last; p_nest_enter bounds its depth. */
  char *expect = NULL;
  uint32_t depth = 0, cap = 0, base = p->depth;
  shl_status st = NULL;
  for (;;) {
    shl_token *t = p_tok(p);
    if (t->kind == TK_EOF) {
      st = parse_error(p, "unbalanced '%c'", open);
      break;
    }
    if (t->kind == TK_ERROR) {
      st = parse_error(p, "bad token");
      break;
    }
    char c = t->kind == TK_PUNCT ? t->text.p[0] : t->kind == TK_META_BEGIN ? '{' : t->kind == TK_META_END ? '}' : 0;
    const char *o = c ? strchr(openers, c) : NULL, *cl = c && !o ? strchr(closers, c) : NULL;
    if (o) {
      if ((st = p_nest_enter(p))) break;
      if (depth == cap) {
        cap = cap ? 2 * cap : 32;
        char *grown = arena_alloc_uninit(&p->scratch, cap);
        if (!grown) {
          st = OOM();
          break;
        }
        if (depth) memcpy(grown, expect, depth);
        expect = grown;
      }
      expect[depth++] = closers[o - openers];
    } else if (cl) {
      if (*cl != expect[depth - 1]) {
        st = parse_error(p, "mismatched '%c' (expected '%c')", *cl, expect[depth - 1]);
        break;
      }
      depth--;
      p->depth--;
      if (depth == 0) {
        *out = (shl_str){start, (size_t)(t->text.p + 1 - start)};
        p_next(p);
        break;
      }
    }
    p_next(p);
  }
  p->depth = base;
  return st;
}

shl_status p_loc(shl_parser *p, shl_str *out) {
  *out = (shl_str){NULL, 0};
  if (!tok_kw(p_tok(p), "loc")) return NULL;
  const char *start = p_tok(p)->text.p;
  p_next(p);
  shl_str body;
  ST_TRY(p_balanced(p, '(', &body));
  *out = (shl_str){start, (size_t)(body.p + body.n - start)};
  return NULL;
}

/* ------------------------------------------------------------------ values */

/* ------------------------------------------------------------------ op state */

#define GROW(p, arr, n, cap)                                                   \
  do {                                                                         \
    if ((n) == (cap)) {                                                        \
      size_t ncap_ = (cap) ? (size_t)(cap) * 2 : 4;                            \
      void *na_ = arena_array((p)->a, ncap_, sizeof *(arr));                   \
      if (!na_) return OOM();                                                  \
      if (n) memcpy(na_, (arr), (size_t)(n) * sizeof *(arr));                  \
      (arr) = na_;                                                             \
      (cap) = (uint32_t)ncap_;                                                 \
    }                                                                          \
  } while (0)

shl_status os_operand(shl_parser *p, op_state *os, shl_value *v) {
  GROW(p, os->operands, os->n_operands, os->cap_operands);
  os->operands[os->n_operands++] = v;
  return NULL;
}

shl_status os_result(shl_parser *p, op_state *os, const shl_type *t) {
  GROW(p, os->result_types, os->n_results, os->cap_results);
  os->result_types[os->n_results++] = t;
  return NULL;
}

/* Duplicates are found once, when finish_op sorts the list. */
shl_status os_attr_s(shl_parser *p, op_state *os, shl_str name, const shl_attr *a, bool is_prop) {
  GROW(p, os->attrs, os->n_attrs, os->cap_attrs);
  os->attrs[os->n_attrs++] = (shl_named_attr){name, a, is_prop};
  return NULL;
}

static bool is_discardable(shl_str name) { return memchr(name.p, '.', name.n) != NULL; }

/* Adds a parsed dictionary (an arena array the op may keep); is_prop < 0
 * means "inherent unless the name has a dialect prefix". */
static shl_status os_attr_items(shl_parser *p, op_state *os, shl_named_attr *items, uint32_t n, int is_prop) {
  for (uint32_t i = 0; i < n; i++) items[i].is_prop = is_prop < 0 ? !is_discardable(items[i].name) : is_prop;
  if (!os->n_attrs) {
    os->attrs = items;
    os->n_attrs = os->cap_attrs = n;
    return NULL;
  }
  for (uint32_t i = 0; i < n; i++) ST_TRY(os_attr_s(p, os, items[i].name, items[i].attr, items[i].is_prop));
  return NULL;
}

shl_status os_attr(shl_parser *p, op_state *os, const char *name, const shl_attr *a) {
  shl_str s = str_of(name);
  return os_attr_s(p, os, s, a, !is_discardable(s));
}

shl_region *os_region(shl_parser *p, op_state *os) {
  if (os->n_regions == os->cap_regions) {
    size_t ncap = os->cap_regions ? os->cap_regions * 2 : 2;
    shl_region *nr = ARENA_ARRAY(p->a, shl_region, ncap);
    if (!nr) return NULL;
    if (os->n_regions) memcpy(nr, os->regions, os->n_regions * sizeof *nr);
    os->regions = nr;
    os->cap_regions = (uint32_t)ncap;
  }
  shl_region *r = &os->regions[os->n_regions++];
  memset(r, 0, sizeof *r);
  return r;
}

shl_status p_operands(shl_parser *p, op_state *os, bool allow_empty) {
  if (allow_empty && p_tok(p)->kind != TK_PERCENT_ID) return NULL;
  for (;;) {
    shl_value *v;
    ST_TRY(p_operand(p, &v));
    ST_TRY(os_operand(p, os, v));
    if (!p_punct(p, ',')) return NULL;
  }
}

shl_status p_attr_dict(shl_parser *p, op_state *os) {
  if (!tok_punct(p_tok(p), '{')) return NULL;
  shl_named_attr *items;
  uint32_t n;
  ST_TRY(p_dict_items(p, &items, &n));
  return os_attr_items(p, os, items, n, -1);
}

shl_status p_type_list(shl_parser *p, const shl_type ***out, uint32_t *n) {
  uint32_t cap = 0;
  const shl_type **v = NULL;
  *n = 0;
  for (;;) {
    const shl_type *t;
    ST_TRY(p_type(p, &t));
    GROW(p, v, *n, cap);
    v[(*n)++] = t;
    if (!p_punct(p, ',')) break;
  }
  *out = v;
  return NULL;
}

shl_status p_check_operand_type(shl_parser *p, op_state *os, uint32_t i, const shl_type *t, const shl_token *at) {
  if (i >= os->n_operands) return parse_error_at(p, at, "%u types given for %u operands", i + 1, os->n_operands);
  if (!type_eq(os->operands[i]->type, t))
    return parse_error_at(p, at, "type of operand #%u does not match the type of its value", i);
  return NULL;
}

/* Result types after `->`: a single type or a parenthesized list. */
static shl_status result_types(shl_parser *p, op_state *os) {
  const shl_type *t;
  if (!p_punct(p, '(')) {
    ST_TRY(p_type(p, &t));
    return os_result(p, os, t);
  }
  if (p_punct(p, ')')) return NULL;
  for (;;) {
    ST_TRY(p_type(p, &t));
    ST_TRY(os_result(p, os, t));
    if (!p_punct(p, ',')) return p_expect(p, ')');
  }
}

/* `(T, ...) -> R`: each T is checked against its operand as it is read, so no
 * function type is built for the (very common) generic op signature. */
shl_status p_functional_type(shl_parser *p, op_state *os) {
  shl_token at = *p_tok(p);
  ST_TRY(p_expect(p, '('));
  uint32_t n = 0;
  if (!p_punct(p, ')')) {
    for (;;) {
      const shl_type *t;
      ST_TRY(p_type(p, &t));
      if (n < os->n_operands) ST_TRY(p_check_operand_type(p, os, n, t, &at));
      n++;
      if (!p_punct(p, ',')) break;
    }
    ST_TRY(p_expect(p, ')'));
  }
  if (n != os->n_operands) return parse_error_at(p, &at, "expected %u operand types, found %u", os->n_operands, n);
  ST_TRY(p_expect_arrow(p));
  return result_types(p, os);
}

shl_status p_same_or_functional_type(shl_parser *p, op_state *os) {
  ST_TRY(p_expect(p, ':'));
  if (tok_punct(p_tok(p), '(')) return p_functional_type(p, os);
  shl_token at = *p_tok(p);
  const shl_type *t;
  ST_TRY(p_type(p, &t));
  for (uint32_t i = 0; i < os->n_operands; i++) ST_TRY(p_check_operand_type(p, os, i, t, &at));
  uint32_t nres = os->n_results_expected ? os->n_results_expected : 1;
  for (uint32_t i = 0; i < nres; i++) ST_TRY(os_result(p, os, t));
  return NULL;
}

/* ------------------------------------------------------------------ ops */

typedef struct {
  shl_token tok;
  uint32_t count;
} result_group;

/* Builds the op from its state and binds result names. */
static shl_status finish_op(shl_parser *p, op_state *os, shl_block *b, const result_group *groups, uint32_t n_groups,
                            uint32_t n_expected) {
  if (os->n_results != n_expected)
    return st_error(SHLOC_ERR_PARSE, &os->pos, NULL, "'%.*s' defines %u results but %u names were bound",
                    (int)os->name.n, os->name.p, os->n_results, n_expected);
  shl_op *op = op_create(p->a, os->def, os->name, os->n_operands, os->operands, os->n_results, os->result_types,
                         os->n_attrs, os->attrs, 0);
  if (!op) return OOM();
  uint32_t dup;
  if (!attrs_sort(op->attrs, op->n_attrs, &dup))
    return st_error(SHLOC_ERR_PARSE, &os->pos, NULL, "duplicate attribute '%.*s'", (int)op->attrs[dup].name.n,
                    op->attrs[dup].name.p);
  op->regions = os->regions;
  op->n_regions = os->n_regions;
  /* The op state's region array may have moved while it grew: point every
   * block at its final region. */
  for (uint32_t i = 0; i < op->n_regions; i++) {
    op->regions[i].parent = op;
    for (uint32_t k = 0; k < op->regions[i].n_blocks; k++) op->regions[i].blocks[k]->region = &op->regions[i];
  }
  op->pos = os->pos;
  ST_TRY(p_loc(p, &op->loc));
  uint32_t r = 0;
  for (uint32_t g = 0; g < n_groups; g++) {
    ST_TRY(p_define_results(p, &groups[g].tok, &op->results[r], groups[g].count));
    r += groups[g].count;
  }
  block_append(b, op);
  return NULL;
}

/* "name"(operands) [successors] <{props}> ({regions}) {attrs} : (types) -> types */
shl_status parse_generic(shl_parser *p, op_state *os) {
  ST_TRY(p_expect(p, '('));
  if (!p_punct(p, ')')) {
    ST_TRY(p_operands(p, os, false));
    ST_TRY(p_expect(p, ')'));
  }
  if (tok_punct(p_tok(p), '[')) return parse_error(p, "block successors are not supported");
  if (p_punct(p, '<')) {
    if (!tok_punct(p_tok(p), '{')) return parse_error(p, "expected '{' after '<' for properties");
    shl_named_attr *items;
    uint32_t n;
    ST_TRY(p_dict_items(p, &items, &n));
    ST_TRY(os_attr_items(p, os, items, n, 1));
    ST_TRY(p_expect(p, '>'));
  }
  if (tok_punct(p_tok(p), '(')) {
    /* Regions: `({...}, {...})`.  A '(' here can only start regions because
     * the type list follows ':'. */
    p_next(p);
    /* Isolated ops (module, func) see no outer names, as in their pretty
     * form; the printer restarts numbering inside them. */
    bool isolated = os->def->traits & T_ISO;
    if (isolated) ST_TRY(p_scope_push(p, true));
    for (;;) {
      shl_region *r = os_region(p, os);
      if (!r) return OOM();
      ST_TRY(p_region(p, r, NULL));
      if (!p_punct(p, ',')) break;
    }
    if (isolated) p_scope_pop(p);
    ST_TRY(p_expect(p, ')'));
  }
  if (tok_punct(p_tok(p), '{')) {
    shl_named_attr *items;
    uint32_t n;
    ST_TRY(p_dict_items(p, &items, &n));
    /* As MLIR does for a registered op, inherent attributes written in the
     * discardable dictionary become properties (printed back in <{...}>). */
    ST_TRY(os_attr_items(p, os, items, n, os->def->id == OP_UNKNOWN ? 0 : -1));
  }
  ST_TRY(p_expect(p, ':'));
  if (tok_punct(p_tok(p), '(')) return p_functional_type(p, os);
  shl_token at = *p_tok(p); /* a type alias */
  const shl_type *ft;
  ST_TRY(p_type(p, &ft));
  if (ft->kind != TY_FUNCTION) return parse_error_at(p, &at, "expected function type for generic op");
  if (ft->n_in != os->n_operands)
    return parse_error_at(p, &at, "expected %u operand types, found %u", os->n_operands, ft->n_in);
  for (uint32_t i = 0; i < ft->n_in; i++) ST_TRY(p_check_operand_type(p, os, i, ft->in[i], &at));
  for (uint32_t i = 0; i < ft->n_out; i++) ST_TRY(os_result(p, os, ft->out[i]));
  return NULL;
}

static const parse_fn parse_table[OP_COUNT] = {
#define OP(id, name, traits, syn, ver, ker) [OP_##id] = parse_##syn,
#include "ir/ops.def"
#undef OP
};

/* opdef_lookup behind a small direct-mapped cache: a program uses few op
 * names, and the binary search costs several string compares per op. */
static const shl_opdef *find_opdef(shl_parser *p, shl_str name) {
  if (!name.n) return opdef_lookup(name);
  size_t h = (name.n * 31u + (unsigned char)name.p[name.n - 1] * 7u + (unsigned char)name.p[name.n / 2]) & 31u;
  const shl_opdef *d = p->opdef_cache[h];
  if (d && str_eq_c(name, d->name)) return d;
  d = opdef_lookup(name);
  /* Only ops spelled as in the table: "return" finds func.return. */
  if (d && str_eq_c(name, d->name)) p->opdef_cache[h] = d;
  return d;
}

static shl_status parse_op(shl_parser *p, shl_block *b) {
  op_state os;
  memset(&os, 0, sizeof os);
  os.operands = os.operands_buf;
  os.cap_operands = sizeof os.operands_buf / sizeof os.operands_buf[0];
  os.result_types = os.results_buf;
  os.cap_results = sizeof os.results_buf / sizeof os.results_buf[0];
  os.attrs = os.attrs_buf;
  os.cap_attrs = sizeof os.attrs_buf / sizeof os.attrs_buf[0];
  result_group groups_buf[8], *groups = groups_buf;
  uint32_t n_groups = 0, cap_groups = 8, n_expected = 0;
  os.pos = parse_pos(p);
  if (p_tok(p)->kind == TK_PERCENT_ID) {
    for (;;) {
      shl_token t = *p_tok(p);
      if (t.kind != TK_PERCENT_ID) return parse_error(p, "expected result name");
      p_next(p);
      uint32_t count = 1;
      if (p_punct(p, ':')) {
        shl_token ct = *p_tok(p);
        int64_t c;
        ST_TRY(p_int(p, &c));
        /* Bounds the results a pretty form may replicate (`%r:N = op ... : T`). */
        if (c < 1 || (uint64_t)n_expected + (uint64_t)c > 1000000)
          return parse_error_at(p, &ct, "invalid result count");
        count = (uint32_t)c;
      }
      if (n_groups == cap_groups) {
        result_group *ng = ARENA_ARRAY(p->a, result_group, cap_groups * 2);
        if (!ng) return OOM();
        memcpy(ng, groups, n_groups * sizeof *ng);
        groups = ng;
        cap_groups *= 2;
      }
      groups[n_groups++] = (result_group){t, count};
      n_expected += count;
      if (!p_punct(p, ',')) break;
    }
    ST_TRY(p_expect(p, '='));
  }
  os.n_results_expected = n_expected;
  shl_token nt = *p_tok(p);
  shl_status st;
  if (nt.kind == TK_STRING) {
    /* Names without escapes stay slices of the source (the common case). */
    shl_str name = {nt.text.p + 1, nt.text.n - 2};
    if (memchr(name.p, '\\', name.n)) ST_TRY(p_string(p, &name));
    else p_next(p);
    os.name = name;
    const shl_opdef *def = find_opdef(p, name);
    os.def = def ? def : &shl_op_table[OP_UNKNOWN];
    if (def) os.name = str_of(def->name);
    st = parse_generic(p, &os);
  } else if (nt.kind == TK_BARE_ID) {
    const shl_opdef *def = find_opdef(p, nt.text);
    if (!def || parse_table[def->id] == parse_generic)
      return parse_error(p, "custom op '%.*s' is unknown or has no pretty form; use the generic form \"%.*s\"(...)",
                         (int)nt.text.n, nt.text.p, (int)nt.text.n, nt.text.p);
    os.def = def;
    os.name = str_of(def->name);
    p_next(p);
    st = parse_table[def->id](p, &os);
  } else {
    char buf[64];
    return parse_error(p, "expected operation, found %s", p_tok_desc(&nt, buf, sizeof buf));
  }
  if (st) return st;
  return finish_op(p, &os, b, groups, n_groups, n_expected);
}

shl_status p_block_ops(shl_parser *p, shl_block *b) {
  while (p_tok(p)->kind != TK_EOF && !tok_punct(p_tok(p), '}') && p_tok(p)->kind != TK_CARET_ID)
    ST_TRY(parse_op(p, b));
  return NULL;
}

/* ^bb0(%a: T loc(..), ...): */
static shl_status block_header(shl_parser *p, shl_block **out) {
  shl_token label = *p_tok(p);
  p_next(p);
  typedef struct {
    shl_token name;
    const shl_type *type;
    shl_str loc;
  } arg_decl;
  arg_decl local[64], *args = local; /* the arena only for long argument lists */
  uint32_t n = 0, cap = 64;
  if (p_punct(p, '(')) {
    if (!p_punct(p, ')')) {
      for (;;) {
        if (n == cap) {
          arg_decl *grown = ARENA_ARRAY(p->a, arg_decl, cap * 2);
          if (!grown) return OOM();
          memcpy(grown, args, n * sizeof *grown);
          args = grown;
          cap *= 2;
        }
        arg_decl *d = &args[n];
        d->name = *p_tok(p);
        if (d->name.kind != TK_PERCENT_ID) return parse_error(p, "expected block argument name");
        p_next(p);
        ST_TRY(p_expect(p, ':'));
        ST_TRY(p_type(p, &d->type));
        ST_TRY(p_loc(p, &d->loc));
        n++;
        if (!p_punct(p, ',')) break;
      }
      ST_TRY(p_expect(p, ')'));
    }
  }
  ST_TRY(p_expect(p, ':'));
  shl_block *b = block_create(p->a, n, NULL);
  if (!b) return OOM();
  b->label = label.text;
  for (uint32_t i = 0; i < n; i++) {
    b->args[i].type = args[i].type;
    b->args[i].pos = (shl_srcpos){p->lx.file, args[i].name.line, args[i].name.col};
    if (!block_set_arg_loc(p->a, b, i, args[i].loc)) return OOM();
    ST_TRY(p_define(p, &args[i].name, &b->args[i]));
  }
  *out = b;
  return NULL;
}

/* Appends b to r with a doubling capacity, so that regions with many blocks
 * stay linear in time and memory. */
static shl_status add_block(shl_parser *p, shl_region *r, uint32_t *cap, shl_block *b) {
  if (r->n_blocks == *cap) {
    uint32_t ncap = *cap ? *cap * 2 : 4;
    shl_block **nb = ARENA_ARRAY(p->a, shl_block *, ncap);
    if (!nb) return OOM();
    if (r->n_blocks) memcpy(nb, r->blocks, r->n_blocks * sizeof *nb);
    r->blocks = nb;
    *cap = ncap;
  }
  r->blocks[r->n_blocks++] = b;
  b->region = r;
  return NULL;
}

shl_status p_region(shl_parser *p, shl_region *r, shl_block *entry) {
  ST_TRY(p_expect(p, '{'));
  ST_TRY(p_nest_enter(p));
  bool own_scope = entry == NULL;
  if (own_scope) ST_TRY(p_scope_push(p, false));
  uint32_t cap = r->n_blocks;
  shl_block *b = entry;
  if (!b && p_tok(p)->kind != TK_CARET_ID && !tok_punct(p_tok(p), '}')) {
    b = block_create(p->a, 0, NULL);
    if (!b) return OOM();
  }
  if (b) {
    ST_TRY(add_block(p, r, &cap, b));
    ST_TRY(p_block_ops(p, b));
  }
  while (p_tok(p)->kind == TK_CARET_ID) {
    if (entry && r->n_blocks == 1 && !b->first)
      return parse_error(p, "unexpected block label: this region's arguments are declared by the op");
    ST_TRY(block_header(p, &b));
    ST_TRY(add_block(p, r, &cap, b));
    ST_TRY(p_block_ops(p, b));
  }
  ST_TRY(p_expect(p, '}'));
  if (own_scope) p_scope_pop(p);
  p_nest_leave(p);
  return NULL;
}

/* ------------------------------------------------------------------ module */

static shl_status alias_def(shl_parser *p) {
  shl_token name = *p_tok(p);
  if (strmap_get(name.kind == TK_BANG_ID ? &p->type_aliases : &p->attr_aliases, name.text))
    return parse_error(p, "redefinition of alias '%.*s'", (int)name.text.n, name.text.p);
  p_next(p);
  ST_TRY(p_expect(p, '='));
  if (name.kind == TK_BANG_ID) {
    const shl_type *t;
    ST_TRY(p_type(p, &t));
    if (!strmap_put(&p->type_aliases, name.text, (void *)t)) return OOM();
    return NULL;
  }
  if (tok_kw(p_tok(p), "loc")) {
    /* Location aliases are kept verbatim for printing back. */
    shl_str loc;
    ST_TRY(p_loc(p, &loc));
    /* Collected for printing back (they may appear before and after the module). */
    size_t n = (size_t)(loc.p + loc.n - name.text.p);
    if (p->loc_defs_len + n + 1 > p->loc_defs_cap) {
      size_t ncap = (p->loc_defs_cap + n + 1) * 2;
      char *nb = arena_alloc(p->a, ncap);
      if (!nb) return OOM();
      if (p->loc_defs_len) memcpy(nb, p->loc_defs, p->loc_defs_len);
      p->loc_defs = nb;
      p->loc_defs_cap = ncap;
    }
    if (p->loc_defs_len) p->loc_defs[p->loc_defs_len++] = '\n';
    memcpy(p->loc_defs + p->loc_defs_len, name.text.p, n);
    p->loc_defs_len += n;
    return NULL;
  }
  const shl_attr *a;
  ST_TRY(p_attr(p, &a));
  if (!strmap_put(&p->attr_aliases, name.text, (void *)a)) return OOM();
  return NULL;
}

static shl_status module_body(shl_parser *p, shloc_module *m) {
  shl_block *top_block = block_create(p->a, 0, NULL);
  if (!top_block) return OOM();
  ST_TRY(p_scope_push(p, true));
  shl_str resources = {NULL, 0};
  for (;;) {
    shl_token *t = p_tok(p);
    if (t->kind == TK_EOF) break;
    if (t->kind == TK_ERROR) return parse_error(p, "bad token");
    if ((t->kind == TK_HASH_ID || t->kind == TK_BANG_ID)) {
      ST_TRY(alias_def(p));
      continue;
    }
    if (t->kind == TK_META_BEGIN) {
      const char *start = t->text.p;
      /* Skip to the matching #-}; the section is kept verbatim. */
      while (p_tok(p)->kind != TK_META_END) {
        if (p_tok(p)->kind == TK_EOF || p_tok(p)->kind == TK_ERROR)
          return parse_error(p, "unterminated '{-#' section");
        p_next(p);
      }
      const char *end = p_tok(p)->text.p + p_tok(p)->text.n;
      if (resources.p) return parse_error(p, "more than one '{-#' section");
      resources = (shl_str){start, (size_t)(end - start)};
      p_next(p);
      continue;
    }
    if (resources.p) return parse_error(p, "operations after the '{-#' section are not supported");
    ST_TRY(parse_op(p, top_block));
  }
  m->loc_defs = (shl_str){p->loc_defs, p->loc_defs_len};
  m->resources = resources;
  shl_op *first = top_block->first;
  if (first && first == top_block->last && op_is(first, OP_MODULE)) {
    m->top = first;
    first->block = NULL;
    return NULL;
  }
  /* Ops without an enclosing module get an implicit one, as in MLIR. */
  shl_op *mod = op_create(p->a, &shl_op_table[OP_MODULE], str_of("builtin.module"), 0, NULL, 0, NULL, 0, NULL, 1);
  if (!mod) return OOM();
  if (!region_append_block(p->a, &mod->regions[0], top_block)) return OOM();
  mod->pos = (shl_srcpos){p->lx.file, 1, 1};
  m->top = mod;
  m->implicit_top = true;
  return NULL;
}

shl_status parse_module_text(shl_parser *p, shloc_module *m);
shl_status parse_module_text(shl_parser *p, shloc_module *m) {
  shl_status st = module_body(p, m);
  arena_free(&p->scratch);
  return st;
}
