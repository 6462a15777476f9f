#include "dtype.h"

#include <string.h>

const shl_dtype_info shl_dtype_table[DT_COUNT] = {
    [DT_INVALID] = {"<invalid>", 0, DTC_BOOL, 0},
#define X(id, name, bytes, cls, bits) [DT_##id] = {name, bytes, cls, bits},
#include "dtype.def"
#undef X
};

shl_dtype dtype_from_name(const char *s, size_t len) {
  for (int t = 1; t < DT_COUNT; t++) {
    const char *n = shl_dtype_table[t].name;
    if (strlen(n) == len && memcmp(n, s, len) == 0 && n[0] != 'c' && n[0] != '!') return (shl_dtype)t;
  }
  return DT_INVALID;
}
