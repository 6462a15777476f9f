/* Float literals as MLIR writes and reads them.
 *
 * fp_format prints a value the way MLIR's AsmPrinter prints a float attribute:
 * "%.6e"-like ("1.500000e+00") when that reads back to the same bits, else
 * APFloat's shortest-safe default form ("9.99999974E-6", "1.00048828125"),
 * and when that has no '.' (an integer such as "123456789") or the value is
 * inf/NaN, the hex bit pattern ("0x7FC00000", "0x3FE00" for a tf32 NaN). */
#ifndef SHLOC_SUPPORT_FLOATFMT_H
#define SHLOC_SUPPORT_FLOATFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dtype.h"

/* Longest text fp_format produces, including the terminating NUL. */
#define FP_FORMAT_MAX 48

/* Prints float dtype t's value `storage` into buf (NUL-terminated, truncated
 * to cap); returns the full length like snprintf. */
int fp_format(shl_dtype t, uint64_t storage, char *buf, size_t cap);

/* Decimal text [-+]?(d+[.d*]|.d+)([eE][-+]?d+)? rounded correctly (to nearest,
 * ties to even, with the format's overflow rule) into dtype t, as APFloat's
 * string constructor does.  False if the text is not such a number. */
bool fp_parse_decimal(shl_dtype t, const char *s, size_t len, uint64_t *out_storage);

/* The same text converted the way MLIR's parser converts a float literal: to
 * the nearest double first, then rounded to t (so an f16/f32 literal can be
 * rounded twice, exactly as mlir-opt does).  Use this in the IR parser. */
bool fp_parse_literal(shl_dtype t, const char *s, size_t len, uint64_t *out_storage);

#endif
