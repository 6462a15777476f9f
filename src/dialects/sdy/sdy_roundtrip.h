/* Shardy's round-trip export form (what JAX and XLA wrote for a while):
 * sdy attributes carried as strings in `mhlo.frontend_attributes`.  The
 * module's `xla.sdy.meshes = "{mesh = #sdy.mesh<...>, ...}"` defines the
 * meshes, values carry `xla.sdy.sharding = "#sdy.sharding<@mesh, ...>"`,
 * and a manual computation is `custom_call @xla.sdy.GlobalToLocalShape`,
 * a `call` of its body and `custom_call @xla.sdy.LocalToGlobalShape`, with
 * `xla.sdy.manual_axes`, `xla.sdy.in_shardings` and `xla.sdy.out_shardings`
 * on the two custom calls (or, in the older form, all on the call).  The
 * strings are parsed by the sdy attribute parser (sdy_text.c). */
#ifndef SHLOC_DIALECTS_SDY_SDY_ROUNDTRIP_H
#define SHLOC_DIALECTS_SDY_SDY_ROUNDTRIP_H

#include "sdy.h"

/* The string `key` of `attrs` (an mhlo.frontend_attributes dictionary, or
 * NULL) parsed as an sdy attribute of kind `want` into the module's arena;
 * *out = NULL when absent.  Errors name `key` and sit at `op`. */
shl_status sdy_rt_parse(shloc_module *m, const shl_op *op, const shl_attr *attrs, const char *key, sdy_kind want,
                        const shl_attr **out);
/* The same for the frontend attributes of op itself. */
shl_status sdy_rt_op_attr(shloc_module *m, const shl_op *op, const char *key, sdy_kind want, const shl_attr **out);
/* The mesh a sharding refers to: inline, an sdy.mesh op, or an entry of the
 * module's xla.sdy.meshes; an error at `op` naming `what` when unknown. */
shl_status sdy_rt_sharding_mesh(shloc_module *m, const shl_op *op, const char *what, const sdy_sharding *s,
                                const sdy_mesh **out);

#endif
