/*
 * cuda_reduce.h - CUDA side of the real executor (real/cuda_reduce.cu, built when nvcc exists).
 *
 * Reduction kernels for every type and op of model/dtype.h but long double (CUDA has none) with the
 * same semantics (16-bit floats through float, NaN-propagating min/max with -0 < +0, src-first order,
 * MPI's MAXLOC/MINLOC rule), and device-pointer tests.
 * All calls are synchronous on the default stream.  Return 0, or a CUDA error code.
 */
#ifndef MRING_CUDA_REDUCE_H
#define MRING_CUDA_REDUCE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if p points to device memory (cudaMemoryTypeDevice), 0 for host or unregistered memory. */
int mring_cuda_is_device(const void *p);
/* 1 if dtype (mring_dtype_t) has a CUDA kernel: every type but longdouble and longdouble_int. */
int mring_cuda_supports(int dtype);
/* dst[i] = dst[i] op src[i] (src op dst with src_first) on the device; dtype/op as mring_dtype_t/mring_redop_t. */
int mring_cuda_reduce(void *dst, const void *src, size_t count, int dtype, int op, int src_first);
/* buf[i] /= nranks on the device (avg). */
int mring_cuda_scale_avg(void *buf, size_t count, int dtype, int nranks);
/* cudaMemcpy in either direction (kind chosen by the runtime, cudaMemcpyDefault). */
int mring_cuda_copy(void *dst, const void *src, size_t bytes);
/* Pinned host memory (cudaMallocHost) and its release; device memory (cudaMalloc) and its release. */
void *mring_cuda_host_alloc(size_t bytes);
void mring_cuda_host_free(void *p);
void *mring_cuda_dev_alloc(size_t bytes);
void mring_cuda_dev_free(void *p);
/* Start an asynchronous copy (any direction) on mring's copy stream; returns an event to poll, or NULL. */
void *mring_cuda_copy_async(void *dst, const void *src, size_t bytes);
/* 1 when the copy behind event ev has finished, 0 while it runs, -1 on error. */
int mring_cuda_event_done(void *ev);
void mring_cuda_event_free(void *ev);

/* Number of CUDA devices (0 when there is none or no driver). */
int mring_cuda_devices(void);

#ifdef __cplusplus
}
#endif

#endif
