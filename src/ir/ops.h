/* The op table (rows in ops.def). */
#ifndef SHLOC_IR_OPS_H
#define SHLOC_IR_OPS_H

#include <stdint.h>

#include "support/strview.h"

enum {
  T_EW = 1u << 0,     /* elementwise */
  T_COMM = 1u << 1,   /* commutative */
  T_SIDE = 1u << 2,   /* has side effects: never removed, order kept */
  T_TERM = 1u << 3,   /* block terminator */
  T_REGION = 1u << 4, /* owns regions */
  T_ISO = 1u << 5,    /* isolated from above (value names do not leak in) */
};

typedef enum {
#define OP(id, name, traits, syn, ver, ker) OP_##id,
#include "ops.def"
#undef OP
  OP_COUNT
} shl_opid;

typedef struct {
  shl_opid id;
  const char *name;
  uint32_t traits;
} shl_opdef;

extern const shl_opdef shl_op_table[OP_COUNT];

/* Row for a name (with the `func.`/`builtin.` short spellings `return`,
 * `call`, `module` accepted), or NULL. */
const shl_opdef *opdef_lookup(shl_str name);

#endif
