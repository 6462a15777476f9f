/* Shardy (sdy): meshes, tensor shardings and manual axes.
 *
 * Attributes are parsed into the structures below and stored as AT_OPAQUE
 * attributes whose text is Shardy's own printed form (so printing, and
 * equality by text, need nothing more) and whose `u.opq.parsed` points at
 * the structure.  Parsing lives in sdy_text.h (called by the text layer for
 * `#sdy.mesh<...>`, `#sdy.sharding<...>`, `#sdy.sharding_per_value<...>`,
 * `#sdy<manual_axes...>` and the stripped forms the sdy ops print); the
 * verifier calls sdy_verify_*.  Other #sdy attributes (op_sharding_rule,
 * ...) stay verbatim text. */
#ifndef SHLOC_DIALECTS_SDY_SDY_H
#define SHLOC_DIALECTS_SDY_SDY_H

#include "ir/ir.h"

typedef enum { SDY_MESH = 1, SDY_SHARDING, SDY_SHARDING_PER_VALUE, SDY_MANUAL_AXES } sdy_kind;

typedef struct {
  shl_str name;
  int64_t size;
} sdy_mesh_axis;

typedef struct {
  sdy_kind kind; /* SDY_MESH */
  uint32_t n_axes, n_device_ids;
  const sdy_mesh_axis *axes;
  const int64_t *device_ids; /* empty when they are iota(product of sizes) */
} sdy_mesh;

/* "a" (pre_size = size = 0) or the sub-axis "a":(pre_size)size. */
typedef struct {
  shl_str name;
  int64_t pre_size, size;
} sdy_axis_ref;

typedef struct {
  uint32_t n_axes;
  const sdy_axis_ref *axes;
  bool closed;
  int64_t priority; /* -1: none */
} sdy_dim_sharding;

typedef enum { SDY_REDUCE_SUM, SDY_REDUCE_MAX, SDY_REDUCE_MIN } sdy_reduction;

typedef struct {
  sdy_kind kind;           /* SDY_SHARDING */
  shl_str mesh_name;       /* the referenced sdy.mesh, empty with an inline mesh */
  const sdy_mesh *mesh;    /* inline mesh, or NULL */
  uint32_t rank, n_replicated, n_unreduced;
  const sdy_dim_sharding *dims;
  const sdy_axis_ref *replicated, *unreduced;
  sdy_reduction reduction;
} sdy_sharding;

typedef struct {
  sdy_kind kind; /* SDY_SHARDING_PER_VALUE */
  uint32_t n;
  const sdy_sharding *const *v;
} sdy_sharding_per_value;

typedef struct {
  sdy_kind kind; /* SDY_MANUAL_AXES */
  uint32_t n;
  const shl_str *names;
} sdy_manual_axes;

/* ---- access ---- */
const sdy_mesh *sdy_attr_mesh(const shl_attr *a);
const sdy_sharding *sdy_attr_sharding(const shl_attr *a);
const sdy_sharding_per_value *sdy_attr_per_value(const shl_attr *a);
const sdy_manual_axes *sdy_attr_manual_axes(const shl_attr *a);
/* The text after the `#sdy.name` / `#sdy<name` prefix: what the ops' pretty forms print. */
shl_str sdy_attr_stripped(const shl_attr *a);

/* Size of a mesh axis, or -1 when the mesh has no such axis. */
int64_t sdy_mesh_axis_size(const sdy_mesh *m, shl_str name);
/* Product of the axis sizes (1 for an empty or maximal mesh; -1 for a size
 * below 1 or an overflow). */
int64_t sdy_mesh_devices(const sdy_mesh *m);

/* ---- verification ---- */
/* The mesh of module `m` named `name` (an sdy.mesh op at the top level), or NULL. */
const sdy_mesh *sdy_module_mesh(const shloc_module *m, shl_str name);
/* The mesh a sharding refers to (inline, or looked up in the module), or an
 * error naming `op` and `what` ("operand #0", "sdy.sharding") when unknown. */
shl_status sdy_sharding_mesh(const shloc_module *m, const shl_op *op, const char *what, const sdy_sharding *s,
                             const sdy_mesh **out);
/* A sharding of a value of type `t`: known mesh, axes of that mesh, each
 * axis used once, rank equal to the tensor's. */
shl_status sdy_verify_sharding(const shloc_module *m, const shl_op *op, const char *what, const sdy_sharding *s,
                               const shl_type *t);
/* Mesh attribute rules (axis sizes, device ids). */
shl_status sdy_verify_mesh(const shl_op *op, const sdy_mesh *mesh);
/* The sdy.* discardable attributes of any op (sdy.sharding per result), and
 * of a func.func's arguments and results. */
shl_status sdy_verify_op_attrs(const shloc_module *m, const shl_op *op);

#endif
