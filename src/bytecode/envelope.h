/* jax.export envelopes (include/shloc/jax_export.h): detection and decoding. */
#ifndef SHLOC_BYTECODE_ENVELOPE_H
#define SHLOC_BYTECODE_ENVELOPE_H

#include "shloc/jax_export.h"
#include "support/arena.h"
#include "support/status.h"

typedef enum {
  ENVELOPE_NO,     /* not an envelope: text, an artifact, or other data */
  ENVELOPE_YES,    /* a root table with an mlir_module_serialized byte vector */
  ENVELOPE_BROKEN, /* binary data starting like a flatbuffer that does not validate */
} envelope_kind;

/* Recognises an envelope by content.  The schema declares no file
 * identifier, so this validates the root table and the module field; data
 * that is not text (a NUL among the first 4 bytes, which a root offset below
 * 16 MiB always has and MLIR text never does) and is not an artifact counts
 * as a broken envelope, so that its error names the envelope.  For YES,
 * *module_off and *module_len locate mlir_module_serialized; for BROKEN,
 * *why (if non-NULL) receives the validation error. */
envelope_kind envelope_sniff(const void *data, size_t len, const char *file, size_t *module_off, size_t *module_len,
                             shl_status *why);

/* Decodes every field into arena `a` (strings copied: `data` may go away). */
shl_status envelope_decode(shl_arena *a, const void *data, size_t len, const char *file, shloc_jax_export **out);

#endif
