/* The executable driver's I/O (include/shloc/aot_runtime.h): .npy inputs
 * and results of a compiled entry point, described by MLIR tensor types, with
 * the conventions and messages of `shloc run`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "shloc/aot_runtime.h"
#include "support/npy.h"
#include "text/parse_fragment.h"
#include "text/print_value.h"

/* A parsed static tensor type; `m` owns it. */
typedef struct {
  shloc_context *ctx;
  shloc_module *m;
  const shl_type *t;
} parsed_type;

static void parsed_free(parsed_type *p) {
  shloc_module_destroy(p->m);
  shloc_context_destroy(p->ctx);
}

static shl_status parse_static_type(const char *text, parsed_type *p) {
  static const char empty[] = "module {}";
  *p = (parsed_type){shloc_context_create(), NULL, NULL};
  if (!p->ctx) return st_oom();
  shl_status st = shloc_module_parse(p->ctx, "<type>", empty, sizeof empty - 1, 1, &p->m);
  if (!st) st = text_parse_type(p->m, text, strlen(text), &p->t);
  if (!st && (p->t->kind != TY_TENSOR || !type_is_static(p->t) || !npy_descr_for(type_storage_dtype(p->t))))
    st = st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "'%s' is not a static tensor type with a .npy form", text);
  if (st) parsed_free(p);
  return st;
}

shloc_status shloc_aot_read_npy(const char *path, const char *type, uint32_t index, void **out) {
  *out = NULL;
  parsed_type p;
  ST_TRY(parse_static_type(type, &p));
  npy_array a;
  shl_status st = npy_read_file(path, &a);
  if (st) {
    parsed_free(&p);
    return st;
  }
  shl_dtype dt = type_storage_dtype(p.t);
  bool ok = npy_descr_accepts(a.descr, dt) && a.rank == p.t->rank;
  for (int k = 0; ok && k < a.rank; k++) ok = a.dims[k] == p.t->dims[k];
  if (ok) {
    *out = a.data ? a.data : malloc(1);
    if (!*out) st = st_oom();
  } else {
    char got[NPY_MAX_RANK * 21 + 64];
    size_t n = (size_t)snprintf(got, sizeof got, "tensor<");
    for (int k = 0; k < a.rank && n < sizeof got; k++)
      n += (size_t)snprintf(got + n, sizeof got - n, "%lldx", (long long)a.dims[k]);
    shl_dtype gdt = npy_descr_accepts(a.descr, dt) ? dt : npy_dtype_for_descr(a.descr);
    if (n < sizeof got) snprintf(got + n, sizeof got - n, "%s> (%s)", gdt != DT_INVALID ? dtype_name(gdt) : "?", a.descr);
    st = st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "argument #%u (%s): expected %s, got %s", index, path, type, got);
    npy_array_free(&a);
  }
  parsed_free(&p);
  return st;
}

shloc_status shloc_aot_write_npy(const char *path, const char *type, const void *data) {
  parsed_type p;
  ST_TRY(parse_static_type(type, &p));
  shl_dtype dt = type_storage_dtype(p.t);
  int64_t nb = type_num_bytes(p.t);
  shl_status st = npy_write_file_atomic(path, npy_descr_for(dt), p.t->dims, p.t->rank, data, (size_t)nb);
  parsed_free(&p);
  return st;
}

shloc_status shloc_aot_format(const char *type, const void *data, char **out) {
  *out = NULL;
  parsed_type p;
  ST_TRY(parse_static_type(type, &p));
  size_t len;
  shl_status st = print_dense_value(p.t, data, (size_t)type_num_bytes(p.t), out, &len);
  parsed_free(&p);
  return st;
}
