/* workload_build.c - a workload's layer and tensor lists as they are built (see workload_build.h). */
#include "workload_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mring_workload_free(mring_workload_t *w)
{
    free(w->layers);
    free(w->tensors);
    memset(w, 0, sizeof *w);
}

/* p, or p grown to hold more than n elements of `size` bytes (capacity 8, doubling at powers of
 * two), or NULL when memory runs out (p is then still valid). */
static void *grow(void *p, int n, size_t size)
{
    if (n > 0 && (n < 8 || (n & (n - 1))))
        return p;
    return realloc(p, (size_t)(n ? 2 * n : 8) * size);
}

int mring_workload_add_layer(mring_workload_t *w, const char *name, double macs)
{
    mring_layer_t *l = grow(w->layers, w->nlayers, sizeof *l);
    if (!l)
        return -1;
    w->layers = l;
    l += w->nlayers++;
    snprintf(l->name, sizeof l->name, "%s", name);
    l->macs = macs;
    l->first_tensor = w->ntensors;
    l->ntensors = 0;
    return 0;
}

int mring_workload_add_tensor(mring_workload_t *w, const char *name, int64_t elements)
{
    mring_tensor_t *t = w->nlayers ? grow(w->tensors, w->ntensors, sizeof *t) : NULL;
    if (!t)
        return -1;
    w->tensors = t;
    t += w->ntensors++;
    snprintf(t->name, sizeof t->name, "%s", name);
    t->elements = elements;
    t->layer = w->nlayers - 1;
    w->layers[t->layer].ntensors++;
    return 0;
}

double mring_workload_sum_macs(mring_workload_t *w)
{
    double sum = 0;
    for (int l = w->nlayers - 1; l >= 0; l--)
        w->layers[l].macs_from = sum += w->layers[l].macs;
    return sum;
}

