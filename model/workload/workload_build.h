/*
 * workload_build.h - building a workload's layer and tensor lists (workload_build.c), which the
 * JSON reader (workload_json.c) and the ResNet derivation (workload_resnet.c) use, and which
 * workload.c finds profiles with.  Internal to model/workload/.
 */
#ifndef MRING_WORKLOAD_BUILD_H
#define MRING_WORKLOAD_BUILD_H

#include "workload.h"

/* Set every layer's macs_from (the MACs per image of it and every later layer, summed in backward order,
 * in one pass) and return layer 0's: the total. */
double mring_workload_sum_macs(mring_workload_t *w);

/* Append a layer (name truncated to fit) in forward order; its tensors follow. Returns 0 or -1 (memory). */
int mring_workload_add_layer(mring_workload_t *w, const char *name, double macs);

/* Append a tensor to the last layer added. Returns 0 or -1 (memory). */
int mring_workload_add_tensor(mring_workload_t *w, const char *name, int64_t elements);

/* The ResNet bottleneck network of He et al. 2016 in torchvision's v1.5 layout (stride on the 3x3
 * conv, downsample = 1x1 conv + BN on each stage's first block): stages of blocks[0..3] bottlenecks
 * of widths 64, 128, 256, 512 (x4 out), on image x image inputs, with a classes-way fc.  Appends
 * one layer per conv (conv weight + its BN weight and bias) and the fc. Returns 0 or -1 (memory). */
int mring_workload_resnet(mring_workload_t *w, const int blocks[4], int classes, int image);

/* Read the profile at path into w (zeroed by the caller): the schema of platforms/workloads/README.md.
 * Returns 0; 2 with "PATH: reason" in err; -1 when memory runs out.  (workload_json.c) */
int mring_workload_parse_file(const char *path, mring_workload_t *w, char *err, size_t errlen);

#endif
