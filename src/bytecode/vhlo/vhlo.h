/* The VHLO dialect: versioned ops (vhlo_ops.def), their conversion to the
 * StableHLO, CHLO and func ops of shloc's IR, and the newest version known. */
#ifndef SHLOC_BYTECODE_VHLO_VHLO_H
#define SHLOC_BYTECODE_VHLO_VHLO_H

#include "bytecode/bc_reader.h"

struct vhlo_opinfo {
  const char *name;  /* "gather_v2" */
  uint32_t min[3], max[3]; /* versions that have the op (max 0.0.0: still current) */
  shl_opid id;       /* the StableHLO/func op it becomes */
  uint32_t n_attrs;
  const char *const *attrs; /* sorted: the order of its properties in bytecode */
};

/* The row for an op name without the "vhlo." prefix, or NULL. */
const vhlo_opinfo *vhlo_op_lookup(shl_str name);
/* The VHLO ops that `op` (a StableHLO, CHLO or func op name) becomes, oldest
 * first; returns how many (0: VHLO cannot express the op). */
size_t vhlo_ops_for(shl_str op, const vhlo_opinfo **out, size_t cap);
/* {major, minor, patch} of the newest VHLO version this reader knows. */
const uint32_t *vhlo_current_version(void);

/* The code of a scalar VHLO type and its first version ({major, minor,
 * patch}); -1 when VHLO has no such type. */
int vhlo_scalar_type_code(shl_dtype dt, const uint8_t **min);
/* First version of a type code (NULL for an unknown code). */
const uint8_t *vhlo_type_code_min(unsigned code);
/* The attribute code and value of a StableHLO enum ("comparison_direction",
 * "LT"); false when VHLO has no such enum or value. */
bool vhlo_enum_code(shl_str name, shl_str value, unsigned *code, uint64_t *v);

/* An op converted from VHLO. */
typedef struct {
  const shl_opdef *def;
  shl_str name;          /* "stablehlo.gather" (also for ops outside the op table) */
  shl_named_attr *attrs; /* sorted by name */
  uint32_t n_attrs;
} vhlo_converted;

/* Converts op `info` with VHLO attributes `in` (as read; any order) found
 * inside an op named `parent` into its StableHLO form: attributes renamed,
 * split fields joined into StableHLO's structured attributes, defaults that
 * StableHLO leaves out dropped, and attributes that older versions lack
 * treated as their defaults.  The result lives in buf (room for cap). */
shl_status vhlo_convert_op(bc_reader *r, const uint8_t *at, const vhlo_opinfo *info, shl_str parent,
                           const shl_named_attr *in, uint32_t n_in, shl_named_attr *buf, uint32_t cap,
                           vhlo_converted *out);

#endif
