/*
 * workload.h - training workload profiles: what a data-parallel training step asks of allreduce.
 *
 * A profile (platforms/workloads/NAME.json) gives a model's layers in forward order, each with its
 * gradient tensors (name, element count) and its forward multiply-accumulates per image, either
 * derived by code from an architecture definition (ResNet bottleneck networks, He et al. 2016,
 * torchvision's v1.5 layout) or listed explicitly; and the measured per-GPU training throughput
 * (images/s at a batch, with its source) from which compute time per iteration follows.
 *
 * Backward runs the layers in reverse order; layer l's backward takes a share of the backward time
 * proportional to its multiply-accumulates, and its gradients are ready when it ends.  Buckets are
 * filled as PyTorch DDP fills them (torch/csrc/distributed/c10d/reducer.cpp,
 * compute_bucket_assignment_by_size): tensors in backward order, a bucket closes once it holds at
 * least the cap in bytes, so a bucket may pass the cap by its last tensor (DDP's smaller first
 * bucket is not modelled).
 */
#ifndef MRING_WORKLOAD_H
#define MRING_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

typedef struct mring_tensor {
    char name[64];
    int64_t elements; /* gradient elements (= parameters) */
    int layer;        /* index into the workload's layers */
} mring_tensor_t;

typedef struct mring_layer {
    char name[64];
    double macs;      /* forward multiply-accumulates per image */
    double macs_from; /* the sum of macs from this layer to the last, summed from the last (set on load) */
    int first_tensor, ntensors; /* its tensors, tensors[first_tensor .. +ntensors) */
} mring_layer_t;

typedef struct mring_workload {
    char name[64];
    char description[256];
    mring_layer_t *layers;   /* forward order */
    int nlayers;
    mring_tensor_t *tensors; /* forward order, grouped by layer */
    int ntensors;
    int64_t parameters;      /* sum of tensor elements */
    double macs_per_image;   /* sum of layer macs */
    int default_batch;       /* per GPU */
    /* compute: measured throughput of one GPU at batch ref_batch; when the measurement was taken on a
     * variant of the architecture (another class count), ref_macs_per_image is that variant's MACs and
     * time scales by macs_per_image / ref_macs_per_image; else ref_macs_per_image == macs_per_image. */
    int ref_batch;
    double ref_images_per_s, ref_macs_per_image;
    double backward_share;   /* backward time / (forward + backward), 0 < share < 1 */
    char gpu[64];            /* the GPU the throughput was measured on */
    char source[512];        /* where the throughput and backward share come from */
} mring_workload_t;

/*
 * Load a profile: `spec` is a path (contains '/' or ends in ".json") or a name looked up as
 * DIR/NAME.json, DIR = $MRING_WORKLOAD_DIR or else the compiled-in MRING_WORKLOAD_DIR
 * (the source tree's platforms/workloads).  A profile that states published_parameters must
 * derive exactly that many parameters.  Returns 0; 2 with a one-line reason in err (unknown name,
 * unreadable or malformed file, bad value named with its key, parameter count mismatch);
 * -1 when memory runs out.  Free with mring_workload_free.
 */
int mring_workload_load(const char *spec, mring_workload_t *w, char *err, size_t errlen);
void mring_workload_free(mring_workload_t *w);

/* The names of the profiles in the workload directory, comma-separated, into buf (for messages). */
char *mring_workload_list(char *buf, size_t len);

/*
 * Compute time of one GPU for one iteration (forward + backward) at `batch` images, in seconds:
 * batch / ref_images_per_s * macs_per_image / ref_macs_per_image (throughput taken as independent
 * of batch, an assumption the caller states).  Backward time = backward_share times that.
 */
double mring_workload_iter_s(const mring_workload_t *w, int batch);
double mring_workload_backward_s(const mring_workload_t *w, int batch);

/*
 * Fraction of the backward time elapsed when tensor t's gradient is ready (its layer's backward
 * has ended): the MACs of its layer and of every later layer, over all MACs.  In (0, 1].
 */
double mring_workload_ready_frac(const mring_workload_t *w, int t);

typedef struct mring_bucket {
    int first, n;         /* tensors in backward order: backward index first .. first+n-1 */
    int64_t elements;     /* their total */
    double ready_frac;    /* ready fraction of its last tensor (see above) */
} mring_bucket_t;

/*
 * Bucket the gradients as DDP does (see the top of this file): cap_bytes per bucket (elements times
 * elsize bytes each), 0 = one bucket holding everything.  Backward index i is tensor
 * ntensors-1-i.  Returns the number of buckets (>= 1) with *out allocated (free it), or -1 when
 * memory runs out.
 */
int mring_workload_buckets(const mring_workload_t *w, int64_t cap_bytes, size_t elsize, mring_bucket_t **out);

#endif
