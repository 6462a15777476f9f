/* Canonical text of !quant.uniform types (quant_text.c). */
#ifndef SHLOC_TEXT_QUANT_TEXT_H
#define SHLOC_TEXT_QUANT_TEXT_H

#include "support/arena.h"
#include "support/strview.h"

/* The canonical spelling of `text` (a whole "!quant.uniform<...>") in the
 * arena; false when the text does not have that form (it is then kept as
 * written). */
bool quant_canonical(shl_arena *a, shl_str text, shl_str *out);

#endif
