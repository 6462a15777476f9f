/* JAX annotation targets on one device: the table of names and kinds, their
 * operand rules, and shape_assertion's message formatting (llvm::formatv, as
 * StableHLO's check-shape-assertions pass formats it). */
#include "annotations.h"

#include <stdio.h>

#include "x64_split.h"
#include <stdlib.h>

static const struct {
  const char *name;
  jax_target_kind kind;
} targets[] = {
    {"Sharding", JAXT_IDENTITY},
    {"SPMDFullToShardShape", JAXT_SPMD_SHAPE},
    {"SPMDShardToFullShape", JAXT_SPMD_SHAPE},
    {"annotate_device_placement", JAXT_IDENTITY},
    {"xla.sdy.GlobalToLocalShape", JAXT_SDY_TO_LOCAL},
    {"xla.sdy.LocalToGlobalShape", JAXT_SDY_TO_GLOBAL},
    {"xla.sdy.FuncResultSharding", JAXT_IDENTITY},
    {"MoveToHost", JAXT_IDENTITY},
    {"MoveToDevice", JAXT_IDENTITY},
    {"LayoutConstraint", JAXT_IDENTITY},
    {"dce_sink", JAXT_SINK},
    {"shape_assertion", JAXT_SHAPE_ASSERTION},
    {"AllocateBuffer", JAXT_ALLOCATE_BUFFER},
    {"X64SplitLow", JAXT_X64_SPLIT_LOW},
    {"X64SplitHigh", JAXT_X64_SPLIT_HIGH},
    {"X64Combine", JAXT_X64_COMBINE},
};

/* StableHLO's bound on shape_assertion's message inputs. */
enum { MAX_MESSAGE_INPUTS = 32 };

bool jax_target_lookup(shl_str name, jax_target_kind *kind) {
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
    if (str_eq_c(name, targets[i].name)) {
      *kind = targets[i].kind;
      return true;
    }
  return false;
}

bool jax_target_forwards(const shl_op *op, jax_target_kind kind) {
  if ((kind != JAXT_IDENTITY && kind != JAXT_SPMD_SHAPE && kind != JAXT_SDY_TO_LOCAL && kind != JAXT_SDY_TO_GLOBAL) ||
      op->n_results > op->n_operands)
    return false;
  for (uint32_t i = 0; i < op->n_results; i++)
    if (!type_eq(op->operands[i]->type, op->results[i].type)) return false;
  return true;
}

/* Appends the leaves of t (itself unless a tuple) to out[*n..cap); false when they do not fit. */
static bool type_leaves(const shl_type *t, const shl_type **out, uint32_t cap, uint32_t *n) {
  if (t->kind != TY_TUPLE) {
    if (*n >= cap) return false;
    out[(*n)++] = t;
    return true;
  }
  for (uint32_t i = 0; i < t->n_in; i++)
    if (!type_leaves(t->in[i], out, cap, n)) return false;
  return true;
}

static bool scalar_of(const shl_type *t, shl_dtype a, shl_dtype b) {
  return t->kind == TY_TENSOR && t->rank == 0 && (t->dtype == a || t->dtype == b);
}

/* Every `{N...}` of the message names an input (the pass's own check). */
static shl_status check_specifiers(const shl_op *op, shl_str msg, uint32_t n_inputs) {
  for (size_t i = 0; i < msg.n; i++) {
    if (msg.p[i] != '{') continue;
    if (i + 1 < msg.n && msg.p[i + 1] == '{') {
      i++;
      continue;
    }
    size_t j = i + 1;
    uint64_t idx = 0;
    bool digits = false;
    while (j < msg.n && msg.p[j] >= '0' && msg.p[j] <= '9' && idx < 1000) idx = idx * 10 + (uint64_t)(msg.p[j++] - '0'), digits = true;
    if (digits && idx >= n_inputs)
      return op_error(op, SHLOC_ERR_VERIFY, "shape_assertion: error_message refers to input {%llu}, but has %u inputs",
                      (unsigned long long)idx, n_inputs);
  }
  return NULL;
}

shl_status jax_target_check(const shl_op *op, shl_str name, jax_target_kind kind) {
  switch (kind) {
    case JAXT_IDENTITY:
      if (op->n_results > op->n_operands)
        return op_error(op, SHLOC_ERR_VERIFY, "target '%.*s' has %u results for %u operands", (int)name.n, name.p,
                        op->n_results, op->n_operands);
      for (uint32_t i = 0; i < op->n_results; i++) {
        const shl_type *a = op->operands[i]->type, *r = op->results[i].type;
        if (type_eq(a, r)) continue;
        return op_error(op, SHLOC_ERR_UNSUPPORTED,
                        "target '%.*s' changes the type of value #%u", (int)name.n, name.p, i);
      }
      return NULL;
    case JAXT_SPMD_SHAPE: {
      const shl_type *a = op->n_operands == 1 ? op->operands[0]->type : NULL, *r = op->n_results == 1 ? op->results[0].type : NULL;
      if (!a || !r || a->kind != TY_TENSOR || r->kind != TY_TENSOR || a->rank != r->rank ||
          type_storage_dtype(a) != type_storage_dtype(r))
        return op_error(op, SHLOC_ERR_VERIFY, "target '%.*s' takes one tensor and returns one of its element type and rank",
                        (int)name.n, name.p);
      return NULL;
    }
    case JAXT_SDY_TO_LOCAL:
    case JAXT_SDY_TO_GLOBAL: {
      /* Tuples (x64 values split in two halves) pass as their leaves. */
      const shl_type *a[64], *r[64];
      uint32_t na = 0, nr = 0;
      bool fit = true;
      for (uint32_t i = 0; fit && i < op->n_operands; i++) fit = type_leaves(op->operands[i]->type, a, 64, &na);
      for (uint32_t i = 0; fit && i < op->n_results; i++) fit = type_leaves(op->results[i].type, r, 64, &nr);
      if (!fit) return op_error(op, SHLOC_ERR_UNSUPPORTED, "target '%.*s' has more than 64 values", (int)name.n, name.p);
      if (na != nr)
        return op_error(op, SHLOC_ERR_VERIFY, "target '%.*s' has %u result values for %u operand values", (int)name.n,
                        name.p, nr, na);
      for (uint32_t i = 0; i < nr; i++) {
        if (type_eq(a[i], r[i])) continue;
        if (a[i]->kind != TY_TENSOR || r[i]->kind != TY_TENSOR || a[i]->rank != r[i]->rank ||
            type_storage_dtype(a[i]) != type_storage_dtype(r[i]))
          return op_error(op, SHLOC_ERR_VERIFY,
                          "target '%.*s': value #%u keeps its element type and rank (only its shape changes)",
                          (int)name.n, name.p, i);
      }
      return NULL;
    }
    case JAXT_X64_SPLIT_LOW:
    case JAXT_X64_SPLIT_HIGH:
    case JAXT_X64_COMBINE: return jax_x64_check(op, name, kind == JAXT_X64_COMBINE);
    case JAXT_SINK:
      if (op->n_results) return op_error(op, SHLOC_ERR_VERIFY, "target 'dce_sink' has no results");
      return NULL;
    case JAXT_ALLOCATE_BUFFER:
      if (op->n_operands || op->n_results != 1 || op->results[0].type->kind != TY_TENSOR)
        return op_error(op, SHLOC_ERR_VERIFY, "target 'AllocateBuffer' takes no operands and has one tensor result");
      return NULL;
    case JAXT_SHAPE_ASSERTION: {
      if (op->n_operands < 1 || op->n_operands > 1 + MAX_MESSAGE_INPUTS || op->n_results)
        return op_error(op, SHLOC_ERR_VERIFY, "shape_assertion takes 1 to %d operands and has no results",
                        1 + MAX_MESSAGE_INPUTS);
      if (!scalar_of(op->operands[0]->type, DT_I1, DT_I1))
        return op_error(op, SHLOC_ERR_VERIFY, "shape_assertion: operand #0 (assert_what) must be a tensor<i1>");
      for (uint32_t i = 1; i < op->n_operands; i++)
        if (!scalar_of(op->operands[i]->type, DT_I32, DT_I64))
          return op_error(op, SHLOC_ERR_VERIFY,
                          "shape_assertion: operand #%u (error_message_input) must be a tensor<i32> or tensor<i64>", i);
      const shl_attr *msg = op_attr(op, "error_message");
      if (!msg || msg->kind != AT_STRING)
        return op_error(op, SHLOC_ERR_VERIFY, "shape_assertion needs a string attribute 'error_message'");
      return check_specifiers(op, msg->u.str, op->n_operands - 1);
    }
  }
  return NULL;
}

/* ------------------------------------------------------------------ formatv */

typedef struct {
  char *p;
  size_t n, cap;
  bool oom;
} sbuf;

static void put(sbuf *b, const char *s, size_t n) {
  if (b->oom) return;
  if (b->n + n + 1 > b->cap) {
    size_t ncap = (b->n + n + 1) * 2;
    char *np = realloc(b->p, ncap);
    if (!np) {
      b->oom = true;
      return;
    }
    b->p = np;
    b->cap = ncap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}

static void pad(sbuf *b, char c, size_t n) {
  for (size_t i = 0; i < n; i++) put(b, &c, 1);
}

/* Parses `N[,layout][:style]` (the text between the braces); false when it
 * is not a replacement, which formatv then prints literally. */
static bool replacement(shl_str spec, size_t *index, char *fill, char *align, size_t *width) {
  size_t i = 0, idx = 0;
  while (i < spec.n && spec.p[i] == ' ') i++;
  size_t start = i;
  while (i < spec.n && spec.p[i] >= '0' && spec.p[i] <= '9' && idx < 1000) idx = idx * 10 + (size_t)(spec.p[i++] - '0');
  if (i == start) return false;
  while (i < spec.n && spec.p[i] == ' ') i++;
  *index = idx;
  *fill = ' ';
  *align = '+';
  *width = 0;
  if (i < spec.n && spec.p[i] == ',') {
    i++;
    size_t end = i;
    while (end < spec.n && spec.p[end] != ':') end++;
    const char *l = spec.p + i;
    size_t ln = end - i;
    /* [[pad]loc]amount */
    if (ln >= 2 && strchr("-=+", l[1]) && !(l[0] >= '0' && l[0] <= '9')) {
      *fill = l[0];
      *align = l[1];
      l += 2, ln -= 2;
    } else if (ln >= 1 && strchr("-=+", l[0])) {
      *align = l[0];
      l++, ln--;
    }
    for (size_t k = 0; k < ln && l[k] >= '0' && l[k] <= '9' && *width < 10000; k++) *width = *width * 10 + (size_t)(l[k] - '0');
    i = end;
  }
  return i == spec.n || spec.p[i] == ':';
}

shl_status jax_format_message(shl_str fmt, const int64_t *vals, size_t n, char **out) {
  sbuf b = {0};
  put(&b, "", 0);
  if (!n) {
    put(&b, fmt.p, fmt.n);
  } else {
    size_t i = 0;
    while (i < fmt.n) {
      const char *brace = memchr(fmt.p + i, '{', fmt.n - i);
      size_t lit = brace ? (size_t)(brace - fmt.p) - i : fmt.n - i;
      put(&b, fmt.p + i, lit);
      i += lit;
      if (i >= fmt.n) break;
      if (i + 1 < fmt.n && fmt.p[i + 1] == '{') { /* `{{` is one brace */
        put(&b, "{", 1);
        i += 2;
        continue;
      }
      const char *close = memchr(fmt.p + i, '}', fmt.n - i);
      size_t index, width;
      char fill, align;
      if (!close || !replacement((shl_str){fmt.p + i + 1, (size_t)(close - fmt.p) - i - 1}, &index, &fill, &align, &width)) {
        /* Not a replacement: the text stays as written. */
        size_t len = close ? (size_t)(close - fmt.p) - i + 1 : fmt.n - i;
        put(&b, fmt.p + i, len);
        i += len;
        continue;
      }
      char num[32];
      int len = snprintf(num, sizeof num, "%lld", (long long)(index < n ? vals[index] : -1));
      size_t w = (size_t)len, extra = width > w ? width - w : 0;
      size_t left = align == '-' ? 0 : align == '=' ? extra / 2 : extra;
      pad(&b, fill, left);
      put(&b, num, w);
      pad(&b, fill, extra - left);
      i = (size_t)(close - fmt.p) + 1;
    }
  }
  if (b.oom) {
    free(b.p);
    return st_oom();
  }
  *out = b.p;
  return NULL;
}
