/* Parsing one attribute or one type from a string (the builder API takes
 * attribute values and types written as MLIR text). */
#ifndef SHLOC_TEXT_PARSE_FRAGMENT_H
#define SHLOC_TEXT_PARSE_FRAGMENT_H

#include "ir/ir.h"

/* Parses `text` as exactly one attribute into the module's arena, under the
 * context's limits (max_attr_text_bytes, max_nesting).  Leading and trailing
 * whitespace is allowed; anything else after the attribute is an error, so a
 * value can never close an enclosing dictionary and add entries of its own.
 * Attribute aliases (#name) are not defined here and fail. */
shl_status text_parse_attr(shloc_module *m, const char *text, size_t len, const shl_attr **out);
/* Without the length limit, for text the library composed itself (nesting
 * is still bounded). */
shl_status text_parse_attr_unbounded(shloc_module *m, const char *text, size_t len, const shl_attr **out);
/* Same for exactly one type. */
shl_status text_parse_type(shloc_module *m, const char *text, size_t len, const shl_type **out);

#endif
