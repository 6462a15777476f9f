/* shloc: StableHLO toolchain command-line interface. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct {
  const char *name;
  int (*fn)(int argc, char **argv);
  const char *help;
} command;

static const command commands[] = {
    {"check", cmd_check, "parse and verify a module"},
    {"fmt", cmd_fmt, "print a module in canonical pretty or generic form"},
    {"test", cmd_test, "run self-checking test programs (check.* ops)"},
    {"run", cmd_run, "run a function on .npy inputs; write .npy outputs or print results"},
    {"lower-custom-calls", cmd_lower, "custom calls -> func.call of external functions (+ C shim to the handlers)"},
};

static void usage(FILE *f) {
  fprintf(f, "usage: shloc COMMAND [ARGS]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "  %-20s %s\n", commands[i].name, commands[i].help);
  fprintf(f, "\nshloc COMMAND --help shows a command's options.\n");
}

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(argv[1], commands[i].name) == 0) return commands[i].fn(argc - 1, argv + 1);
  fprintf(stderr, "shloc: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}
