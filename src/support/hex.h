/* Hex digits <-> bytes for dense<"0x..."> constants: the hot loops when
 * large constants are parsed or printed (SSE2 where available). */
#ifndef SHLOC_SUPPORT_HEX_H
#define SHLOC_SUPPORT_HEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Length of the longest prefix of s[0..n) made of uppercase hex digits
 * (0-9, A-F): the form MLIR and shloc print. */
size_t hex_upper_span(const char *s, size_t n);
/* Decodes 2 * nbytes hex digits (either case) into out; false on a non-digit. */
bool hex_decode(const char *s, size_t nbytes, uint8_t *out);
/* Offset of the first character of s[0..n) that is not a hex digit, or n. */
size_t hex_first_bad(const char *s, size_t n);
/* Encodes nbytes bytes, each masked with `mask`, as 2 * nbytes uppercase digits. */
void hex_encode(const uint8_t *d, size_t nbytes, unsigned mask, char *out);

#endif
