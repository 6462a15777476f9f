/* Dense literals for run-time values.  Elements go through the printer's own
 * attribute path (pr_attr_bare on a scalar INT/FLOAT attribute), so numbers
 * read exactly as in constants that shloc fmt prints. */
#include "print_value.h"

#include <stdlib.h>
#include <string.h>

#include "printer.h"

static shl_status finish(shl_printer *pr, char **out, size_t *out_len) {
  if (pr->oom || !pr->buf) {
    free(pr->buf);
    return st_oom();
  }
  *out = pr->buf;
  if (out_len) *out_len = pr->len;
  return NULL;
}

/* One element in storage dtype `dt` (complex: "(re,im)"). */
static void element(shl_printer *pr, shl_dtype dt, const uint8_t *p) {
  if (dtype_is_complex(dt)) {
    shl_dtype part = dt == DT_C64 ? DT_F32 : DT_F64;
    size_t h = dtype_bytes(part);
    pr_puts(pr, "(");
    element(pr, part, p);
    pr_puts(pr, ",");
    element(pr, part, p + h);
    pr_puts(pr, ")");
    return;
  }
  uint64_t bits = 0;
  memcpy(&bits, p, dtype_bytes(dt));
  shl_type st = {.kind = TY_SCALAR, .dtype = dt};
  shl_attr a = {.type = &st};
  if (dtype_is_float(dt)) {
    a.kind = AT_FLOAT;
    a.u.f_bits = bits;
  } else {
    a.kind = AT_INT;
    a.u.i = (int64_t)bits;
  }
  pr_attr_bare(pr, &a);
}

shl_status print_dense_value(const shl_type *t, const void *data, size_t nbytes, char **out, size_t *out_len) {
  *out = NULL;
  if (out_len) *out_len = 0;
  int64_t count = type_num_elements(t);
  shl_dtype dt = type_storage_dtype(t);
  size_t sz = dtype_bytes(dt);
  if (t->kind != TY_TENSOR || count < 0 || !sz || (uint64_t)count * sz != nbytes)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "cannot print %zu bytes as a value of this type", nbytes);
  shl_printer pr = {0};
  pr_puts(&pr, "dense<");
  const uint8_t *d = data;
  int rank = t->rank;
  int64_t *idx = calloc(rank ? (size_t)rank : 1, sizeof *idx);
  if (!idx) return st_oom();
  /* Nested lists following the shape: '[' for each dimension whose index
   * just wrapped to 0, ']' for each that completes. */
  for (int64_t e = 0; e < count && !pr.oom; e++) {
    if (e) pr_puts(&pr, ", ");
    for (int k = rank - 1; k >= 0 && idx[k] == 0; k--) pr_puts(&pr, "[");
    element(&pr, dt, d + (size_t)e * sz);
    for (int k = rank - 1; k >= 0; k--) {
      if (++idx[k] < t->dims[k]) break;
      idx[k] = 0;
      pr_puts(&pr, "]");
    }
  }
  free(idx);
  pr_puts(&pr, "> : ");
  pr_type(&pr, t);
  return finish(&pr, out, out_len);
}

static void newline_indent(shl_printer *pr, int n) {
  pr_puts(pr, "\n");
  for (int i = 0; i < n; i++) pr_puts(pr, "  ");
}

/* The dimensions from `dim` on, at element offset `off`: a bracketed list
 * on its own line, indented `dim + 1` levels. */
static void interp_dims(shl_printer *pr, const shl_type *t, shl_dtype dt, const uint8_t *d, int dim, int64_t off) {
  newline_indent(pr, dim + 1);
  pr_puts(pr, "[");
  int64_t inner = 1;
  for (int k = dim + 1; k < t->rank; k++) inner *= t->dims[k];
  for (int64_t i = 0; i < t->dims[dim] && !pr->oom; i++) {
    if (dim + 1 == t->rank) {
      if (i) pr_puts(pr, ", ");
      element(pr, dt, d + (size_t)(off + i) * dtype_bytes(dt));
    } else {
      interp_dims(pr, t, dt, d, dim + 1, off + i * inner);
      if (i + 1 < t->dims[dim]) pr_puts(pr, ",");
    }
  }
  if (dim + 1 < t->rank && t->dims[dim] > 0) newline_indent(pr, dim + 1);
  pr_puts(pr, "]");
}

shl_status print_interpreter_value(const shl_type *t, const void *data, size_t nbytes, char **out, size_t *out_len) {
  *out = NULL;
  if (out_len) *out_len = 0;
  int64_t count = type_num_elements(t);
  shl_dtype dt = type_storage_dtype(t);
  size_t sz = dtype_bytes(dt);
  if (t->kind != TY_TENSOR || count < 0 || !sz || (uint64_t)count * sz != nbytes)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "cannot print %zu bytes as a value of this type", nbytes);
  shl_printer pr = {0};
  pr_type(&pr, t);
  pr_puts(&pr, " {");
  if (t->rank == 0) {
    element(&pr, dt, data);
  } else {
    interp_dims(&pr, t, dt, data, 0, 0);
    pr_puts(&pr, "\n");
  }
  pr_puts(&pr, "}");
  return finish(&pr, out, out_len);
}

shl_status print_type_text(const shl_type *t, char **out) {
  shl_printer pr = {0};
  pr_type(&pr, t);
  return finish(&pr, out, NULL);
}

shl_status print_attr_text(const shl_attr *a, char **out) {
  shl_printer pr = {0};
  pr_attr(&pr, a);
  return finish(&pr, out, NULL);
}
