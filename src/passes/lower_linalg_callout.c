/* Ops without a native pattern -> a call of shloc_rt_op (libshloc,
 * include/shloc/aot_runtime.h), which runs the op with the interpreter's
 * kernels: the op's own text (one function @main) is a constant global of
 * the module, each call site has a pointer-sized cache global, operands are
 * passed as row-major buffers (bufferization.to_buffer with an identity
 * layout copies strided ones) and results are fresh buffers turned back
 * into tensors. */
#include <stdlib.h>
#include <stdio.h>

#include "passes/lower_linalg_emit.h"
#include "text/print_value.h"

/* The op's text must stand alone (no captured values, no callees): checked
 * here, so that a bad call-out is a lowering error, not a run-time one. */
static shl_status check_text(const shl_op *op, const char *text, size_t len) {
  shloc_context *ctx = shloc_context_create();
  if (!ctx) return st_oom();
  shloc_module *m = NULL;
  shl_status st = shloc_module_parse(ctx, "<call-out>", text, len, 1, &m);
  if (!st) st = shloc_module_verify(m);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
  if (!st) return NULL;
  shl_status r = op_error(op, SHLOC_ERR_UNSUPPORTED,
                          "cannot be lowered to linalg yet: no native pattern, and its text for shloc_rt_op "
                          "does not verify: %s",
                          shloc_status_message(st));
  shloc_status_free(st);
  return r;
}

static void emit_globals(ll_emit *e, uint32_t site, const char *text, size_t len) {
  shl_printer *g = &e->globals;
  if (!e->n_sites) {
    pr_newline(g);
    pr_puts(g, "func.func private @shloc_rt_op(index, index, i64, index, i64) -> i32");
  }
  static const char hex[] = "0123456789ABCDEF";
  pr_newline(g);
  pr_printf(g, "memref.global \"private\" constant @__shloc_op_text_%u : memref<%zuxi8> = dense<\"0x", site, len);
  for (size_t i = 0; i < len; i++) {
    char b[2] = {hex[(unsigned char)text[i] >> 4], hex[(unsigned char)text[i] & 15]};
    pr_putn(g, b, 2);
  }
  pr_puts(g, "\">");
  pr_newline(g);
  pr_printf(g, "memref.global \"private\" @__shloc_op_cache_%u : memref<1xi64> = dense<0>", site);
}

/* %p = memref.extract_aligned_pointer_as_index %m : T -> index */
static uint32_t pointer_of(ll_emit *e, uint32_t m, const shl_type *t, const char *literal_type) {
  uint32_t p = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, p);
  pr_puts(&e->pr, " = memref.extract_aligned_pointer_as_index ");
  ll_tmp(e, m);
  pr_puts(&e->pr, " : ");
  if (t) ll_memref_type(e, t);
  else pr_puts(&e->pr, literal_type);
  pr_puts(&e->pr, " -> index");
  return p;
}

shl_status ll_callout(ll_emit *e, const shl_op *op) {
  char *text = NULL;
  size_t len = 0;
  ST_TRY(printer_op_as_func(op, &text, &len));
  shl_status st = check_text(op, text, len);
  if (st) {
    free(text);
    return st;
  }
  uint32_t site = e->n_sites;
  emit_globals(e, site, text, len);
  e->n_sites++;
  free(text);
  uint32_t n = 0, n_max = op->n_operands + op->n_results;
  uint32_t *ptrs = malloc((n_max ? n_max : 1) * sizeof *ptrs), *outs = malloc((op->n_results + 1) * sizeof *outs);
  if (!ptrs || !outs) {
    free(ptrs);
    free(outs);
    return st_oom();
  }
  for (uint32_t i = 0; i < op->n_operands; i++) {
    bool dup = false;
    for (uint32_t j = 0; j < i && !dup; j++) dup = op->operands[j] == op->operands[i];
    if (dup) continue;
    const shl_type *t = op->operands[i]->type;
    uint32_t m = ll_fresh(e);
    pr_newline(&e->pr);
    ll_tmp(e, m);
    pr_puts(&e->pr, " = bufferization.to_buffer ");
    ll_val(e, op->operands[i]);
    pr_puts(&e->pr, " read_only : ");
    ll_type(e, t);
    pr_puts(&e->pr, " to ");
    ll_memref_type(e, t);
    ptrs[n++] = pointer_of(e, m, t, NULL);
  }
  for (uint32_t i = 0; i < op->n_results; i++) {
    const shl_type *t = op->results[i].type;
    outs[i] = ll_fresh(e);
    pr_newline(&e->pr);
    ll_tmp(e, outs[i]);
    pr_puts(&e->pr, " = memref.alloc() {alignment = 64 : i64} : ");
    ll_memref_type(e, t);
    ptrs[n++] = pointer_of(e, outs[i], t, NULL);
  }
  uint32_t cache = ll_fresh(e), txt = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, cache);
  pr_printf(&e->pr, " = memref.get_global @__shloc_op_cache_%u : memref<1xi64>", site);
  pr_newline(&e->pr);
  ll_tmp(e, txt);
  pr_printf(&e->pr, " = memref.get_global @__shloc_op_text_%u : memref<%zuxi8>", site, len);
  char txt_type[48];
  snprintf(txt_type, sizeof txt_type, "memref<%zuxi8>", len);
  uint32_t cache_p = pointer_of(e, cache, NULL, "memref<1xi64>"), txt_p = pointer_of(e, txt, NULL, txt_type);
  /* The pointer array lives on the stack for the call only (the scope
   * matters inside loops). */
  uint32_t rc = ll_fresh(e), rc_in = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, rc);
  pr_puts(&e->pr, " = memref.alloca_scope -> (i32) {");
  e->pr.indent += 1;
  uint32_t argv = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, argv);
  pr_printf(&e->pr, " = memref.alloca() : memref<%uxindex>", n ? n : 1);
  char argv_type[48];
  snprintf(argv_type, sizeof argv_type, "memref<%uxindex>", n ? n : 1);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t c = ll_fresh(e);
    pr_newline(&e->pr);
    ll_tmp(e, c);
    pr_printf(&e->pr, " = arith.constant %u : index", i);
    pr_newline(&e->pr);
    pr_puts(&e->pr, "memref.store ");
    ll_tmp(e, ptrs[i]);
    pr_puts(&e->pr, ", ");
    ll_tmp(e, argv);
    pr_puts(&e->pr, "[");
    ll_tmp(e, c);
    pr_printf(&e->pr, "] : %s", argv_type);
  }
  uint32_t argv_p = pointer_of(e, argv, NULL, argv_type);
  uint32_t len_c = ll_cst_int(e, (long long)len, DT_I64), n_c = ll_cst_int(e, n, DT_I64);
  pr_newline(&e->pr);
  ll_tmp(e, rc_in);
  pr_puts(&e->pr, " = func.call @shloc_rt_op(");
  ll_tmp(e, cache_p);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, txt_p);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, len_c);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, argv_p);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, n_c);
  pr_puts(&e->pr, ") : (index, index, i64, index, i64) -> i32");
  pr_newline(&e->pr);
  pr_puts(&e->pr, "memref.alloca_scope.return ");
  ll_tmp(e, rc_in);
  pr_puts(&e->pr, " : i32");
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "}");
  /* Checked outside the scope: cf.assert splits its block. */
  uint32_t ok = ll_fresh(e), zero = ll_cst_int(e, 0, DT_I32);
  pr_newline(&e->pr);
  ll_tmp(e, ok);
  pr_puts(&e->pr, " = arith.cmpi eq, ");
  ll_tmp(e, rc);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, zero);
  pr_puts(&e->pr, " : i32");
  pr_newline(&e->pr);
  pr_puts(&e->pr, "cf.assert ");
  ll_tmp(e, ok);
  pr_printf(&e->pr, ", \"shloc_rt_op failed on '%s'\"", op_name_cstr(op));
  for (uint32_t i = 0; i < op->n_results; i++) {
    const shl_type *t = op->results[i].type;
    uint32_t r = ll_fresh(e);
    pr_newline(&e->pr);
    ll_tmp(e, r);
    pr_puts(&e->pr, " = bufferization.to_tensor ");
    ll_tmp(e, outs[i]);
    pr_puts(&e->pr, " restrict writable : ");
    ll_memref_type(e, t);
    pr_puts(&e->pr, " to ");
    ll_type(e, t);
    ((shl_value *)&op->results[i])->id = (r + 1) | LL_DIRECT;
  }
  free(ptrs);
  free(outs);
  return NULL;
}
