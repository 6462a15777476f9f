/* Shared by the shape-refinement tests: parse a module, refine @main for
 * given argument shapes (and integer values), look at the refined types and
 * ops.  Include after <cmocka.h>. */
#ifndef SHLOC_TESTS_REFINE_UTIL_H
#define SHLOC_TESTS_REFINE_UTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/refine_shapes.h"
#include "shloc/shloc.h"

/* One argument: element type, shape, and for integer arguments values
 * (NULL: no data). */
typedef struct {
  shl_dtype dt;
  int32_t rank;
  int64_t dims[6];
  const int64_t *values;
} rt_arg;

typedef struct {
  shloc_context *ctx;
  shloc_module *m;
  shl_arena scratch;
  refine_result r;
  shloc_status st; /* refinement's status (NULL on success) */
} rt_case;

/* Argument bytes: values stored at the element type's width. */
static inline void *rt_bytes(shl_arena *a, const rt_arg *x) {
  if (!x->values) return NULL;
  int64_t n = 1;
  for (int32_t k = 0; k < x->rank; k++) n *= x->dims[k];
  size_t sz = dtype_bytes(x->dt);
  unsigned char *p = arena_alloc(a, (size_t)n * sz + 1);
  for (int64_t i = 0; i < n; i++) memcpy(p + (size_t)i * sz, &x->values[i], sz); /* little-endian */
  return p;
}

/* Parses and verifies `text` (failing the test otherwise), then refines
 * @main for args; rt->st holds the outcome. */
static inline void rt_refine(rt_case *rt, const char *text, int n, const rt_arg *args) {
  memset(rt, 0, sizeof *rt);
  rt->ctx = shloc_context_create();
  arena_init(&rt->scratch);
  shloc_status st = shloc_module_parse(rt->ctx, "t.mlir", text, strlen(text), 1, &rt->m);
  if (!st) st = shloc_module_verify(rt->m);
  if (st) fail_msg("parse/verify: %s", shloc_status_message(st));
  const shl_op *f = module_find_func(rt->m, str_of("main"));
  if (!f) fail_msg("no @main");
  refine_arg ra[16];
  for (int i = 0; i < n; i++) {
    ra[i].type = type_tensor(&rt->scratch, args[i].dt, args[i].rank, args[i].dims);
    ra[i].data = rt_bytes(&rt->scratch, &args[i]);
  }
  rt->st = refine_shapes(rt->m, f, ra, (uint32_t)n, &rt->r);
}

static inline void rt_free(rt_case *rt) {
  shloc_status_free(rt->st);
  shloc_module_destroy(rt->r.module);
  shloc_module_destroy(rt->m);
  arena_free(&rt->scratch);
  shloc_context_destroy(rt->ctx);
}

/* Refinement must have succeeded. */
static inline void rt_ok(const rt_case *rt) {
  if (rt->st) fail_msg("refinement failed: %s", shloc_status_message(rt->st));
}

/* Refinement must have failed with a message containing every given part. */
static inline void rt_fails(const rt_case *rt, const char *part, ...) {
  if (!rt->st) fail_msg("refinement succeeded, expected an error with '%s'", part);
  const char *msg = shloc_status_message(rt->st);
  va_list ap;
  va_start(ap, part);
  for (const char *p = part; p; p = va_arg(ap, const char *))
    if (!strstr(msg, p)) fail_msg("message '%s' lacks '%s'", msg, p);
  va_end(ap);
}

/* Result i of the refined @main has exactly these dims (rank = count). */
static inline void rt_result(const rt_case *rt, uint32_t i, int32_t rank, ...) {
  rt_ok(rt);
  const shl_type *t = func_type(rt->r.func)->out[i];
  if (t->kind != TY_TENSOR || t->rank != rank) fail_msg("result #%u: rank %d, expected %d", i, (int)t->rank, (int)rank);
  va_list ap;
  va_start(ap, rank);
  for (int32_t k = 0; k < rank; k++) {
    int64_t want = va_arg(ap, int64_t);
    if (t->dims[k] != want)
      fail_msg("result #%u dimension %d: %lld, expected %lld", i, (int)k, (long long)t->dims[k], (long long)want);
  }
  va_end(ap);
}

static inline int rt_count_block(const shl_block *b, shl_opid id) {
  int n = 0;
  for (const shl_op *op = b->first; op; op = op->next) {
    n += op_is(op, id);
    for (uint32_t r = 0; r < op->n_regions; r++)
      for (uint32_t k = 0; k < op->regions[r].n_blocks; k++) n += rt_count_block(op->regions[r].blocks[k], id);
  }
  return n;
}

/* Ops `id` in every function of the refined module. */
static inline int rt_count(const rt_case *rt, shl_opid id) {
  int n = 0;
  for (const shl_op *f = rt->r.module->top->regions[0].blocks[0]->first; f; f = f->next)
    n += rt_count_block(func_body(f), id);
  return n;
}

static inline int rt_num_funcs(const rt_case *rt) {
  int n = 0;
  for (const shl_op *f = rt->r.module->top->regions[0].blocks[0]->first; f; f = f->next) n++;
  return n;
}

/* The refined module must print (it is valid IR) and verify. */
static inline void rt_valid(const rt_case *rt) {
  rt_ok(rt);
  shloc_status st = shloc_module_verify(rt->r.module);
  if (st) fail_msg("refined module does not verify: %s", shloc_status_message(st));
}

#define I64(x) ((int64_t)(x))

#endif
