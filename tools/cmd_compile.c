/* shloc compile FILE -o OUT: `shloc lower --to=linalg`, then upstream MLIR's
 * own tools: mlir-opt-22 (the pipeline below, also in README), then
 * mlir-translate-22 --mlir-to-llvmir, then clang-22 -c.  OUT's extension
 * picks where to stop: .mlir (LLVM dialect), .ll (LLVM IR), .o (object). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cli_lower.h"

static const char usage_text[] =
    "usage: shloc compile FILE -o OUT\n"
    "\n"
    "Lowers FILE like `shloc lower --to=linalg`, then runs upstream MLIR's tools:\n"
    "  mlir-opt-22 (pipeline in README: \"Compiling through upstream MLIR\")\n"
    "  mlir-translate-22 --mlir-to-llvmir\n"
    "  clang-22 -c -O2 -fPIC\n"
    "OUT's extension says where to stop: .mlir (LLVM dialect), .ll (LLVM IR) or .o\n"
    "(object; every public function F has the C entry point _mlir_ciface_F over\n"
    "memref descriptors).  Custom calls stay external functions (link the shim of\n"
    "`shloc lower --shim`).  Executables are not produced yet.\n"
    "\n"
    "Exit status: 0 on success, 1 on any error, 2 on bad usage.\n";

static const char *const opt_pipeline[] = {
    "--one-shot-bufferize=bufferize-function-boundaries allow-return-allocs-from-loops "
    "function-boundary-type-conversion=identity-layout-map",
    "--ownership-based-buffer-deallocation", "--buffer-deallocation-simplification",
    "--bufferization-lower-deallocations", "--convert-bufferization-to-memref", "--convert-linalg-to-loops",
    "--convert-scf-to-cf", "--expand-strided-metadata", "--lower-affine", "--convert-math-to-llvm",
    "--convert-math-to-libm", "--convert-arith-to-llvm", "--convert-index-to-llvm", "--llvm-request-c-wrappers",
    "--convert-func-to-llvm", "--convert-cf-to-llvm", "--finalize-memref-to-llvm", "--convert-func-to-llvm",
    "--reconcile-unrealized-casts",
};
#define N_PIPELINE (sizeof opt_pipeline / sizeof *opt_pipeline)

static bool on_path(const char *tool) {
  const char *path = getenv("PATH");
  if (!path) return false;
  char *copy = strdup(path);
  bool found = false;
  for (char *dir = copy ? strtok(copy, ":") : NULL; dir && !found; dir = strtok(NULL, ":")) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", *dir ? dir : ".", tool);
    found = access(buf, X_OK) == 0;
  }
  free(copy);
  return found;
}

/* Runs argv; on failure prints the command line (the tool printed its own diagnostic). */
static bool run_tool(char *const *argv) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    execvp(argv[0], argv);
    _exit(127);
  }
  int status = 0;
  bool ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!ok) {
    fprintf(stderr, "shloc compile: this command failed:\n ");
    for (size_t i = 0; argv[i]; i++) fprintf(stderr, strchr(argv[i], ' ') ? " '%s'" : " %s", argv[i]);
    fputc('\n', stderr);
  }
  return ok;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool need_tool(const char *tool, const char *package) {
  if (on_path(tool)) return true;
  fprintf(stderr, "shloc compile: %s not found on PATH (Debian package %s)\n", tool, package);
  return false;
}

/* Lowers path into dir/lowered.mlir. */
static bool lower_to(const char *path, const char *lowered) {
  char *out = NULL;
  size_t out_len = 0;
  cli_input in;
  if (!cli_input_open(path, &in)) return false;
  shloc_context *ctx = shloc_context_create();
  shloc_module *m = NULL;
  shloc_status st = ctx ? shloc_module_parse(ctx, path, in.text, in.len, 1, &m)
                        : shloc_status_error(SHLOC_ERR_OOM, NULL, 0, 0, "out of memory");
  if (!st) st = shloc_module_verify(m);
  if (!st) st = shloc_lower_linalg(m, &out, &out_len);
  if (st) cli_report(st, in.text, in.len);
  bool ok = !st && cli_write_file(lowered, out, out_len);
  free(out);
  cli_input_close(&in);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
  return ok;
}

static int compile(const char *path, const char *out, const char *dir) {
  enum { TO_MLIR, TO_LL, TO_OBJ } stop;
  if (ends_with(out, ".mlir")) stop = TO_MLIR;
  else if (ends_with(out, ".ll")) stop = TO_LL;
  else if (ends_with(out, ".o")) stop = TO_OBJ;
  else {
    fprintf(stderr, "shloc compile: OUT must end in .mlir, .ll or .o (executables are not produced yet)\n");
    return 2;
  }
  if (!need_tool("mlir-opt-22", "mlir-22-tools")) return 1;
  if (stop >= TO_LL && !need_tool("mlir-translate-22", "mlir-22-tools")) return 1;
  if (stop == TO_OBJ && !need_tool("clang-22", "clang-22")) return 1;
  char lowered[4200], llvm_mlir[4200], ll[4200];
  snprintf(lowered, sizeof lowered, "%s/lowered.mlir", dir);
  snprintf(llvm_mlir, sizeof llvm_mlir, "%s/llvm.mlir", dir);
  snprintf(ll, sizeof ll, "%s/module.ll", dir);
  if (!lower_to(path, lowered)) return 1;
  char *argv[N_PIPELINE + 5];
  size_t n = 0;
  argv[n++] = (char *)"mlir-opt-22";
  argv[n++] = lowered;
  for (size_t i = 0; i < N_PIPELINE; i++) argv[n++] = (char *)opt_pipeline[i];
  argv[n++] = (char *)"-o";
  argv[n++] = (char *)(stop == TO_MLIR ? out : llvm_mlir);
  argv[n] = NULL;
  if (!run_tool(argv)) return 1;
  if (stop == TO_MLIR) return 0;
  char *tr[] = {(char *)"mlir-translate-22", (char *)"--mlir-to-llvmir", llvm_mlir, (char *)"-o",
                (char *)(stop == TO_LL ? out : ll), NULL};
  if (!run_tool(tr)) return 1;
  if (stop == TO_LL) return 0;
  char *cc[] = {(char *)"clang-22", (char *)"-c", (char *)"-O2", (char *)"-fPIC", ll, (char *)"-o", (char *)out, NULL};
  return run_tool(cc) ? 0 : 1;
}

int cmd_compile(int argc, char **argv) {
  const char *path = NULL, *out = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage_text, stdout);
      return 0;
    }
    if (strcmp(a, "-o") == 0 && i + 1 < argc) out = argv[++i];
    else if (!path && a[0] != '-') path = a;
    else {
      fprintf(stderr, "shloc compile: unexpected argument '%s' (see --help)\n", a);
      return 2;
    }
  }
  if (!path || !out) {
    fprintf(stderr, "shloc compile: expected FILE and -o OUT (see --help)\n");
    return 2;
  }
  const char *tmpdir = getenv("TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/shloc-compile-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
  if (!mkdtemp(dir)) {
    perror("shloc compile: creating a temporary directory");
    return 1;
  }
  int rc = compile(path, out, dir);
  const char *files[] = {"lowered.mlir", "llvm.mlir", "module.ll"};
  for (size_t i = 0; i < 3; i++) {
    char f[4200];
    snprintf(f, sizeof f, "%s/%s", dir, files[i]);
    unlink(f);
  }
  rmdir(dir);
  return rc;
}
