/* Reading (and writing) StableHLO portable artifacts: MLIR bytecode whose ops
 * are the versioned VHLO dialect, converted to and from shloc's StableHLO IR. */
#ifndef SHLOC_BYTECODE_BYTECODE_H
#define SHLOC_BYTECODE_BYTECODE_H

#include "ir/ir.h"

/* True when `data` starts with the MLIR bytecode magic "ML\xEFR". */
bool bytecode_is(const void *data, size_t len);
/* Reads the artifact into the empty module m (m->filename names it in
 * errors).  With `borrowed`, data outlives m and large constants may point
 * into it instead of being copied. */
shl_status bytecode_read(shloc_module *m, const uint8_t *data, size_t len, bool borrowed);

#endif
