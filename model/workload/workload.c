/*
 * workload.c - training workload profiles (see workload.h): finding a profile by name, building its
 * layer and tensor lists, and what follows from them: compute time per iteration, when each gradient
 * is ready in the backward pass, and DDP's gradient buckets.  The layer and tensor lists are built
 * by workload_build.c, read from JSON by workload_json.c and derived for ResNets by workload_resnet.c.
 */
#include "workload.h"

#include "workload_build.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef MRING_WORKLOAD_DIR /* set by the build to the source tree's platforms/workloads */
#define MRING_WORKLOAD_DIR "platforms/workloads"
#endif

/* The workload directory: $MRING_WORKLOAD_DIR, else the compiled-in one. */
static const char *workload_dir(void)
{
    const char *d = getenv("MRING_WORKLOAD_DIR");
    return d && *d ? d : MRING_WORKLOAD_DIR;
}

/* Whether s ends with suffix. */
static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *mring_workload_list(char *buf, size_t len)
{
    DIR *d = opendir(workload_dir());
    char **names = NULL;
    size_t n = 0, cap = 0, used = 0;
    buf[0] = '\0';
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.' || !ends_with(e->d_name, ".json"))
            continue;
        if (n == cap) {
            char **more = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *names);
            if (!more)
                break;
            names = more;
        }
        if (!(names[n] = strdup(e->d_name)))
            break;
        names[n++][strlen(e->d_name) - 5] = '\0'; /* drop ".json" */
    }
    if (d)
        closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        if (used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
        free(names[i]);
    }
    free(names);
    return buf;
}

int mring_workload_load(const char *spec, mring_workload_t *w, char *err, size_t errlen)
{
    char path[4096], names[1024];
    int rc;
    memset(w, 0, sizeof *w);
    if (strchr(spec, '/') || ends_with(spec, ".json")) {
        snprintf(path, sizeof path, "%s", spec);
    } else {
        snprintf(path, sizeof path, "%s/%s.json", workload_dir(), spec);
        if (!*spec || access(path, F_OK) != 0) {
            DIR *d = opendir(workload_dir());
            if (!d) {
                snprintf(err, errlen, "unknown workload '%s': the profiles' directory %s cannot be read (%s); give a "
                         "profile's path or set MRING_WORKLOAD_DIR", spec, workload_dir(), strerror(errno));
                return 2;
            }
            closedir(d);
            mring_workload_list(names, sizeof names);
            snprintf(err, errlen, "unknown workload '%s'; expected one of %s (profiles in %s) or a profile's path",
                     spec, *names ? names : "none", workload_dir());
            return 2;
        }
    }
    rc = mring_workload_parse_file(path, w, err, errlen);
    if (rc)
        mring_workload_free(w);
    return rc;
}

double mring_workload_iter_s(const mring_workload_t *w, int batch)
{
    /* the MACs ratio is exactly 1 when the measurement is of this very variant */
    return (double)batch / w->ref_images_per_s * (w->macs_per_image / w->ref_macs_per_image);
}

double mring_workload_backward_s(const mring_workload_t *w, int batch)
{
    return w->backward_share * mring_workload_iter_s(w, batch);
}

double mring_workload_ready_frac(const mring_workload_t *w, int t)
{
    /* macs_per_image is layer 0's macs_from (the same backward-order sum), so its tensors give exactly 1 */
    return w->layers[w->tensors[t].layer].macs_from / w->macs_per_image;
}

/* Close bucket b: its ready fraction is that of its last tensor in backward order. */
static void close_bucket(const mring_workload_t *w, mring_bucket_t *b)
{
    b->ready_frac = b->n ? mring_workload_ready_frac(w, w->ntensors - b->first - b->n) : 0;
}

int mring_workload_buckets(const mring_workload_t *w, int64_t cap_bytes, size_t elsize, mring_bucket_t **out)
{
    mring_bucket_t *b = calloc((size_t)w->ntensors + 1, sizeof *b);
    int nb = 0;
    *out = b;
    if (!b)
        return -1;
    for (int i = 0; i < w->ntensors; i++) {
        mring_bucket_t *cur = &b[nb];
        if (cur->n++ == 0)
            cur->first = i;
        cur->elements += w->tensors[w->ntensors - 1 - i].elements;
        if (cap_bytes > 0 && cur->elements * (int64_t)elsize >= cap_bytes) {
            close_bucket(w, cur);
            nb++;
        }
    }
    if (nb == 0 || b[nb].n > 0) /* the open bucket, or the one empty bucket of a workload without tensors */
        close_bucket(w, &b[nb++]);
    return nb;
}
