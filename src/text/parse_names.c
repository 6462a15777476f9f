/* SSA names while parsing: scopes (a region opens one; isolated ops such as
 * func.func see nothing outside theirs) mapping "%x" to values.
 *
 * Most programs name values "%<prefix><number>" with numbers counting up
 * (%0, %1, %arg0, %cst_3 as MLIR prints them), so per scope and prefix a
 * plain array indexed by the number holds them: 8 bytes per name, sequential
 * memory, no hashing.  Other names, and numbers far beyond what the array
 * holds (sparse or hostile numbering), go to a hash map. */
#include "parser.h"

enum {
  NUM_PREFIXES = 8,     /* prefixes with an array, per scope */
  NUM_SLACK = 1024,     /* numbers may run this far ahead of the array's fill */
  NUM_MAX_DIGITS = 9,   /* so numbers fit in uint32_t */
};

typedef struct {
  shl_str prefix; /* "%v", "%arg", "%" */
  void **vals;    /* number -> binding, NULL = not defined */
  uint32_t cap, count;
} num_names;

struct parse_scope {
  parse_scope *parent;
  shl_strmap names; /* names without an array slot */
  num_names *num;   /* NUM_PREFIXES entries, allocated on first use */
  uint32_t n_num;
  bool isolated;
};

/* "%x" maps to its value, tagged in the low bit (values are 16-byte aligned
 * arena objects), when it names one result, which saves an allocation per
 * op; "%x:N" maps to a name_binding for its N contiguous results, selected
 * with a `#n` suffix. */
typedef struct {
  uint32_t n;
  shl_value *first;
} name_binding;

static void *bind_single(shl_value *v) { return (void *)((uintptr_t)v | 1); }
static shl_value *bound_single(const void *b) {
  return ((uintptr_t)b & 1) ? (shl_value *)((uintptr_t)b & ~(uintptr_t)1) : NULL;
}

shl_status p_scope_push(shl_parser *p, bool isolated) {
  parse_scope *s = ARENA_NEW(&p->scratch, parse_scope);
  if (!s) return st_oom();
  s->parent = p->scope;
  s->isolated = isolated;
  strmap_init(&s->names, &p->scratch);
  p->scope = s;
  return NULL;
}

void p_scope_pop(shl_parser *p) { p->scope = p->scope->parent; }

/* Splits "%v12" into prefix "%v" and 12; false unless the name ends in a
 * canonical number (no leading zero: %v01 and %v1 are different names). */
static bool split_number(shl_str name, shl_str *prefix, uint32_t *num) {
  size_t d = name.n;
  while (d > 0 && name.p[d - 1] >= '0' && name.p[d - 1] <= '9') d--;
  size_t nd = name.n - d;
  if (nd == 0 || nd > NUM_MAX_DIGITS || (nd > 1 && name.p[d] == '0')) return false;
  uint32_t v = 0;
  for (size_t i = d; i < name.n; i++) v = v * 10 + (uint32_t)(name.p[i] - '0');
  *prefix = (shl_str){name.p, d};
  *num = v;
  return true;
}

static num_names *find_prefix(const parse_scope *s, shl_str prefix) {
  for (uint32_t i = 0; i < s->n_num; i++) {
    shl_str q = s->num[i].prefix; /* short: compare inline rather than call memcmp */
    if (q.n != prefix.n) continue;
    size_t k = 0;
    while (k < q.n && q.p[k] == prefix.p[k]) k++;
    if (k == q.n) return &s->num[i];
  }
  return NULL;
}

/* The binding of `name` in scope s alone, or NULL. */
static void *scope_get(const parse_scope *s, shl_str name) {
  shl_str prefix;
  uint32_t k;
  if (s->n_num && split_number(name, &prefix, &k)) {
    const num_names *nn = find_prefix(s, prefix);
    if (nn && k < nn->cap && nn->vals[k]) return nn->vals[k];
  }
  return strmap_get(&s->names, name);
}

/* Stores a binding for a name known to be new in s; false when out of memory. */
static bool scope_put(shl_parser *p, parse_scope *s, shl_str name, void *b) {
  shl_str prefix;
  uint32_t k;
  if (split_number(name, &prefix, &k)) {
    num_names *nn = find_prefix(s, prefix);
    if (!nn && s->n_num < NUM_PREFIXES) {
      if (!s->num && !(s->num = ARENA_ARRAY(&p->scratch, num_names, NUM_PREFIXES))) return false;
      nn = &s->num[s->n_num++];
      nn->prefix = prefix;
    }
    if (nn && k < (uint64_t)nn->count * 2 + NUM_SLACK && k < (1u << 30)) {
      if (k >= nn->cap) {
        uint32_t ncap = nn->cap ? nn->cap : 64;
        while (ncap <= k) ncap *= 2;
        void **nv = ARENA_ARRAY(&p->scratch, void *, ncap);
        if (!nv) return false;
        if (nn->cap) memcpy(nv, nn->vals, nn->cap * sizeof *nv);
        nn->vals = nv;
        nn->cap = ncap;
      }
      nn->vals[k] = b;
      nn->count++;
      return true;
    }
  }
  return strmap_put(&s->names, name, b);
}

static void *lookup(shl_parser *p, shl_str name) {
  for (parse_scope *s = p->scope; s; s = s->parent) {
    void *b = scope_get(s, name);
    if (b) return b;
    if (s->isolated) break;
  }
  return NULL;
}

static shl_status define_binding(shl_parser *p, const shl_token *t, void *b) {
  /* Names are unique up to the enclosing isolated scope (no shadowing). */
  if (lookup(p, t->text))
    return parse_error_at(p, t, "redefinition of SSA value '%.*s'", (int)t->text.n, t->text.p);
  return scope_put(p, p->scope, t->text, b) ? NULL : st_oom();
}

shl_status p_define(shl_parser *p, const shl_token *name_tok, shl_value *v) {
  return define_binding(p, name_tok, bind_single(v));
}

shl_status p_define_results(shl_parser *p, const shl_token *name_tok, shl_value *first, uint32_t count) {
  if (count == 1) return p_define(p, name_tok, first);
  name_binding *nb = ARENA_NEW(&p->scratch, name_binding);
  if (!nb) return st_oom();
  nb->n = count;
  nb->first = first;
  return define_binding(p, name_tok, nb);
}

shl_status p_operand(shl_parser *p, shl_value **out) {
  shl_token t = *p_tok(p);
  if (t.kind != TK_PERCENT_ID) {
    char buf[64];
    return parse_error(p, "expected SSA value, found %s", p_tok_desc(&t, buf, sizeof buf));
  }
  p_next(p);
  int64_t idx = -1;
  /* `%x#1`: the lexer leaves '#1' as a hash identifier right after. */
  if (p_tok(p)->kind == TK_HASH_ID && p_tok(p)->text.p == t.text.p + t.text.n) {
    shl_str num = {p_tok(p)->text.p + 1, p_tok(p)->text.n - 1};
    idx = 0;
    for (size_t i = 0; i < num.n; i++) {
      if (num.p[i] < '0' || num.p[i] > '9' || idx > 100000000) return parse_error(p, "invalid result number");
      idx = idx * 10 + (num.p[i] - '0');
    }
    p_next(p);
  }
  void *bound = lookup(p, t.text);
  if (!bound) return parse_error_at(p, &t, "use of undeclared SSA value '%.*s'", (int)t.text.n, t.text.p);
  shl_value *single = bound_single(bound);
  if (single) {
    if (idx > 0) return parse_error_at(p, &t, "result number %lld out of range", (long long)idx);
    *out = single;
    return NULL;
  }
  const name_binding *b = bound;
  if (idx < 0)
    return parse_error_at(p, &t, "'%.*s' names %u results; use '#N' to pick one", (int)t.text.n, t.text.p, b->n);
  if ((uint64_t)idx >= b->n) return parse_error_at(p, &t, "result number %lld out of range", (long long)idx);
  *out = &b->first[idx];
  return NULL;
}
