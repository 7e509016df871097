/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ftest_array_io_c.c -- the C side of ftest_array_io: what Fortran cannot do with files
 * (a fresh folder, a folder, the names in a folder, removing a tree). POSIX only; no
 * DART call: the test reaches the library through module `dart` alone.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdtemp: `templ` ends in XXXXXX, is NUL-terminated and receives the name. 0 or -1. */
int ftest_mkdtemp(char *templ) { return mkdtemp(templ) != NULL ? 0 : -1; }

/* mkdir with mode 0755. 0 or -1. */
int ftest_mkdir(const char *path) { return mkdir(path, 0755); }

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in `dir` other than . and .., sorted, each followed by '\n', NUL-terminated
 * in out (cap bytes). Returns their number, or -1 (no folder, or out too small). */
int ftest_listing(const char *dir, char *out, size_t cap) {
  DIR *d = opendir(dir);
  if (d == NULL) return -1;
  char *names[256];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < 256)
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) names[n++] = strdup(e->d_name);
  closedir(d);
  qsort(names, (size_t)n, sizeof names[0], by_name);
  size_t used = 0;
  int rc = n;
  for (int k = 0; k < n; ++k) {
    const size_t len = strlen(names[k]);
    if (used + len + 2 > cap) rc = -1;
    if (rc >= 0) {
      memcpy(out + used, names[k], len);
      out[used + len] = '\n';
      used += len + 1;
    }
    free(names[k]);
  }
  if (cap > 0) out[rc >= 0 ? used : 0] = '\0';
  return rc;
}

/* Removes `dir` and everything below it. 0 or -1. */
int ftest_remove_tree(const char *dir) {
  DIR *d = opendir(dir);
  if (d == NULL) return -1;
  struct dirent *e;
  char path[4096];
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
      ftest_remove_tree(path);
    else
      unlink(path);
  }
  closedir(d);
  return rmdir(dir);
}
