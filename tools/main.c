/* shloc: StableHLO toolchain command-line interface. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_lower.h"

typedef struct {
  const char *name;
  int (*fn)(int argc, char **argv);
  const char *help;
  bool executes; /* runs kernels on the OpenMP pool */
} command;

static const command commands[] = {
    {"check", cmd_check, "parse and verify a module", false},
    {"fmt", cmd_fmt, "print a module in canonical pretty or generic form", false},
    {"inspect", cmd_inspect, "show a module's form, jax.export envelope fields, attributes and signature", false},
    {"test", cmd_test, "run self-checking test programs (check.* ops)", true},
    {"run", cmd_run, "run a function on .npy inputs; write .npy outputs or print results", true},
    {"lower-custom-calls", cmd_lower, "custom calls -> func.call of external functions (+ C shim to the handlers)",
     false},
    {"lower", cmd_lower_linalg, "lower a static program to upstream MLIR (--to=linalg) for mlir-opt", false},
    {"serialize", cmd_serialize, "write a StableHLO portable artifact (VHLO bytecode) for a target version", false},
    {"compile", cmd_compile, "compile through mlir-opt-22 / mlir-translate-22 / clang-22: LLVM IR, an object + header, or an executable", false},
};

static void usage(FILE *f) {
  fprintf(f, "usage: shloc COMMAND [ARGS]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "  %-20s %s\n", commands[i].name, commands[i].help);
  fprintf(f, "\nshloc COMMAND --help shows a command's options.\n");
}

/* OpenMP workers that spin after each parallel region take the core that
 * other processes (or, when a VM loses a vCPU, our own main thread) need:
 * under load, OMP_WAIT_POLICY=passive ran the GEMM workloads up to 2x
 * faster, and idle machines lose nothing measurable.  libgomp reads its
 * environment when it loads, so when the user chose no policy (neither
 * OMP_WAIT_POLICY nor GOMP_SPINCOUNT) a command that executes sets passive
 * and re-executes itself once; if that fails it goes on with the defaults. */
static void default_wait_policy(char **argv) {
  if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT")) return;
  setenv("OMP_WAIT_POLICY", "passive", 1);
  execv("/proc/self/exe", argv);
  unsetenv("OMP_WAIT_POLICY");
}

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(argv[1], commands[i].name) == 0) {
      if (commands[i].executes) default_wait_policy(argv);
      return commands[i].fn(argc - 1, argv + 1);
    }
  fprintf(stderr, "shloc: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}
