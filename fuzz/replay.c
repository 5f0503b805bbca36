/*
 * replay.c - runs a fuzz target on files, without libFuzzer: the regression cases under the tests
 * (tests/test_fuzz_replay.c) and a crash input found by scons fuzz.
 *
 *   fuzz_replay_READER FILE|DIR...   every FILE, and every regular file of every DIR
 *
 * Exits 0 when the target returned on every input (a broken contract aborts), 2 when an argument
 * cannot be read.
 */
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data = NULL;
    long n;
    if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
        !(data = malloc((size_t)n + 1)) || fread(data, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "fuzz replay: cannot read %s\n", path);
        if (f)
            fclose(f);
        free(data);
        return 2;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data, (size_t)n);
    free(data);
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The regular files of dir, in name order (so a failing run names the same input every time). */
static int run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    if (!d) {
        fprintf(stderr, "fuzz replay: cannot open %s\n", dir);
        return 2;
    }
    while ((e = readdir(d))) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_name[0] == '.' || stat(path, &st) || !S_ISREG(st.st_mode))
            continue;
        if (n == cap && !(names = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names)))
            return 2;
        names[n++] = strdup(path);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        rc = rc ? rc : run_file(names[i]);
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    int rc = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc && !rc; i++) {
        struct stat st;
        if (stat(argv[i], &st)) {
            fprintf(stderr, "fuzz replay: cannot read %s\n", argv[i]);
            rc = 2;
        } else {
            rc = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]);
        }
    }
    return rc;
}
