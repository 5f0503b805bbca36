/*
 * fuzz_workload.c - the training-workload reader (mring_workload_load: platforms/workloads/NAME.json,
 * read by `mring workload` and `mring scaling`).
 *
 * Contract: a refused profile gets one line; an accepted one has layers and tensors, parameters equal
 * to the sum of its tensors, a positive finite compute time, ready fractions in (0, 1] that do not
 * decrease in backward order, and buckets (DDP's rule) that cover every tensor once in backward order
 * with element totals summing to the parameters.
 */
#include "fuzz.h"

#include "workload.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

static void check_buckets(const mring_workload_t *w, int64_t cap)
{
    mring_bucket_t *b = NULL;
    int n = mring_workload_buckets(w, cap, 4, &b), next = 0;
    int64_t sum = 0;
    if (n < 1)
        fuzz_fail("mring_workload_buckets returned %d for cap %lld", n, (long long)cap);
    for (int i = 0; i < n; i++) {
        if (b[i].first != next || b[i].n < 1)
            fuzz_fail("bucket %d of cap %lld starts at tensor %d with %d tensors; expected %d and >= 1", i,
                      (long long)cap, b[i].first, b[i].n, next);
        next += b[i].n;
        sum += b[i].elements;
    }
    if (next != w->ntensors || sum != w->parameters)
        fuzz_fail("buckets of cap %lld hold %d tensors and %lld elements; the profile has %d and %lld", (long long)cap,
                  next, (long long)sum, w->ntensors, (long long)w->parameters);
    free(b);
}

static void check_profile(const mring_workload_t *w)
{
    int64_t sum = 0;
    if (w->nlayers < 1 || w->ntensors < 1)
        fuzz_fail("a profile of %d layers and %d tensors was accepted", w->nlayers, w->ntensors);
    for (int t = 0; t < w->ntensors; t++)
        sum += w->tensors[t].elements;
    if (sum != w->parameters)
        fuzz_fail("parameters %lld but the tensors sum to %lld", (long long)w->parameters, (long long)sum);
    double it = mring_workload_iter_s(w, w->default_batch);
    if (!(isfinite(it) && it > 0))
        fuzz_fail("an iteration at batch %d takes %g s", w->default_batch, it);
    double prev = 0;
    for (int t = w->ntensors - 1; t >= 0; t--) { /* backward order: the last tensor is ready first */
        double f = mring_workload_ready_frac(w, t);
        if (!(f > 0 && f <= 1) || f < prev)
            fuzz_fail("tensor %d is ready at fraction %g (the one after it at %g)", t, f, prev);
        prev = f;
    }
    check_buckets(w, 0);
    check_buckets(w, 25 << 20);
    check_buckets(w, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64], err[512] = "";
    mring_workload_t w;
    int fd = fuzz_file(data, size, path, sizeof path), rc = mring_workload_load(path, &w, err, sizeof err);
    close(fd);
    if (rc == -1)
        fuzz_fail("mring_workload_load ran out of memory");
    if (rc) {
        fuzz_one_line("mring_workload_load", err);
        return 0;
    }
    check_profile(&w);
    mring_workload_free(&w);
    return 0;
}
