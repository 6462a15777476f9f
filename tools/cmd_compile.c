/* shloc compile FILE -o OUT: libshloc writes the sources
 * (shloc_compile_sources: lowered module, C entry points, driver, shim);
 * this command runs upstream MLIR's tools and clang-22 on them.  OUT's
 * extension picks where to stop: .mlir (LLVM dialect), .ll (LLVM IR), .o
 * (object + header), none (executable). */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cli_lower.h"
#include "shloc/compile.h"

#ifndef SHLOC_SOURCE_INCLUDE_DIR
#define SHLOC_SOURCE_INCLUDE_DIR ""
#endif
#ifndef SHLOC_INSTALL_LIBDIR
#define SHLOC_INSTALL_LIBDIR "lib"
#endif

static const char usage_text[] =
    "usage: shloc compile FILE -o OUT [--entry NAME] [--ffi TARGET=SYMBOL ...] [--link ARG ...]\n"
    "\n"
    "Compiles a static StableHLO program through upstream MLIR: `shloc lower --to=linalg`,\n"
    "then mlir-opt-22 (pipeline in README: \"Compiling through upstream MLIR\"),\n"
    "mlir-translate-22 --mlir-to-llvmir and clang-22.  OUT's extension says what to write:\n"
    "  OUT.mlir   the LLVM dialect module\n"
    "  OUT.ll     LLVM IR\n"
    "  OUT.o      an object with a C entry point MODULE_FUNC(...) per public function,\n"
    "             declared in OUT.h (written next to it); link it with libshloc\n"
    "  OUT        an executable running @main (or --entry NAME, or the only public\n"
    "             function) on .npy inputs: OUT --input A.npy ... [-o DIR] [--print]\n"
    "             [--quiet] [--repeat N --time]; exit 0 when every check passed\n"
    "\n"
    "  --entry NAME     the function the executable runs\n"
    "  --ffi T=SYMBOL   the XLA FFI handler implementing custom call T (default: T\n"
    "                   with non-identifier characters replaced by '_'); resolved at link time\n"
    "  --link ARG       passed to the executable's link command: a library file (its\n"
    "                   directory becomes an rpath for .so files), -lNAME or -LDIR\n"
    "  --native         compile for this machine's CPU (-march=native)\n"
    "  --keep DIR       keep the intermediate files in DIR\n"
    "\n"
    "Environment: SHLOC_CC overrides the compiler that builds and links the C parts\n"
    "(default clang-22).\n"
    "\n"
    "Exit status: 0 on success, 1 on any error, 2 on bad usage.\n";

typedef struct {
  const char *path, *out, *entry, *keep;
  char **ffi;
  size_t n_ffi;
  char **link;
  size_t n_link;
  bool native;
} compile_opts;

/* snprintf into a path buffer; false when it does not fit. */
static bool pathf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool pathf(char *buf, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, cap, fmt, ap);
  va_end(ap);
  return n >= 0 && (size_t)n < cap;
}

static bool on_path(const char *tool) {
  if (strchr(tool, '/')) return access(tool, X_OK) == 0;
  const char *path = getenv("PATH");
  if (!path) return false;
  char *copy = strdup(path);
  bool found = false;
  for (char *dir = copy ? strtok(copy, ":") : NULL; dir && !found; dir = strtok(NULL, ":")) {
    char buf[PATH_MAX];
    pathf(buf, sizeof buf, "%s/%s", *dir ? dir : ".", tool);
    found = access(buf, X_OK) == 0;
  }
  free(copy);
  return found;
}

static bool need_tool(const char *tool, const char *package) {
  if (on_path(tool)) return true;
  fprintf(stderr, "shloc compile: %s not found on PATH (Debian package %s)\n", tool, package);
  return false;
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

/* A growable argv. */
typedef struct {
  char **v;
  size_t n, cap;
  bool oom;
} argv_list;

static void add(argv_list *a, const char *s) {
  if (a->n + 2 > a->cap) {
    size_t ncap = a->cap ? a->cap * 2 : 32;
    char **nv = realloc(a->v, ncap * sizeof *nv);
    if (!nv) {
      a->oom = true;
      return;
    }
    a->v = nv;
    a->cap = ncap;
  }
  a->v[a->n++] = (char *)s;
  a->v[a->n] = NULL;
}

static bool run_list(argv_list *a) {
  if (a->oom) {
    fprintf(stderr, "shloc compile: out of memory\n");
    return false;
  }
  return run_tool(a->v);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

/* Where libshloc.a and the public headers are: next to this executable (a
 * build tree: the headers of the source tree it was built from), or under
 * its installation prefix (bin/../include, bin/../LIBDIR). */
static bool find_libshloc(char *lib, char *inc, size_t cap) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return false;
  self[n] = '\0';
  char *slash = strrchr(self, '/');
  if (!slash) return false;
  *slash = '\0';
  if (pathf(lib, cap, "%s/libshloc.a", self) && pathf(inc, cap, "%s", SHLOC_SOURCE_INCLUDE_DIR) && exists(lib) && *inc)
    return true;
  return pathf(lib, cap, "%s/../%s/libshloc.a", self, SHLOC_INSTALL_LIBDIR) &&
         pathf(inc, cap, "%s/../include", self) && exists(lib);
}

static bool write_in(const char *dir, const char *name, const char *text, char *path, size_t cap) {
  pathf(path, cap, "%s/%s", dir, name);
  return cli_write_file(path, text, strlen(text));
}

/* Parses, verifies and writes the sources into dir. */
static bool make_sources(const compile_opts *o, bool executable, const char *dir, shloc_compile_output *out) {
  cli_input in;
  if (!cli_input_open(o->path, &in)) return false;
  const char *text = in.text;
  size_t len = in.len;
  shloc_shim_binding *ffi = calloc(o->n_ffi + 1, sizeof *ffi);
  shloc_context *ctx = shloc_context_create();
  shloc_module *m = NULL;
  shloc_status st = ctx && ffi ? shloc_module_parse(ctx, o->path, text, len, 1, &m) : NULL;
  bool ok = ctx && ffi;
  if (!ok) fprintf(stderr, "shloc compile: out of memory\n");
  for (size_t i = 0; ok && i < o->n_ffi; i++) {
    char *eq = strchr(o->ffi[i], '=');
    if (!eq || eq == o->ffi[i] || !eq[1]) {
      fprintf(stderr, "shloc compile: --ffi '%s': expected TARGET=SYMBOL\n", o->ffi[i]);
      ok = false;
      break;
    }
    *eq = '\0';
    ffi[i] = (shloc_shim_binding){o->ffi[i], eq + 1};
  }
  if (ok && !st) st = shloc_module_verify(m);
  const char *slash = strrchr(o->out, '/');
  char stem[256];
  pathf(stem, sizeof stem, "%s", slash ? slash + 1 : o->out);
  char *dot = strrchr(stem, '.');
  if (dot && dot != stem) *dot = '\0';
  char guard[300];
  size_t g = strlen("SHLOC_COMPILED_");
  memcpy(guard, "SHLOC_COMPILED_", g);
  for (const char *c = stem; *c && g + 3 < sizeof guard; c++)
    guard[g++] = (*c >= 'a' && *c <= 'z') ? (char)(*c - 'a' + 'A') : ((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')) ? *c : '_';
  snprintf(guard + g, sizeof guard - g, "_H");
  shloc_compile_options co = {o->path, stem, guard, executable ? (o->entry ? o->entry : "") : NULL, ffi, o->n_ffi};
  if (ok && !st) st = shloc_compile_sources(m, &co, out);
  if (st) {
    cli_report(st, text, len);
    ok = false;
  }
  char path[PATH_MAX];
  if (ok) ok = write_in(dir, "lowered.mlir", out->mlir, path, sizeof path);
  free(ffi);
  cli_input_close(&in);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
  return ok;
}

static int compile(const compile_opts *o, const char *dir) {
  enum { TO_MLIR, TO_LL, TO_OBJ, TO_EXE } stop;
  const char *slash = strrchr(o->out, '/'), *base = slash ? slash + 1 : o->out;
  if (ends_with(o->out, ".mlir")) stop = TO_MLIR;
  else if (ends_with(o->out, ".ll")) stop = TO_LL;
  else if (ends_with(o->out, ".o")) stop = TO_OBJ;
  else if (!strchr(base, '.')) stop = TO_EXE;
  else {
    fprintf(stderr, "shloc compile: OUT must end in .mlir, .ll or .o, or have no extension (an executable)\n");
    return 2;
  }
  const char *cc = getenv("SHLOC_CC");
  if (!cc || !*cc) cc = "clang-22";
  if (!need_tool("mlir-opt-22", "mlir-22-tools")) return 1;
  if (stop >= TO_LL && !need_tool("mlir-translate-22", "mlir-22-tools")) return 1;
  if (stop >= TO_OBJ && !need_tool("clang-22", "clang-22")) return 1;
  if (stop >= TO_OBJ && !need_tool(cc, "clang-22")) return 1;
  if (stop == TO_OBJ && !need_tool("objcopy", "binutils")) return 1;
  char lib[PATH_MAX], inc[PATH_MAX];
  if (stop >= TO_OBJ && !find_libshloc(lib, inc, sizeof lib)) {
    fprintf(stderr, "shloc compile: libshloc.a not found next to this shloc or under its installation prefix\n");
    return 1;
  }
  shloc_compile_output src = {0};
  argv_list a = {0};
  int rc = 1;
  if (!make_sources(o, stop == TO_EXE, dir, &src)) goto done;
  char lowered[PATH_MAX], llvm_mlir[PATH_MAX], ll[PATH_MAX], mod_o[PATH_MAX], entry_c[PATH_MAX], shim_c[PATH_MAX];
  char inc_flag[PATH_MAX + 2], joined[PATH_MAX], header[PATH_MAX];
  pathf(lowered, sizeof lowered, "%s/lowered.mlir", dir);
  pathf(llvm_mlir, sizeof llvm_mlir, "%s/llvm.mlir", dir);
  pathf(ll, sizeof ll, "%s/module.ll", dir);
  pathf(mod_o, sizeof mod_o, "%s/module.o", dir);
  pathf(joined, sizeof joined, "%s/joined.o", dir);
  pathf(inc_flag, sizeof inc_flag, "-I%s", inc);
  const char *opt_level = o->native ? "-march=native" : "-O3";
  size_t n_passes;
  const char *const *passes = shloc_compile_mlir_opt_passes(&n_passes);
  char sched_flag[PATH_MAX + 48], sched_path[PATH_MAX];
  if (src.schedule) {
    if (!write_in(dir, "schedule.mlir", src.schedule, sched_path, sizeof sched_path)) goto done;
    pathf(sched_flag, sizeof sched_flag, "--transform-preload-library=transform-library-paths=%s", sched_path);
  }
  add(&a, "mlir-opt-22");
  add(&a, lowered);
  for (size_t i = 0; i < n_passes; i++) {
    add(&a, passes[i]);
    if (i == 0 && src.schedule) {
      add(&a, sched_flag);
      add(&a, "--transform-interpreter");
    }
  }
  add(&a, "-o");
  add(&a, stop == TO_MLIR ? o->out : llvm_mlir);
  if (!run_list(&a)) goto done;
  if (stop == TO_MLIR) {
    rc = 0;
    goto done;
  }
  a.n = 0;
  add(&a, "mlir-translate-22");
  add(&a, "--mlir-to-llvmir");
  add(&a, llvm_mlir);
  add(&a, "-o");
  add(&a, stop == TO_LL ? o->out : ll);
  if (!run_list(&a)) goto done;
  if (stop == TO_LL) {
    rc = 0;
    goto done;
  }
  a.n = 0;
  add(&a, "clang-22");
  add(&a, "-c");
  add(&a, "-O3");
  add(&a, opt_level);
  add(&a, "-fPIC");
  add(&a, "-Wno-override-module");
  /* Vectorized loops call glibc's vector math (libmvec, part of -lm) only for
   * this machine's CPU: for baseline x86-64, LLVM 22 vectorizes f16 math 8
   * wide and calls the AVX2 variant (_ZGVdN8v_expf) with SSE registers, so
   * half of each vector came back wrong (exp_float16_20_20 of the corpus). */
  if (o->native) add(&a, "-fveclib=libmvec");
  /* clang keeps vectors 256 bits wide on AVX-512 machines unless asked;
   * the interpreter's kernels use 512 (ignored without AVX-512). */
  if (o->native) add(&a, "-mprefer-vector-width=512");
  add(&a, ll);
  add(&a, "-o");
  add(&a, mod_o);
  if (!run_list(&a)) goto done;
  if (!write_in(dir, "entry.c", src.c, entry_c, sizeof entry_c)) goto done;
  if (src.shim && !write_in(dir, "shim.c", src.shim, shim_c, sizeof shim_c)) goto done;
  a.n = 0;
  add(&a, cc);
  add(&a, "-O3");
  add(&a, opt_level);
  add(&a, "-fPIC");
  add(&a, inc_flag);
  add(&a, mod_o);
  add(&a, entry_c);
  if (src.shim) add(&a, shim_c);
  if (stop == TO_OBJ) {
    /* One relocatable object; then every symbol but the entry points is
     * made local, so objects of several modules link together. */
    add(&a, "-r");
    add(&a, "-o");
    add(&a, joined);
    if (!run_list(&a)) goto done;
    a.n = 0;
    add(&a, "objcopy");
    for (char *line = src.exports; *line;) {
      char *nl = strchr(line, '\n');
      *nl = '\0';
      add(&a, "-G");
      add(&a, line);
      line = nl + 1;
    }
    add(&a, joined);
    add(&a, o->out);
    if (!run_list(&a)) goto done;
    pathf(header, sizeof header, "%.*s.h", (int)(strlen(o->out) - 2), o->out);
    rc = cli_write_file(header, src.header, strlen(src.header)) ? 0 : 1;
    goto done;
  }
  /* Executable: libshloc linked statically, its symbols exported (-rdynamic)
   * for handler libraries that call back into it (XlaCustomCallStatus*). */
  char rpaths[64][PATH_MAX + 16];
  size_t n_rpaths = 0;
  for (size_t i = 0; i < o->n_link; i++) {
    const char *l = o->link[i], *d = strrchr(l, '/');
    if (ends_with(l, ".so") && d && n_rpaths < 64) {
      char dirname[PATH_MAX];
      pathf(dirname, sizeof dirname, "%.*s", (int)(d - l), l);
      char *real = realpath(dirname, NULL);
      pathf(rpaths[n_rpaths], sizeof rpaths[n_rpaths], "-Wl,-rpath,%s", real ? real : dirname);
      free(real);
      add(&a, rpaths[n_rpaths++]);
    }
    add(&a, l);
  }
  add(&a, lib);
  add(&a, "-rdynamic");
  add(&a, "-l:libgomp.so.1");
  /* The tiled loops' OpenMP calls (__kmpc_*): LLVM's runtime.  libshloc's
   * own parallel kernels keep libgomp, listed first. */
  if (src.schedule) add(&a, "-l:libomp.so.5");
  add(&a, "-lm");
  add(&a, "-ldl");
  add(&a, "-lpthread");
  add(&a, "-o");
  add(&a, o->out);
  rc = run_list(&a) ? 0 : 1;
done:
  free(a.v);
  if (!o->keep) {
    const char *files[] = {"lowered.mlir", "schedule.mlir", "llvm.mlir", "module.ll", "module.o", "entry.c", "shim.c", "joined.o"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
      char f[PATH_MAX];
      pathf(f, sizeof f, "%s/%s", dir, files[i]);
      unlink(f);
    }
    rmdir(dir);
  }
  shloc_compile_output_free(&src);
  return rc;
}

int cmd_compile(int argc, char **argv) {
  compile_opts o = {0};
  o.ffi = calloc((size_t)argc + 1, sizeof *o.ffi);
  o.link = calloc((size_t)argc + 1, sizeof *o.link);
  int rc = 2;
  if (!o.ffi || !o.link) {
    fprintf(stderr, "shloc compile: out of memory\n");
    rc = 1;
    goto done;
  }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool val = i + 1 < argc;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage_text, stdout);
      rc = 0;
      goto done;
    }
    if (strcmp(a, "-o") == 0 && val) o.out = argv[++i];
    else if (strcmp(a, "--entry") == 0 && val) o.entry = argv[++i];
    else if (strcmp(a, "--ffi") == 0 && val) o.ffi[o.n_ffi++] = argv[++i];
    else if (strcmp(a, "--link") == 0 && val) o.link[o.n_link++] = argv[++i];
    else if (strcmp(a, "--keep") == 0 && val) o.keep = argv[++i];
    else if (strcmp(a, "--native") == 0) o.native = true;
    else if (!o.path && a[0] != '-') o.path = a;
    else {
      fprintf(stderr, "shloc compile: unexpected argument '%s' (see --help)\n", a);
      goto done;
    }
  }
  if (!o.path || !o.out) {
    fprintf(stderr, "shloc compile: expected FILE and -o OUT (see --help)\n");
    goto done;
  }
  char dir[PATH_MAX];
  if (o.keep) {
    if (!pathf(dir, sizeof dir, "%s", o.keep)) goto done;
    mkdir(dir, 0777);
  } else {
    const char *tmpdir = getenv("TMPDIR");
    pathf(dir, sizeof dir, "%s/shloc-compile-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(dir)) {
      perror("shloc compile: creating a temporary directory");
      rc = 1;
      goto done;
    }
  }
  rc = compile(&o, dir);
done:
  free(o.ffi);
  free(o.link);
  return rc;
}
