/* Custom-call targets libshloc implements itself (JAX's CPU targets, ...):
 * typed XLA FFI handlers every registry falls back to when nothing is
 * registered under the name (src/ffi/site.c), and the symbols the C shim
 * calls for them by default (src/codegen/shim.c). */
#ifndef SHLOC_TARGETS_BUILTIN_TARGETS_H
#define SHLOC_TARGETS_BUILTIN_TARGETS_H

#include <stddef.h>

#include "shloc/xla_ffi.h"

typedef struct {
  const char *target;      /* custom call target name */
  const char *symbol;      /* exported C symbol of the handler */
  XLA_FFI_Handler *execute; /* the handler (execute stage only, CPU) */
} builtin_target;

/* The built-in target called `name` (`len` bytes), or NULL. */
const builtin_target *builtin_target_find(const char *name, size_t len);

#endif
