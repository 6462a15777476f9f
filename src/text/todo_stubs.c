/* TEMPORARY: hooks not written yet; each owner deletes its stubs. */
#include "text/parser.h"
#include "text/printer.h"

shl_status parse_broadcast(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_broadcast(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_check_close(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_check_close(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_check_const(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_check_const(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_check_pair(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_check_pair(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_check_serialized(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_check_serialized(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_cholesky(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_cholesky(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_composite(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_composite(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_concatenate(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_concatenate(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_convolution(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_convolution(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_dims_op(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_dims_op(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_dot(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_dot(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_dot_general(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_dot_general(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_dynamic_broadcast_in_dim(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_dynamic_broadcast_in_dim(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_dynamic_iota(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_dynamic_iota(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_dynamic_slice(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_dynamic_slice(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_einsum(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_einsum(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_fft(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_fft(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_get_dimension_size(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_get_dimension_size(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_interp_print(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_interp_print(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_iota(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_iota(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_pad(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_pad(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_probe(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_probe(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_reduce(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_reduce(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_reduce_precision(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_reduce_precision(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_rng(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_rng(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_rng_bit_generator(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_rng_bit_generator(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_slice(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_slice(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_top_k(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_top_k(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
shl_status parse_while(shl_parser *p, op_state *os) { (void)os; return parse_error(p, "pretty form of this op is not implemented yet"); }
void print_while(shl_printer *pr, const shl_op *op) { pr_generic_op(pr, op); }
