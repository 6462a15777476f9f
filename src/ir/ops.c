#include "ops.h"

#include <pthread.h>
#include <stdlib.h>

const shl_opdef shl_op_table[OP_COUNT] = {
#define OP(id, name, traits, syn, ver, ker) {OP_##id, name, traits},
#include "ops.def"
#undef OP
};

/* Name index for lookups: built once, fixed size, never grows with input. */
static uint16_t by_name[OP_COUNT - 1];
static pthread_once_t by_name_once = PTHREAD_ONCE_INIT;

static int cmp_row(const void *a, const void *b) {
  return strcmp(shl_op_table[*(const uint16_t *)a].name, shl_op_table[*(const uint16_t *)b].name);
}

static void build_index(void) {
  for (int i = 1; i < OP_COUNT; i++) by_name[i - 1] = (uint16_t)i;
  qsort(by_name, OP_COUNT - 1, sizeof by_name[0], cmp_row);
}

const shl_opdef *opdef_lookup(shl_str name) {
  if (str_eq_c(name, "return")) return &shl_op_table[OP_FUNC_RETURN];
  if (str_eq_c(name, "call")) return &shl_op_table[OP_FUNC_CALL];
  if (str_eq_c(name, "module")) return &shl_op_table[OP_MODULE];
  pthread_once(&by_name_once, build_index);
  size_t lo = 0, hi = OP_COUNT - 1;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = str_cmp(str_of(shl_op_table[by_name[mid]].name), name);
    if (c == 0) return &shl_op_table[by_name[mid]];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}
