#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

bool cli_input_open(const char *path, cli_input *in) {
  memset(in, 0, sizeof *in);
  shloc_status st = shloc_source_read(path, &in->src);
  if (st) {
    fprintf(stderr, "%s: error: %s\n", path, shloc_status_message(st));
    shloc_status_free(st);
    return false;
  }
  in->text = shloc_source_text(in->src);
  in->len = shloc_source_len(in->src);
  return true;
}

void cli_input_close(cli_input *in) {
  shloc_source_free(in->src);
  memset(in, 0, sizeof *in);
}

bool cli_output_open(const char *path, cli_output *o) {
  memset(o, 0, sizeof *o);
  o->path = path;
  if (strcmp(path, "-") == 0) {
    o->f = stdout;
    return true;
  }
  /* Atomic replacement only makes sense for regular files: devices and pipes
   * (-o /dev/null, -o /dev/stdout) are written in place. */
  struct stat sb;
  if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
    o->f = fopen(path, "wb");
  } else {
    size_t n = strlen(path) + 32;
    o->tmp = malloc(n);
    if (o->tmp) {
      snprintf(o->tmp, n, "%s.tmp.%ld", path, (long)getpid());
      o->f = fopen(o->tmp, "wb");
    }
  }
  if (!o->f) {
    fprintf(stderr, "%s: error: cannot write: %s\n", path, strerror(errno));
    free(o->tmp);
    o->tmp = NULL;
    return false;
  }
  return true;
}

static void output_fail(cli_output *o) {
  if (!o->failed) o->err = errno;
  o->failed = true;
}

bool cli_output_write(void *user, const char *data, size_t len) {
  cli_output *o = user;
  if (!o->failed && fwrite(data, 1, len, o->f) != len) output_fail(o);
  return !o->failed;
}

bool cli_output_close(cli_output *o, bool commit) {
  if (o->f == stdout) {
    if (fflush(stdout) != 0) output_fail(o);
  } else if (o->f && fclose(o->f) != 0) {
    output_fail(o);
  }
  if (o->tmp) {
    if (!o->failed && commit && rename(o->tmp, o->path) != 0) output_fail(o);
    if (o->failed || !commit) remove(o->tmp);
    free(o->tmp);
  }
  bool ok = !o->failed;
  if (!ok) fprintf(stderr, "%s: error: cannot write: %s\n", o->path, strerror(o->err));
  memset(o, 0, sizeof *o);
  return ok;
}

bool cli_write_file(const char *path, const char *data, size_t len) {
  if (strcmp(path, "-") == 0) return fwrite(data, 1, len, stdout) == len;
  /* Atomic replacement only makes sense for regular files: devices and pipes
   * (-o /dev/null, -o /dev/stdout) are written in place. */
  struct stat sb;
  if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, len, f) == len;
    if (f && fclose(f) != 0) ok = false;
    if (!ok) fprintf(stderr, "%s: error: cannot write: %s\n", path, strerror(errno));
    return ok;
  }
  size_t n = strlen(path) + 32;
  char *tmp = malloc(n);
  if (!tmp) return false;
  snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  bool ok = f && fwrite(data, 1, len, f) == len;
  if (f && fclose(f) != 0) ok = false;
  if (ok && rename(tmp, path) != 0) ok = false;
  if (!ok) {
    fprintf(stderr, "%s: error: cannot write: %s\n", path, strerror(errno));
    remove(tmp);
  }
  free(tmp);
  return ok;
}

void cli_report(shloc_status st, const char *source, size_t len) {
  char *msg = shloc_status_render(st, source, len);
  fprintf(stderr, "%s\n", msg ? msg : shloc_status_message(st));
  free(msg);
  shloc_status_free(st);
}

size_t cli_split(const char *text, size_t len, bool split, cli_chunk **out) {
  size_t n = 0, cap = 4;
  cli_chunk *v = malloc(cap * sizeof *v);
  if (!v) return 0;
  const char *start = text, *p = text, *end = text + len;
  int line = 1, start_line = 1;
  /* A portable artifact (MLIR bytecode) is one module: its bytes are never split. */
  if (len >= 4 && memcmp(text, "ML\xEFR", 4) == 0) split = false;
  while (split && p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *le = nl ? nl : end;
    const char *q = p;
    while (q < le && (*q == ' ' || *q == '\t')) q++;
    if ((size_t)(le - q) >= 8 && strncmp(q, "// -----", 8) == 0) {
      if (n == cap) {
        cli_chunk *nv = realloc(v, cap * 2 * sizeof *v);
        if (!nv) break;
        v = nv;
        cap *= 2;
      }
      v[n++] = (cli_chunk){start, (size_t)(p - start), start_line};
      start = nl ? nl + 1 : end;
      start_line = line + 1;
    }
    if (!nl) break;
    p = nl + 1;
    line++;
  }
  if (n == cap) {
    cli_chunk *nv = realloc(v, (cap + 1) * sizeof *v);
    if (nv) v = nv;
    else return n;
  }
  v[n++] = (cli_chunk){start, (size_t)(end - start), start_line};
  *out = v;
  return n;
}

static void paths_push(cli_paths *l, const char *p) {
  if (l->n == l->cap) {
    size_t ncap = l->cap ? l->cap * 2 : 64;
    char **nv = realloc(l->v, ncap * sizeof *nv);
    if (!nv) return;
    l->v = nv;
    l->cap = ncap;
  }
  char *d = strdup(p);
  if (d) l->v[l->n++] = d;
}

void cli_paths_add(cli_paths *l, const char *path) {
  struct stat sb;
  if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
    paths_push(l, path);
    return;
  }
  DIR *d = opendir(path);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char full[4096];
    snprintf(full, sizeof full, "%s/%s", path, e->d_name);
    size_t n = strlen(e->d_name);
    if (stat(full, &sb) == 0 && S_ISDIR(sb.st_mode)) cli_paths_add(l, full);
    else if (n > 5 && strcmp(e->d_name + n - 5, ".mlir") == 0) paths_push(l, full);
  }
  closedir(d);
}

static int cmp_path(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void cli_paths_sort(cli_paths *l) {
  if (l->n) qsort(l->v, l->n, sizeof *l->v, cmp_path);
}

void cli_paths_free(cli_paths *l) {
  for (size_t i = 0; i < l->n; i++) free(l->v[i]);
  free(l->v);
  l->v = NULL;
  l->n = l->cap = 0;
}
