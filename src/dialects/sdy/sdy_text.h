/* Shardy attributes in MLIR text: parsing (from the parser's tokens) and the
 * canonical text Shardy's printer writes.  Used by src/text/ for `#sdy...`
 * attributes and by the sdy ops' pretty forms (src/text/pretty_sdy.c). */
#ifndef SHLOC_DIALECTS_SDY_SDY_TEXT_H
#define SHLOC_DIALECTS_SDY_SDY_TEXT_H

#include "sdy.h"
#include "text/parser.h"

/* `#sdy.NAME<...>` / `#sdy<NAME...>` at the current token (a TK_HASH_ID whose
 * dialect is sdy).  Sets *out for the attributes sdy knows (mesh, sharding,
 * sharding_per_value, manual_axes, propagation_direction); leaves it NULL
 * without consuming anything for the others, which the caller keeps verbatim. */
shl_status sdy_parse_hash_attr(shl_parser *p, const shl_attr **out);

/* The stripped forms the sdy ops print (current token at their first character):
 *   `<@mesh, [{"a"}, {}]>`          a sharding (sharding_constraint, reshard)
 *   `<["a"=2], device_ids=[...]>`   a mesh (sdy.mesh)
 *   `[<@mesh, ...>, ...]`           shardings per value (manual/named computation)
 *   `{"a", "b"}`                    manual axes */
shl_status sdy_parse_sharding(shl_parser *p, const shl_attr **out);
shl_status sdy_parse_mesh(shl_parser *p, const shl_attr **out);
shl_status sdy_parse_per_value(shl_parser *p, const shl_attr **out);
shl_status sdy_parse_manual_axes(shl_parser *p, const shl_attr **out);

#endif
