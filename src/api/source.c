/* Public input files for parsing (include/shloc/shloc.h, "source files"). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/arena.h"
#include "support/status.h"

struct shloc_source {
  const char *text;
  size_t len;
  void *map; /* pages to unmap, or NULL */
  size_t map_len;
  char *owned; /* malloc'd buffer, or NULL */
};

static shl_status io_error(const char *path, const char *what) {
  return st_error(SHLOC_ERR_IO, &(shl_srcpos){path, 0, 0}, NULL, "%s", what);
}

/* Reads f to the end into malloc'd memory: one allocation of the size of a
 * regular file, doubling for pipes. */
static shl_status read_stream(const char *path, FILE *f, char **out, size_t *len) {
  struct stat sb;
  size_t cap = 1 << 16, n = 0;
  if (f != stdin && fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) cap = (size_t)sb.st_size + 1;
  char *buf = malloc(cap);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n < cap) break;
    char *nb = realloc(buf, cap * 2);
    if (!nb) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = nb;
    cap *= 2;
  }
  if (!buf || ferror(f)) {
    free(buf);
    return io_error(path, "cannot read file");
  }
  *out = buf;
  *len = n;
  return NULL;
}

/* A large regular file, read into fresh pages; NULL in *s->map when the file
 * is not one (or no pages were to be had): the caller reads it the plain way. */
static shl_status read_pages(const char *path, int fd, shloc_source *s) {
  struct stat sb;
  bool big = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size >= (1 << 20) &&
             (uint64_t)sb.st_size < SIZE_MAX / 2;
  char *buf = big ? arena_map_pages((size_t)sb.st_size, &s->map_len) : NULL;
  if (!buf) return NULL;
  size_t n = (size_t)sb.st_size, got = 0;
  while (got < n) {
    ssize_t r = read(fd, buf + got, n - got < ((size_t)1 << 30) ? n - got : (size_t)1 << 30);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  if (got != n) {
    arena_unmap_pages(buf, s->map_len);
    s->map_len = 0;
    return io_error(path, "cannot read file");
  }
  s->text = s->map = buf;
  s->len = n;
  return NULL;
}

shloc_status shloc_source_read(const char *path, shloc_source **out) {
  *out = NULL;
  shloc_source *s = calloc(1, sizeof *s);
  if (!s) return st_oom();
  bool std_in = strcmp(path, "-") == 0;
  shl_status st = NULL;
  if (!std_in) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
      char msg[256];
      snprintf(msg, sizeof msg, "cannot open: %s", strerror(errno));
      free(s);
      return io_error(path, msg);
    }
    st = read_pages(path, fd, s);
    close(fd);
  }
  if (!st && !s->map) {
    FILE *f = std_in ? stdin : fopen(path, "rb");
    if (!f) {
      char msg[256];
      snprintf(msg, sizeof msg, "cannot open: %s", strerror(errno));
      st = io_error(path, msg);
    } else {
      st = read_stream(path, f, &s->owned, &s->len);
      if (f != stdin) fclose(f);
      s->text = s->owned;
    }
  }
  if (st) {
    free(s);
    return st;
  }
  *out = s;
  return NULL;
}

const char *shloc_source_text(const shloc_source *s) { return s->text; }
size_t shloc_source_len(const shloc_source *s) { return s->len; }

void shloc_source_free(shloc_source *s) {
  if (!s) return;
  arena_unmap_pages(s->map, s->map_len);
  free(s->owned);
  free(s);
}
