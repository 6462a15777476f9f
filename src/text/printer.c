/* Printer core: output buffer, SSA names (numbered like MLIR's AsmPrinter),
 * types, attributes, regions, the generic op form and module printing. */
#include "printer.h"
#include "print_value.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "support/scalar.h"
#include "support/floatfmt.h"
#include "support/hex.h"
#include "support/strmap.h"

/* ------------------------------------------------------------------ output */

enum { PR_STAGE = 64 * 1024 }; /* staging buffer size when streaming to a sink */

static void flush(shl_printer *pr) {
  if (pr->len && !pr->oom && !pr->sink(pr->sink_user, pr->buf, pr->len)) pr->oom = pr->io_error = true;
  pr->len = 0;
}

bool pr_reserve(shl_printer *pr, size_t extra) {
  if (pr->oom) return false;
  if (pr->len + extra + 1 <= pr->cap) return true;
  if (pr->sink && pr->len) {
    flush(pr);
    if (pr->oom) return false;
    if (extra + 1 <= pr->cap) return true;
  }
  size_t ncap = pr->cap ? pr->cap : pr->sink ? PR_STAGE : 4096;
  while (ncap < pr->len + extra + 1) {
    if (ncap > SIZE_MAX / 2) {
      pr->oom = true;
      return false;
    }
    ncap *= 2;
  }
  char *nb = realloc(pr->buf, ncap);
  if (!nb) {
    pr->oom = true;
    return false;
  }
  pr->buf = nb;
  pr->cap = ncap;
  return true;
}

void pr_putn(shl_printer *pr, const char *s, size_t n) {
  if (pr->len + n < pr->cap && !pr->oom) { /* fast path: fits, NUL included */
    memcpy(pr->buf + pr->len, s, n);
    pr->len += n;
    pr->buf[pr->len] = 0;
    return;
  }
  if (pr->sink && n >= PR_STAGE / 2) {
    /* Large pieces (verbatim hex constants) go straight to the sink. */
    flush(pr);
    if (!pr->oom && !pr->sink(pr->sink_user, s, n)) pr->oom = pr->io_error = true;
    return;
  }
  if (!pr_reserve(pr, n)) return;
  memcpy(pr->buf + pr->len, s, n);
  pr->len += n;
  pr->buf[pr->len] = 0;
}

void pr_uint(shl_printer *pr, unsigned long long v) {
  char buf[24], *e = buf + sizeof buf, *p = e;
  do *--p = (char)('0' + v % 10);
  while (v /= 10);
  pr_putn(pr, p, (size_t)(e - p));
}

void pr_int(shl_printer *pr, long long v) {
  if (v < 0) pr_putn(pr, "-", 1);
  pr_uint(pr, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v);
}
void pr_str(shl_printer *pr, shl_str s) { pr_putn(pr, s.p, s.n); }

void pr_printf(shl_printer *pr, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof buf) {
    pr_putn(pr, buf, (size_t)n);
    return;
  }
  if (!pr_reserve(pr, (size_t)n)) return;
  va_start(ap, fmt);
  vsnprintf(pr->buf + pr->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  pr->len += (size_t)n;
}

void pr_newline(shl_printer *pr) {
  pr_putn(pr, "\n", 1);
  for (int i = 0; i < pr->indent; i++) pr_putn(pr, "  ", 2);
}

/* ------------------------------------------------------------------ names */

/* Value -> printed name, plus the set of names in use for uniquing.  The
 * set is scoped: leaving a region restores the counters and forgets the
 * names it introduced, like MLIR, so sibling regions reuse numbers.  A
 * value's name is kept in its scratch field (shl_value.id), written by the
 * naming pass of the isolated op that holds it before anything is printed.
 * Numbered names (%12, %arg3: nearly all of them) are encoded in the field
 * itself and spelled when printed; others are indexes into `strs`. */
typedef uint32_t pr_name; /* 0: none; low bit 1: n << 2 | is_arg << 1 | 1; else string index + 1, << 1 */

enum { NUMBERED_MAX = UINT32_MAX >> 2 };

struct name_table {
  shl_arena arena;
  shl_strmap used;
  const char **strs;
  uint32_t n_strs, cap_strs;
  uint32_t next_value, next_arg, next_conflict;
  shl_str *undo;
  size_t undo_len, undo_cap;
};

static void set_name(shl_value *v, pr_name name) { v->id = name; }

/* The name of a string (0 when out of memory). */
static pr_name string_name(name_table *nt, const char *s) {
  if (!s) return 0;
  if (nt->n_strs == nt->cap_strs) {
    uint32_t ncap = nt->cap_strs ? nt->cap_strs * 2 : 64;
    const char **ns = ncap < nt->cap_strs ? NULL : realloc(nt->strs, ncap * sizeof *ns);
    if (!ns) return 0;
    nt->strs = ns;
    nt->cap_strs = ncap;
  }
  nt->strs[nt->n_strs++] = s;
  return nt->n_strs << 1;
}

/* The string of a non-numbered name, NULL for a numbered one (or a value
 * this printer did not name, which only invalid IR can reference). */
static const char *name_str(const name_table *nt, pr_name n) {
  return (n & 1) || !n || (n >> 1) > nt->n_strs ? NULL : nt->strs[(n >> 1) - 1];
}

static void mark_used(name_table *nt, const char *name) {
  shl_str s = str_of(name);
  strmap_put(&nt->used, s, (void *)name);
  if (nt->undo_len == nt->undo_cap) {
    size_t ncap = nt->undo_cap ? nt->undo_cap * 2 : 64;
    shl_str *nu = realloc(nt->undo, ncap * sizeof *nu);
    if (!nu) return;
    nt->undo = nu;
    nt->undo_cap = ncap;
  }
  nt->undo[nt->undo_len++] = s;
}

/* Unique name from a suggestion: "cst", then "cst_0", "cst_1", ... */
static const char *unique_str(name_table *nt, const char *base) {
  char buf[96];
  snprintf(buf, sizeof buf, "%%%s", base);
  while (strmap_get(&nt->used, str_of(buf))) snprintf(buf, sizeof buf, "%%%s_%u", base, nt->next_conflict++);
  const char *name = arena_strndup(&nt->arena, buf, strlen(buf));
  if (name) mark_used(nt, name);
  return name;
}

static pr_name unique_name(name_table *nt, const char *base) { return string_name(nt, unique_str(nt, base)); }

/* %<n> or %arg<n>.  Not entered into `used`: suggested names (cst, c_0,
 * iterArg, ...) never take these forms, so they cannot collide. */
static pr_name numbered(name_table *nt, bool arg, uint32_t n) {
  if (n <= NUMBERED_MAX) return n << 2 | (pr_name)arg << 1 | 1;
  char buf[32];
  snprintf(buf, sizeof buf, "%%%s%u", arg ? "arg" : "", n);
  return string_name(nt, arena_strndup(&nt->arena, buf, strlen(buf)));
}

/* Name suggestions (MLIR's getAsmResultNames of the StableHLO ops). */
static const char *suggest_result(const shl_op *op, uint32_t i) {
  switch (op_id(op)) {
    case OP_CONSTANT: {
      shl_dtype dt = op->results[0].type->dtype;
      return (dtype_is_float(dt) || dtype_is_complex(dt)) ? "cst" : "c";
    }
    case OP_RNG_BIT_GENERATOR:
      return i == 0 ? "output_state" : "output";
    case OP_CHLO_TOP_K:
      return i == 0 ? "values" : "indices";
    default:
      return NULL;
  }
}

/* Entry-block argument names the op's pretty form suggests (MLIR's
 * getAsmBlockArgumentNames): while's iterArg, scan's input/carry. */
static const char *suggest_arg(const shl_op *op, uint32_t i) {
  if (!op) return NULL;
  if (op_is(op, OP_WHILE)) return "iterArg";
  if (op_is(op, OP_CHLO_SCAN)) {
    /* inputs first, then carries (one per result beyond the outputs) */
    const shl_attr *seg = op_attr(op, "operandSegmentSizes");
    int64_t n_in[2];
    size_t n = 0;
    bool ok = seg && attr_as_ints(seg, n_in, 2, &n) && n == 2;
    return ok && i >= (uint64_t)n_in[0] ? "carry" : "input";
  }
  return NULL;
}

/* Isolated ops whose numbering starts afresh: func and module, which have no
 * results and sit where no values precede them, so restarting is what MLIR's
 * carried-over counters amount to.  Other isolated ops (chlo.scan) continue
 * the enclosing numbering, as MLIR does. */
static bool naming_root(const shl_op *op) { return (op->def->traits & T_ISO) && op->n_results == 0; }

static void name_region(name_table *nt, const shl_region *r, const shl_op *owner);

static void name_block_args(name_table *nt, const shl_block *b, const shl_op *owner) {
  for (uint32_t i = 0; i < b->n_args; i++) {
    const char *suggest = suggest_arg(owner, i);
    set_name(&b->args[i], suggest ? unique_name(nt, suggest) : numbered(nt, true, nt->next_arg++));
  }
}

static void name_ops(name_table *nt, const shl_block *b) {
  for (const shl_op *op = b->first; op; op = op->next) {
    if (!op->n_results) continue;
    const char *s0 = suggest_result(op, 0);
    bool individually = s0 && op->n_results > 1;
    if (individually) {
      for (uint32_t i = 0; i < op->n_results; i++) set_name(&op->results[i], unique_name(nt, suggest_result(op, i)));
      continue;
    }
    if (op->n_results == 1) {
      set_name(&op->results[0], s0 ? unique_name(nt, s0) : numbered(nt, false, nt->next_value++));
      continue;
    }
    char base[64];
    if (s0) {
      const char *u = unique_str(nt, s0);
      if (!u) continue;
      snprintf(base, sizeof base, "%s", u);
    } else {
      snprintf(base, sizeof base, "%%%u", nt->next_value++);
    }
    for (uint32_t i = 0; i < op->n_results; i++) {
      char buf[80];
      snprintf(buf, sizeof buf, "%s#%u", base, i);
      set_name(&op->results[i], string_name(nt, arena_strndup(&nt->arena, buf, strlen(buf))));
    }
  }
  for (const shl_op *op = b->first; op; op = op->next) {
    if (naming_root(op)) continue; /* named when printed */
    for (uint32_t r = 0; r < op->n_regions; r++) {
      uint32_t sv = nt->next_value, sa = nt->next_arg, sc = nt->next_conflict;
      size_t su = nt->undo_len;
      /* Both regions of a while restart from the same counters, so cond
       * and body arguments get the same names, as the pretty form requires. */
      name_region(nt, &op->regions[r], op);
      nt->next_value = sv;
      nt->next_arg = sa;
      nt->next_conflict = sc;
      while (nt->undo_len > su) strmap_put(&nt->used, nt->undo[--nt->undo_len], NULL);
    }
  }
}

/* Names the entry block's arguments as `owner` suggests (numbered otherwise). */
static void name_region(name_table *nt, const shl_region *r, const shl_op *owner) {
  for (uint32_t i = 0; i < r->n_blocks; i++) name_block_args(nt, r->blocks[i], i ? NULL : owner);
  for (uint32_t i = 0; i < r->n_blocks; i++) name_ops(nt, r->blocks[i]);
}

/* Starts a fresh naming scope for an isolated op (func.func, module). */
static void names_begin_isolated(name_table *nt, const shl_op *op) {
  nt->next_value = nt->next_arg = nt->next_conflict = 0;
  for (uint32_t r = 0; r < op->n_regions; r++) name_region(nt, &op->regions[r], NULL);
}

/* ---- one value's name, as the printer would write it ---- */

/* Calls fn on every value defined in the regions of op (block arguments and
 * results, nested regions included). */
static void each_value(const shl_op *op, void (*fn)(shl_value *v, void *arg), void *arg) {
  for (uint32_t r = 0; r < op->n_regions; r++)
    for (uint32_t b = 0; b < op->regions[r].n_blocks; b++) {
      shl_block *blk = op->regions[r].blocks[b];
      for (uint32_t i = 0; i < blk->n_args; i++) fn(&blk->args[i], arg);
      for (shl_op *o = blk->first; o; o = o->next) {
        for (uint32_t i = 0; i < o->n_results; i++) fn(&o->results[i], arg);
        each_value(o, fn, arg);
      }
    }
}

typedef struct {
  uint32_t *ids;
  size_t n;
  bool restore;
} id_save;

static void save_or_restore_id(shl_value *v, void *arg) {
  id_save *s = arg;
  if (s->ids && s->restore) v->id = s->ids[s->n];
  else if (s->ids) s->ids[s->n] = v->id;
  s->n++;
}

/* The naming pass writes every value's scratch id: keep the caller's ids of
 * the values under `root` (false when out of memory) ... */
static bool ids_save(const shl_op *root, id_save *s) {
  *s = (id_save){0};
  each_value(root, save_or_restore_id, s);
  s->ids = malloc((s->n ? s->n : 1) * sizeof *s->ids);
  if (!s->ids) return false;
  s->n = 0;
  each_value(root, save_or_restore_id, s);
  return true;
}

/* ... and put them back. */
static void ids_restore(const shl_op *root, id_save *s) {
  s->n = 0;
  s->restore = true;
  each_value(root, save_or_restore_id, s);
  free(s->ids);
}

static void names_init(name_table *nt) {
  memset(nt, 0, sizeof *nt);
  arena_init(&nt->arena);
  strmap_init(&nt->used, &nt->arena);
}

static void names_free(name_table *nt) {
  free(nt->undo);
  free(nt->strs);
  arena_free(&nt->arena);
}

/* Hands the printed text to the caller, NUL-terminated (out_len may be NULL). */
static shl_status pr_finish(shl_printer *pr, char **out, size_t *out_len) {
  if (pr->oom || !pr_reserve(pr, 0)) {
    free(pr->buf);
    return st_oom();
  }
  pr->buf[pr->len] = 0;
  *out = pr->buf;
  if (out_len) *out_len = pr->len;
  return NULL;
}

shl_status printer_value_name(const shl_value *v, char **out) {
  *out = NULL;
  /* The naming root: the isolated op (func.func) that holds the value. */
  const shl_op *root = v->def ? v->def : v->block->region->parent;
  while (root && !naming_root(root)) root = root->block ? root->block->region->parent : NULL;
  if (!root) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "value outside a function");
  id_save save;
  if (!ids_save(root, &save)) return st_oom();
  name_table nt;
  names_init(&nt);
  names_begin_isolated(&nt, root);
  shl_printer pr = {.names = &nt};
  pr_value(&pr, v);
  ids_restore(root, &save);
  names_free(&nt);
  return pr_finish(&pr, out, NULL);
}

void pr_value(shl_printer *pr, const shl_value *v) {
  pr_name n = v->id;
  const char *str = name_str(pr->names, n);
  if (n & 1) {
    pr_putn(pr, "%arg", n & 2 ? 4 : 1);
    pr_uint(pr, n >> 2);
  } else {
    pr_puts(pr, str ? str : "%<<UNKNOWN>>");
  }
}

void pr_values(shl_printer *pr, shl_value *const *vs, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (i) pr_puts(pr, ", ");
    pr_value(pr, vs[i]);
  }
}

/* Prints `@name` or `@"name"` when it is not a plain identifier. */
void pr_symbol_name(shl_printer *pr, shl_str s) {
  bool plain = s.n > 0;
  for (size_t i = 0; i < s.n; i++) {
    char c = s.p[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
          (i && ((c >= '0' && c <= '9') || c == '.' || c == '$' || c == '-'))))
      plain = false;
  }
  pr_puts(pr, "@");
  if (plain) pr_str(pr, s);
  else pr_string_lit(pr, s);
}

/* ------------------------------------------------------------------ types */

void pr_elem_type(shl_printer *pr, const shl_type *t) {
  if (t->dtype == DT_QUANT && t->quant) pr_str(pr, t->quant->text);
  else pr_puts(pr, dtype_name(t->dtype));
}

static void type_list(shl_printer *pr, const shl_type *const *ts, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (i) pr_puts(pr, ", ");
    pr_type(pr, ts[i]);
  }
}

/* `2x?xf32` of a tensor or memref type (`*xf32` when unranked). */
static void shape_and_elem(shl_printer *pr, const shl_type *t) {
  if (t->rank < 0) pr_puts(pr, "*x");
  for (int i = 0; i < t->rank; i++) {
    if (t->dims[i] == SHL_DYN) pr_puts(pr, "?x");
    else {
      pr_int(pr, (long long)t->dims[i]);
      pr_putn(pr, "x", 1);
    }
  }
  pr_elem_type(pr, t);
}

/* A tensor encoding; StableHLO prints its bounds (either spelling) as
 * #stablehlo.bounds<...>. */
static void pr_encoding(shl_printer *pr, const shl_attr *a) {
  static const char ext[] = "#stablehlo.type_extensions<bounds = [";
  size_t n = sizeof ext - 1;
  if (a->kind == AT_OPAQUE && a->u.str.n > n + 2 && !memcmp(a->u.str.p, ext, n) &&
      !memcmp(a->u.str.p + a->u.str.n - 2, "]>", 2)) {
    pr_puts(pr, "#stablehlo.bounds<");
    pr_putn(pr, a->u.str.p + n, a->u.str.n - n - 2);
    pr_puts(pr, ">");
    return;
  }
  pr_attr(pr, a);
}

void pr_type(shl_printer *pr, const shl_type *t) {
  switch (t->kind) {
    case TY_TENSOR:
      pr_puts(pr, "tensor<");
      shape_and_elem(pr, t);
      if (t->encoding) {
        pr_puts(pr, ", ");
        pr_encoding(pr, t->encoding);
      }
      pr_puts(pr, ">");
      return;
    case TY_SCALAR:
      pr_elem_type(pr, t);
      return;
    case TY_TOKEN:
      pr_puts(pr, "!stablehlo.token");
      return;
    case TY_NONE:
      pr_puts(pr, "none");
      return;
    case TY_TUPLE:
      pr_puts(pr, t->future ? "!stablehlo.future<" : "tuple<");
      type_list(pr, t->in, t->n_in);
      pr_puts(pr, ">");
      return;
    case TY_FUNCTION:
      pr_puts(pr, "(");
      type_list(pr, t->in, t->n_in);
      pr_puts(pr, ") -> ");
      if (t->n_out == 1 && t->out[0]->kind != TY_FUNCTION) {
        pr_type(pr, t->out[0]);
      } else {
        pr_puts(pr, "(");
        type_list(pr, t->out, t->n_out);
        pr_puts(pr, ")");
      }
      return;
    case TY_OPAQUE:
      pr_str(pr, t->text);
      return;
    case TY_MEMREF:
      pr_puts(pr, "memref<");
      shape_and_elem(pr, t);
      if (t->encoding) {
        pr_puts(pr, ", ");
        pr_attr(pr, t->encoding);
      }
      if (t->memspace) { /* an i64 integer space prints without its type, as MLIR elides it */
        pr_puts(pr, ", ");
        if (t->memspace->kind == AT_INT && !t->memspace->type) pr_attr_bare(pr, t->memspace);
        else pr_attr(pr, t->memspace);
      }
      pr_puts(pr, ">");
      return;
  }
}

/* ------------------------------------------------------------------ attributes */

void pr_string_lit(shl_printer *pr, shl_str s) {
  static const char hx[] = "0123456789ABCDEF";
  pr_putn(pr, "\"", 1);
  size_t run = 0; /* start of the pending stretch of plain characters */
  for (size_t i = 0; i < s.n; i++) {
    unsigned char c = (unsigned char)s.p[i];
    if (c != '\\' && c != '"' && c >= 0x20 && c < 0x7f) continue;
    pr_putn(pr, s.p + run, i - run);
    run = i + 1;
    if (c == '\\') pr_putn(pr, "\\\\", 2);
    else pr_putn(pr, (const char[3]){'\\', hx[c >> 4], hx[c & 15]}, 3);
  }
  pr_putn(pr, s.p + run, s.n - run);
  pr_putn(pr, "\"", 1);
}

static uint64_t load_bits(const void *p, size_t sz) {
  uint64_t v = 0;
  memcpy(&v, p, sz);
  return v;
}

/* One element (storage bits) of type dt. */
static void pr_scalar(shl_printer *pr, shl_dtype dt, uint64_t bits) {
  char buf[64];
  switch (dtype_class(dt)) {
    case DTC_BOOL:
      pr_puts(pr, bits & 1 ? "true" : "false");
      return;
    case DTC_UINT: {
      unsigned w = dtype_bits(dt);
      if (w < 64) bits &= (1ull << w) - 1;
      pr_uint(pr, (unsigned long long)bits);
      return;
    }
    case DTC_SINT: {
      unsigned w = dtype_bits(dt);
      int64_t v = (int64_t)bits;
      if (w < 64) v = (int64_t)(bits << (64 - w)) >> (64 - w);
      pr_int(pr, (long long)v);
      return;
    }
    case DTC_FLOAT:
      fp_format(dt, bits, buf, sizeof buf);
      pr_puts(pr, buf);
      return;
    default:
      pr_puts(pr, "?");
  }
}

static void pr_element(shl_printer *pr, shl_dtype dt, const uint8_t *p) {
  if (dtype_is_complex(dt)) {
    shl_dtype e = dt == DT_C64 ? DT_F32 : DT_F64;
    size_t h = dtype_bytes(e);
    pr_puts(pr, "(");
    pr_scalar(pr, e, load_bits(p, h));
    pr_puts(pr, ",");
    pr_scalar(pr, e, load_bits(p + h, h));
    pr_puts(pr, ")");
    return;
  }
  pr_scalar(pr, dt, load_bits(p, dtype_bytes(dt)));
}

/* "0x..." with the storage of every element, as MLIR prints large
 * constants: i1 is bit-packed (least significant bit first) and sub-byte
 * elements keep only their low bits.  Encoded piecewise so that streaming
 * output never holds a whole constant's text. */
static void pr_dense_hex(shl_printer *pr, shl_dtype dt, const uint8_t *d, size_t count, size_t nbytes) {
  enum { PIECE = 16 * 1024 }; /* bytes encoded per step */
  unsigned w = dtype_bits(dt);
  unsigned mask = w < 8 ? (1u << w) - 1 : 0xFF;
  if (dt == DT_I1) nbytes = count / 8 + (count % 8 != 0);
  pr_putn(pr, "\"0x", 3);
  for (size_t at = 0; at < nbytes && !pr->oom; at += PIECE) {
    size_t n = nbytes - at < PIECE ? nbytes - at : PIECE;
    if (!pr_reserve(pr, 2 * n)) return;
    char *o = pr->buf + pr->len;
    if (dt == DT_I1) {
      uint8_t packed[PIECE];
      for (size_t i = 0; i < n; i++) {
        unsigned byte = 0;
        size_t e0 = (at + i) * 8;
        for (size_t b = 0; b < 8 && e0 + b < count; b++) byte |= (unsigned)(d[e0 + b] & 1) << b;
        packed[i] = (uint8_t)byte;
      }
      hex_encode(packed, n, 0xFF, o);
    } else {
      hex_encode(d + at, n, mask, o);
    }
    pr->len += 2 * n;
    pr->buf[pr->len] = 0;
  }
  pr_putn(pr, "\"", 1);
}

static void pr_dense_body(shl_printer *pr, const shl_attr *a) {
  const shl_type *t = a->type;
  shl_dtype dt = type_storage_dtype(t);
  size_t sz = dtype_bytes(dt);
  int64_t count = type_num_elements(t);
  const char *hex = attr_dense_hex(a);
  if (hex && count > 100) {
    /* Still the source's canonical digits: what encoding would produce. */
    pr_putn(pr, "\"0x", 3);
    pr_putn(pr, hex, 2 * a->u.dense.nbytes);
    pr_putn(pr, "\"", 1);
    return;
  }
  const uint8_t *d = attr_dense_data(a);
  if (a->u.dense.splat && a->u.dense.nbytes) { /* MLIR keeps a splat even for an empty shape */
    pr_element(pr, dt, d);
    return;
  }
  if (count == 0) return;
  if (count > 100 || t->rank > 64) {
    pr_dense_hex(pr, dt, d, (size_t)count, a->u.dense.nbytes);
    return;
  }
  /* Nested lists following the shape. */
  int rank = t->rank;
  int64_t idx[64] = {0};
  for (int64_t e = 0; e < count; e++) {
    int open = 0;
    for (int k = rank - 1; k >= 0 && idx[k] == 0; k--) open++;
    if (e) pr_puts(pr, ", ");
    for (int k = 0; k < open; k++) pr_puts(pr, "[");
    pr_element(pr, dt, d + (size_t)e * sz);
    int close = 0;
    for (int k = rank - 1; k >= 0; k--) {
      if (++idx[k] < t->dims[k]) break;
      idx[k] = 0;
      close++;
    }
    for (int k = 0; k < close; k++) pr_puts(pr, "]");
  }
}

void pr_int_list(shl_printer *pr, const shl_attr *a) {
  int64_t buf[64], *v = buf;
  size_t n = 0;
  pr_puts(pr, "[");
  if (attr_as_ints(a, NULL, 0, &n)) {
    if (n > 64) v = malloc(n * sizeof *v);
    if (v && attr_as_ints(a, v, n, &n))
      for (size_t i = 0; i < n; i++) pr_printf(pr, i ? ", %lld" : "%lld", (long long)v[i]);
    if (v != buf) free(v);
  }
  pr_puts(pr, "]");
}

void pr_conv_dims(shl_printer *pr, const shl_attr *c) {
  static const char *const sides[3][3] = {
      {"input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions"},
      {"kernel_input_feature_dimension", "kernel_output_feature_dimension", "kernel_spatial_dimensions"},
      {"output_batch_dimension", "output_feature_dimension", "output_spatial_dimensions"}};
  static const char letters[3][2] = {{'b', 'f'}, {'i', 'o'}, {'b', 'f'}};
  for (int s = 0; s < 3; s++) {
    int64_t a = -1, b = -1, sp[64];
    size_t ns = 0;
    attr_as_int(attr_struct_field(c, sides[s][0]), &a);
    attr_as_int(attr_struct_field(c, sides[s][1]), &b);
    attr_as_ints(attr_struct_field(c, sides[s][2]), sp, 64, &ns);
    if (ns > 64) ns = 64;
    size_t rank = ns + 2;
    if (s == 1) pr_puts(pr, "x");
    if (s == 2) pr_puts(pr, "->");
    pr_puts(pr, "[");
    for (size_t pos = 0; pos < rank; pos++) {
      if (pos) pr_puts(pr, ", ");
      if ((int64_t)pos == a) pr_printf(pr, "%c", letters[s][0]);
      else if ((int64_t)pos == b) pr_printf(pr, "%c", letters[s][1]);
      else {
        for (size_t i = 0; i < ns; i++)
          if (sp[i] == (int64_t)pos) pr_printf(pr, "%zu", i);
      }
    }
    pr_puts(pr, "]");
  }
}

static void pr_attr_elided(shl_printer *pr, const shl_attr *a);

/* `bare_ints`: struct fields, whose integer lists print as "[1, 2]" and whose
 * scalars elide the default types like array elements. */
static void pr_named_list(shl_printer *pr, const shl_named_attr *items, uint32_t n, bool bare_ints) {
  for (uint32_t i = 0; i < n; i++) {
    if (i) pr_puts(pr, ", ");
    shl_str name = items[i].name;
    bool plain = name.n > 0;
    for (size_t k = 0; k < name.n; k++) {
      char c = name.p[k];
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (k && ((c >= '0' && c <= '9') || c == '.' || c == '$'))))
        plain = false;
    }
    if (plain) pr_str(pr, name);
    else pr_string_lit(pr, name);
    if (items[i].attr->kind == AT_UNIT) continue;
    pr_puts(pr, " = ");
    const shl_attr *a = items[i].attr;
    if (bare_ints && a->kind == AT_INTLIST) pr_attr_bare(pr, a);
    else if (bare_ints) pr_attr_elided(pr, a);
    else pr_attr(pr, a);
  }
}

/* #chlo.ragged_dot<...> as upstream prints it: fields in declaration order,
 * empty lists left out. */
static void pr_ragged_dot_dims(shl_printer *pr, const shl_attr *a) {
  static const char *const order[] = {"lhs_batching_dimensions",    "rhs_batching_dimensions",
                                      "lhs_contracting_dimensions", "rhs_contracting_dimensions",
                                      "lhs_ragged_dimensions",      "rhs_group_dimensions"};
  const char *sep = "";
  for (size_t k = 0; k < sizeof order / sizeof *order; k++) {
    const shl_attr *f = attr_struct_field(a, order[k]);
    size_t n = 0;
    if (!f || (attr_as_ints(f, NULL, 0, &n) && n == 0)) continue;
    pr_puts(pr, sep);
    pr_puts(pr, order[k]);
    pr_puts(pr, " = ");
    if (f->kind == AT_INTLIST) pr_attr_bare(pr, f);
    else pr_attr(pr, f);
    sep = ", ";
  }
}

void pr_attr_bare(shl_printer *pr, const shl_attr *a) {
  switch (a->kind) {
    case AT_INT:
      pr_scalar(pr, a->type ? a->type->dtype : DT_I64, (uint64_t)a->u.i);
      return;
    case AT_FLOAT:
      pr_scalar(pr, a->type->dtype, a->u.f_bits);
      return;
    case AT_INTLIST:
      pr_int_list(pr, a);
      return;
    default:
      pr_attr(pr, a);
  }
}

void pr_dense_literal(shl_printer *pr, const shl_attr *a) {
  pr_puts(pr, "dense<");
  pr_dense_body(pr, a);
  pr_puts(pr, ">");
}

/* Array elements and struct fields elide the default types (i64, f64), as
 * MLIR prints them; except an f64 printed as a hex bit pattern, which would
 * read back as i64. */
static void pr_attr_elided(shl_printer *pr, const shl_attr *a) {
  if (a->kind == AT_FLOAT && a->type->dtype == DT_F64) {
    char buf[FP_FORMAT_MAX];
    fp_format(DT_F64, a->u.f_bits, buf, sizeof buf);
    pr_puts(pr, buf);
    if (buf[0] == '0' && buf[1] == 'x') pr_puts(pr, " : f64");
  } else if (a->kind == AT_INT && (!a->type || a->type->dtype == DT_I64)) {
    pr_attr_bare(pr, a);
  } else {
    pr_attr(pr, a);
  }
}

/* StableHLO prints the fields of its structured attributes in declaration
 * order, whatever order the source wrote them in. */
static const char *const *struct_order(shl_str name) {
  static const char *const scatter[] = {"update_window_dims", "inserted_window_dims", "input_batching_dims",
                                        "scatter_indices_batching_dims", "scatter_dims_to_operand_dims",
                                        "index_vector_dim", NULL};
  static const char *const gather[] = {"offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                                       "start_indices_batching_dims", "start_index_map", "index_vector_dim", NULL};
  static const char *const dot[] = {"lhs_batching_dimensions", "rhs_batching_dimensions",
                                    "lhs_contracting_dimensions", "rhs_contracting_dimensions", NULL};
  static const char *const algorithm[] = {"lhs_precision_type", "rhs_precision_type", "accumulation_type",
                                          "lhs_component_count", "rhs_component_count", "num_primitive_operations",
                                          "allow_imprecise_accumulation", NULL};
  static const char *const alias[] = {"output_tuple_indices", "operand_index", "operand_tuple_indices", NULL};
  if (str_eq_c(name, "stablehlo.scatter")) return scatter;
  if (str_eq_c(name, "stablehlo.gather")) return gather;
  if (str_eq_c(name, "stablehlo.dot")) return dot;
  if (str_eq_c(name, "stablehlo.dot_algorithm")) return algorithm;
  if (str_eq_c(name, "stablehlo.output_operand_alias")) return alias;
  return NULL;
}

static void pr_struct_fields(shl_printer *pr, const shl_attr *a) {
  const char *const *order = struct_order(a->u.st.name);
  if (!order) {
    pr_named_list(pr, a->u.st.fields, a->u.st.n, true);
    return;
  }
  bool first = true;
  /* Known fields in declaration order, then any others as written. */
  for (const char *const *o = order; *o; o++)
    for (uint32_t i = 0; i < a->u.st.n; i++)
      if (str_eq_c(a->u.st.fields[i].name, *o)) {
        if (!first) pr_puts(pr, ", ");
        first = false;
        pr_named_list(pr, &a->u.st.fields[i], 1, true);
      }
  for (uint32_t i = 0; i < a->u.st.n; i++) {
    bool known = false;
    for (const char *const *o = order; *o && !known; o++) known = str_eq_c(a->u.st.fields[i].name, *o);
    if (known) continue;
    if (!first) pr_puts(pr, ", ");
    first = false;
    pr_named_list(pr, &a->u.st.fields[i], 1, true);
  }
}

void pr_attr(shl_printer *pr, const shl_attr *a) {
  switch (a->kind) {
    case AT_UNIT:
      pr_puts(pr, "unit");
      return;
    case AT_BOOL:
      pr_puts(pr, a->u.b ? "true" : "false");
      return;
    case AT_INT:
    case AT_FLOAT:
      pr_attr_bare(pr, a);
      if (a->type) {
        pr_puts(pr, " : ");
        pr_type(pr, a->type);
      } else {
        pr_puts(pr, " : i64");
      }
      return;
    case AT_STRING:
      pr_string_lit(pr, a->u.str);
      if (a->type) {
        pr_puts(pr, " : ");
        pr_type(pr, a->type);
      }
      return;
    case AT_TYPE:
      pr_type(pr, a->type);
      return;
    case AT_ARRAY:
      pr_puts(pr, "[");
      for (uint32_t i = 0; i < a->u.arr.n; i++) {
        if (i) pr_puts(pr, ", ");
        pr_attr_elided(pr, a->u.arr.items[i]);
      }
      pr_puts(pr, "]");
      return;
    case AT_INTLIST:
      pr_int_list(pr, a);
      return;
    case AT_DENSE_ARRAY: {
      shl_dtype dt = a->type->dtype;
      pr_printf(pr, "array<%s", dtype_name(dt));
      size_t sz = dtype_bytes(dt);
      for (int64_t i = 0; i < a->u.darr.n; i++) {
        pr_puts(pr, i ? ", " : ": ");
        pr_scalar(pr, dt, load_bits((const char *)a->u.darr.data + (size_t)i * sz, sz));
      }
      pr_puts(pr, ">");
      return;
    }
    case AT_DENSE:
      pr_puts(pr, "dense<");
      pr_dense_body(pr, a);
      pr_puts(pr, "> : ");
      pr_type(pr, a->type);
      return;
    case AT_DICT:
      pr_puts(pr, "{");
      pr_named_list(pr, a->u.dict.items, a->u.dict.n, false);
      pr_puts(pr, "}");
      return;
    case AT_SYMREF:
      pr_str(pr, a->u.str);
      return;
    case AT_ENUM:
      pr_puts(pr, "#");
      pr_str(pr, a->u.en.dialect);
      pr_puts(pr, "<");
      pr_str(pr, a->u.en.name);
      pr_puts(pr, " ");
      pr_str(pr, a->u.en.value);
      pr_puts(pr, ">");
      return;
    case AT_STRUCT:
      pr_puts(pr, "#");
      pr_str(pr, a->u.st.name);
      pr_puts(pr, "<");
      if (str_eq_c(a->u.st.name, "stablehlo.conv")) pr_conv_dims(pr, a);
      else if (str_eq_c(a->u.st.name, "chlo.ragged_dot")) pr_ragged_dot_dims(pr, a);
      else pr_struct_fields(pr, a);
      pr_puts(pr, ">");
      return;
    case AT_OPAQUE:
      pr_str(pr, a->u.str);
      if (a->type) {
        pr_puts(pr, " : ");
        pr_type(pr, a->type);
      }
      return;
  }
}

/* ------------------------------------------------------------------ ops */

static bool elided(shl_str name, const char *const *elide) {
  for (; elide && *elide; elide++)
    if (str_eq_c(name, *elide)) return true;
  return false;
}

/* Attributes StableHLO declares with a default value are left out of the
 * pretty form when they hold it, as MLIR's printers do. */
static bool holds_default(const shl_op *op, const shl_named_attr *na) {
  const shl_attr *a = na->attr;
  if (str_eq_c(na->name, "result_accuracy")) return attr_is_default_result_accuracy(a);
  if (!op_is(op, OP_CUSTOM_CALL)) return false;
  if (str_eq_c(na->name, "api_version")) return a->kind == AT_INT && a->u.i == 1;
  if (str_eq_c(na->name, "has_side_effect")) return a->kind == AT_BOOL && !a->u.b;
  if (str_eq_c(na->name, "called_computations") || str_eq_c(na->name, "output_operand_aliases"))
    return a->kind == AT_ARRAY && a->u.arr.n == 0;
  return false;
}

void pr_attr_dict(shl_printer *pr, const shl_op *op, const char *const *elide) {
  bool any = false;
  for (uint32_t i = 0; i < op->n_attrs; i++) {
    if (elided(op->attrs[i].name, elide) || holds_default(op, &op->attrs[i])) continue;
    pr_puts(pr, any ? ", " : " {");
    any = true;
    pr_named_list(pr, &op->attrs[i], 1, false);
  }
  if (any) pr_puts(pr, "}");
}

void pr_functional_type(shl_printer *pr, const shl_op *op) {
  pr_puts(pr, "(");
  for (uint32_t i = 0; i < op->n_operands; i++) {
    if (i) pr_puts(pr, ", ");
    pr_type(pr, op->operands[i]->type);
  }
  pr_puts(pr, ") -> ");
  if (op->n_results == 1 && op->results[0].type->kind != TY_FUNCTION) {
    pr_type(pr, op->results[0].type);
    return;
  }
  pr_puts(pr, "(");
  for (uint32_t i = 0; i < op->n_results; i++) {
    if (i) pr_puts(pr, ", ");
    pr_type(pr, op->results[i].type);
  }
  pr_puts(pr, ")");
}

void pr_same_or_functional_type(shl_printer *pr, const shl_op *op) {
  pr_puts(pr, " : ");
  const shl_type *t = op->n_results ? op->results[0].type : NULL;
  bool same = t != NULL;
  for (uint32_t i = 0; same && i < op->n_operands; i++) same = type_eq(op->operands[i]->type, t);
  for (uint32_t i = 1; same && i < op->n_results; i++) same = type_eq(op->results[i].type, t);
  if (same) pr_type(pr, t);
  else pr_functional_type(pr, op);
}

static void pr_loc_text(shl_printer *pr, shl_str loc) {
  if ((pr->flags & SHLOC_PRINT_DEBUGINFO) && loc.n) {
    pr_puts(pr, " ");
    pr_str(pr, loc);
  }
}

void pr_loc(shl_printer *pr, const shl_op *op) { pr_loc_text(pr, op->loc); }

void pr_arg_loc(shl_printer *pr, const shl_block *b, uint32_t i) {
  if (b->arg_locs) pr_loc_text(pr, b->arg_locs[i]);
}

static const print_fn print_table[OP_COUNT] = {
#define OP(id, name, traits, syn, ver, ker) [OP_##id] = print_##syn,
#include "ir/ops.def"
#undef OP
};

static void print_op(shl_printer *pr, const shl_op *op) {
  name_table *nt = pr->names;
  size_t saved_undo = nt->undo_len;
  if (naming_root(op)) names_begin_isolated(nt, op);
  if (op->n_results) {
    const char *first = name_str(nt, op->results[0].id);
    bool grouped = op->n_results > 1 && first && strchr(first, '#');
    if (grouped) {
      pr_putn(pr, first, (size_t)(strchr(first, '#') - first));
      pr_printf(pr, ":%u", op->n_results);
    } else {
      for (uint32_t i = 0; i < op->n_results; i++) {
        if (i) pr_puts(pr, ", ");
        pr_value(pr, &op->results[i]);
      }
    }
    pr_puts(pr, " = ");
  }
  if (pr->flags & SHLOC_PRINT_GENERIC) pr_generic_op(pr, op);
  else print_table[op_id(op)](pr, op);
  pr_loc(pr, op);
  if (naming_root(op))
    while (nt->undo_len > saved_undo) strmap_put(&nt->used, nt->undo[--nt->undo_len], NULL);
}

static void print_block_header(shl_printer *pr, const shl_block *b, uint32_t index) {
  pr->indent--;
  pr_newline(pr);
  pr->indent++;
  pr_puts(pr, "^bb");
  pr_uint(pr, index);
  if (b->n_args) {
    pr_puts(pr, "(");
    for (uint32_t i = 0; i < b->n_args; i++) {
      if (i) pr_puts(pr, ", ");
      pr_value(pr, &b->args[i]);
      pr_puts(pr, ": ");
      pr_type(pr, b->args[i].type);
      pr_arg_loc(pr, b, i);
    }
    pr_puts(pr, ")");
  }
  pr_puts(pr, ":");
}

void pr_region(shl_printer *pr, const shl_region *r, bool with_header) {
  pr_puts(pr, "{");
  pr->indent++;
  for (uint32_t i = 0; i < r->n_blocks; i++) {
    const shl_block *b = r->blocks[i];
    if (i > 0 || (with_header && b->n_args)) print_block_header(pr, b, i);
    for (const shl_op *op = b->first; op; op = op->next) {
      pr_newline(pr);
      print_op(pr, op);
    }
  }
  pr->indent--;
  pr_newline(pr);
  pr_puts(pr, "}");
}

void pr_generic_op(shl_printer *pr, const shl_op *op) {
  pr_string_lit(pr, op->name);
  pr_puts(pr, "(");
  pr_values(pr, op->operands, op->n_operands);
  pr_puts(pr, ")");
  bool any = false;
  for (uint32_t i = 0; i < op->n_attrs; i++) {
    if (!op->attrs[i].is_prop) continue;
    pr_puts(pr, any ? ", " : " <{");
    any = true;
    pr_named_list(pr, &op->attrs[i], 1, false);
  }
  if (any) pr_puts(pr, "}>");
  if (op->n_regions) {
    pr_puts(pr, " (");
    for (uint32_t i = 0; i < op->n_regions; i++) {
      if (i) pr_puts(pr, ", ");
      pr_region(pr, &op->regions[i], true);
    }
    pr_puts(pr, ")");
  }
  any = false;
  for (uint32_t i = 0; i < op->n_attrs; i++) {
    if (op->attrs[i].is_prop) continue;
    pr_puts(pr, any ? ", " : " {");
    any = true;
    pr_named_list(pr, &op->attrs[i], 1, false);
  }
  if (any) pr_puts(pr, "}");
  pr_puts(pr, " : ");
  pr_functional_type(pr, op);
}

void print_generic(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }

static void print_whole_module(shl_printer *pr, shloc_module *m) {
  /* Pretty printers rely on verified structure (result counts, attribute
   * kinds); an invalid module is printed in generic form. */
  if (!(pr->flags & (SHLOC_PRINT_GENERIC | SHLOC_PRINT_ASSUME_VERIFIED))) {
    shl_status st = shloc_module_verify(m);
    if (st) {
      pr->oom = shloc_status_code(st) == SHLOC_ERR_OOM;
      pr->flags |= SHLOC_PRINT_GENERIC;
      shloc_status_free(st);
    }
  }
  name_table nt;
  names_init(&nt);
  pr->names = &nt;
  print_op(pr, m->top);
  pr_puts(pr, "\n");
  if ((pr->flags & SHLOC_PRINT_DEBUGINFO) && m->loc_defs.n) {
    pr_str(pr, m->loc_defs);
    pr_puts(pr, "\n");
  }
  if (m->resources.n) {
    pr_str(pr, m->resources);
    pr_puts(pr, "\n");
  }
  names_free(&nt);
  pr->names = NULL;
}

shl_status shloc_module_print(shloc_module *m, unsigned flags, char **out, size_t *out_len) {
  *out = NULL;
  if (out_len) *out_len = 0;
  shl_printer pr = {.flags = flags};
  print_whole_module(&pr, m);
  return pr_finish(&pr, out, out_len);
}

shl_status shloc_module_write(shloc_module *m, unsigned flags, shloc_write_fn write, void *user) {
  shl_printer pr = {.flags = flags, .sink = write, .sink_user = user};
  print_whole_module(&pr, m);
  flush(&pr);
  free(pr.buf);
  if (pr.io_error) return st_error(SHLOC_ERR_IO, NULL, NULL, "writing the printed module failed");
  return pr.oom ? st_oom() : NULL;
}

/* ---- one op as a function of its own (for run-time call-outs) ---- */

static void pr_results_lhs(shl_printer *pr, const shl_op *op) {
  if (!op->n_results) return;
  const char *s0 = name_str(pr->names, op->results[0].id);
  const char *hash = s0 ? strchr(s0, '#') : NULL;
  if (op->n_results > 1 && hash) {
    pr_putn(pr, s0, (size_t)(hash - s0));
    pr_printf(pr, ":%u", (unsigned)op->n_results);
  } else {
    for (uint32_t i = 0; i < op->n_results; i++) {
      if (i) pr_puts(pr, ", ");
      pr_value(pr, &op->results[i]);
    }
  }
  pr_puts(pr, " = ");
}

/* Functions that op's regions call, transitively (at most `cap`; false when
 * there are more or a callee is missing). */
enum { CALLEES_MAX = 64 };

static const shl_op *module_func(const shl_op *any, shl_str name) {
  const shl_op *top = any;
  while (top->block && top->block->region->parent) top = top->block->region->parent;
  if (!top->n_regions || !top->regions[0].n_blocks) return NULL;
  for (const shl_op *f = top->regions[0].blocks[0]->first; f; f = f->next)
    if (op_is(f, OP_FUNC) && str_eq(func_sym_name(f), name)) return f;
  return NULL;
}

static bool collect_callees(const shl_op *op, const shl_op **list, uint32_t *n) {
  for (uint32_t r = 0; r < op->n_regions; r++)
    for (uint32_t b = 0; b < op->regions[r].n_blocks; b++)
      for (const shl_op *o = op->regions[r].blocks[b]->first; o; o = o->next) {
        if (op_is(o, OP_FUNC_CALL)) {
          const shl_attr *c = op_attr(o, "callee");
          const shl_op *f = c && c->kind == AT_SYMREF ? module_func(o, c->u.sym.root) : NULL;
          if (!f) return false;
          bool seen = false;
          for (uint32_t i = 0; i < *n && !seen; i++) seen = list[i] == f;
          if (!seen) {
            if (*n == CALLEES_MAX) return false;
            list[(*n)++] = f;
            if (!collect_callees(f, list, n)) return false;
          }
        }
        if (!collect_callees(o, list, n)) return false;
      }
  return true;
}

shl_status printer_op_as_func(const shl_op *op, char **out, size_t *out_len) {
  *out = NULL;
  *out_len = 0;
  const shl_op *root = op->block ? op->block->region->parent : NULL;
  while (root && !naming_root(root)) root = root->block ? root->block->region->parent : NULL;
  if (!root) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "op outside a function");
  id_save save;
  if (!ids_save(root, &save)) return st_oom();
  name_table nt;
  names_init(&nt);
  names_begin_isolated(&nt, root);
  /* Operands become the function's arguments: fresh names (a result of a
   * multi-result op, %0#1, cannot name an argument). */
  for (uint32_t i = 0; i < op->n_operands; i++) set_name(op->operands[i], unique_name(&nt, "in"));
  shl_printer pr = {.names = &nt, .flags = SHLOC_PRINT_GENERIC};
  pr_puts(&pr, "func.func @main(");
  bool first = true;
  for (uint32_t i = 0; i < op->n_operands; i++) {
    bool dup = false;
    for (uint32_t j = 0; j < i && !dup; j++) dup = op->operands[j] == op->operands[i];
    if (dup) continue;
    if (!first) pr_puts(&pr, ", ");
    first = false;
    pr_value(&pr, op->operands[i]);
    pr_puts(&pr, ": ");
    pr_type(&pr, op->operands[i]->type);
  }
  pr_puts(&pr, ") -> (");
  for (uint32_t i = 0; i < op->n_results; i++) {
    if (i) pr_puts(&pr, ", ");
    pr_type(&pr, op->results[i].type);
  }
  pr_puts(&pr, ") {\n  ");
  pr.indent = 1;
  pr_results_lhs(&pr, op);
  pr_generic_op(&pr, op);
  pr_puts(&pr, "\n  \"func.return\"(");
  for (uint32_t i = 0; i < op->n_results; i++) {
    if (i) pr_puts(&pr, ", ");
    pr_value(&pr, &op->results[i]);
  }
  pr_puts(&pr, ") : (");
  for (uint32_t i = 0; i < op->n_results; i++) {
    if (i) pr_puts(&pr, ", ");
    pr_type(&pr, op->results[i].type);
  }
  pr_puts(&pr, ") -> ()\n}\n");
  /* The functions its regions call follow, their values' ids kept too. */
  const shl_op *callees[CALLEES_MAX];
  uint32_t n_callees = 0;
  bool callees_ok = collect_callees(op, callees, &n_callees);
  for (uint32_t i = 0; callees_ok && i < n_callees; i++) {
    if (callees[i] == root) continue; /* recursion into the op's own function: left out, fails to verify */
    id_save cs;
    if (!ids_save(callees[i], &cs)) {
      pr.oom = true;
      break;
    }
    pr.indent = 0;
    print_op(&pr, callees[i]);
    pr_puts(&pr, "\n");
    ids_restore(callees[i], &cs);
  }
  ids_restore(root, &save);
  names_free(&nt);
  return pr_finish(&pr, out, out_len);
}
