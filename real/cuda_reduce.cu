// cuda_reduce.cu - reduction kernels and memory helpers of the real executor (see cuda_reduce.h).
#include "cuda_reduce.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

// The orders of model/dtype.h's enums (mring_dtype_t, mring_redop_t).
enum { F32, F64, F16, BF16, I32, I64 };
enum { SUM, PROD, MIN, MAX, AVG };

template <typename T> __device__ T fmin_nan(T a, T b)
{
    if (a != a) return a;
    if (b != b) return b;
    if (a == b) return signbit((double)a) ? a : b;
    return a < b ? a : b;
}
template <typename T> __device__ T fmax_nan(T a, T b)
{
    if (a != a) return a;
    if (b != b) return b;
    if (a == b) return signbit((double)a) ? b : a;
    return a > b ? a : b;
}

template <typename C> __device__ C apply(C x, C y, int op)
{
    switch (op) {
    case PROD: return x * y;
    case MIN: return fmin_nan(x, y);
    case MAX: return fmax_nan(x, y);
    default: return x + y;
    }
}

// Integers: signed compare for min/max, wrapping (unsigned) arithmetic for sum/prod, as on the host.
template <typename C> __device__ C apply_int(C x, C y, int op)
{
    typedef unsigned long long U;
    switch (op) {
    case PROD: return (C)((U)x * (U)y);
    case MIN: return x < y ? x : y;
    case MAX: return x > y ? x : y;
    default: return (C)((U)x + (U)y);
    }
}

// T = storage type, C = compute type; load/store convert (16-bit floats through float).
template <typename T, typename C, bool INT>
__global__ void reduce_kernel(T *dst, const T *src, size_t n, int op, int src_first)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        C a = (C)dst[i], b = (C)src[i], x = src_first ? b : a, y = src_first ? a : b;
        dst[i] = (T)(INT ? apply_int(x, y, op) : apply(x, y, op));
    }
}

template <typename T, typename C> __global__ void scale_kernel(T *buf, size_t n, C by)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        buf[i] = (T)((C)buf[i] / by);
}

static unsigned blocks(size_t n) { return (unsigned)(n / 256 + 1 < 4096 ? n / 256 + 1 : 4096); }

extern "C" int mring_cuda_reduce(void *dst, const void *src, size_t n, int dtype, int op, int src_first)
{
    if (n == 0)
        return 0;
    switch (dtype) {
    case F32: reduce_kernel<float, float, false><<<blocks(n), 256>>>((float *)dst, (const float *)src, n, op, src_first); break;
    case F64: reduce_kernel<double, double, false><<<blocks(n), 256>>>((double *)dst, (const double *)src, n, op, src_first); break;
    case F16: reduce_kernel<__half, float, false><<<blocks(n), 256>>>((__half *)dst, (const __half *)src, n, op, src_first); break;
    case BF16: reduce_kernel<__nv_bfloat16, float, false><<<blocks(n), 256>>>((__nv_bfloat16 *)dst, (const __nv_bfloat16 *)src, n, op, src_first); break;
    case I32: reduce_kernel<int32_t, int32_t, true><<<blocks(n), 256>>>((int32_t *)dst, (const int32_t *)src, n, op, src_first); break;
    default: reduce_kernel<int64_t, int64_t, true><<<blocks(n), 256>>>((int64_t *)dst, (const int64_t *)src, n, op, src_first); break;
    }
    cudaError_t e = cudaGetLastError();
    return e != cudaSuccess ? (int)e : (int)cudaDeviceSynchronize();
}

extern "C" int mring_cuda_scale_avg(void *buf, size_t n, int dtype, int nranks)
{
    if (n == 0)
        return 0;
    switch (dtype) {
    case F32: scale_kernel<float, float><<<blocks(n), 256>>>((float *)buf, n, (float)nranks); break;
    case F64: scale_kernel<double, double><<<blocks(n), 256>>>((double *)buf, n, (double)nranks); break;
    case F16: scale_kernel<__half, float><<<blocks(n), 256>>>((__half *)buf, n, (float)nranks); break;
    case BF16: scale_kernel<__nv_bfloat16, float><<<blocks(n), 256>>>((__nv_bfloat16 *)buf, n, (float)nranks); break;
    case I32: scale_kernel<int32_t, int32_t><<<blocks(n), 256>>>((int32_t *)buf, n, nranks); break;
    default: scale_kernel<int64_t, int64_t><<<blocks(n), 256>>>((int64_t *)buf, n, (int64_t)nranks); break;
    }
    cudaError_t e = cudaGetLastError();
    return e != cudaSuccess ? (int)e : (int)cudaDeviceSynchronize();
}

extern "C" int mring_cuda_is_device(const void *p)
{
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError(); // clear the error of an unregistered host pointer
        return 0;
    }
    return a.type == cudaMemoryTypeDevice;
}

extern "C" int mring_cuda_copy(void *dst, const void *src, size_t bytes)
{
    return bytes ? (int)cudaMemcpy(dst, src, bytes, cudaMemcpyDefault) : 0;
}

extern "C" void *mring_cuda_host_alloc(size_t bytes)
{
    void *p = NULL;
    return cudaMallocHost(&p, bytes ? bytes : 1) == cudaSuccess ? p : NULL;
}

extern "C" void mring_cuda_host_free(void *p) { if (p) cudaFreeHost(p); }

extern "C" void *mring_cuda_dev_alloc(size_t bytes)
{
    void *p = NULL;
    return cudaMalloc(&p, bytes ? bytes : 1) == cudaSuccess ? p : NULL;
}

extern "C" void mring_cuda_dev_free(void *p) { if (p) cudaFree(p); }

extern "C" int mring_cuda_devices(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

// Asynchronous copies for staging: one non-blocking stream, an event per copy.
static cudaStream_t copy_stream;

extern "C" void *mring_cuda_copy_async(void *dst, const void *src, size_t bytes)
{
    cudaEvent_t ev;
    if (!copy_stream && cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking) != cudaSuccess)
        return NULL;
    if (cudaEventCreateWithFlags(&ev, cudaEventDisableTiming) != cudaSuccess)
        return NULL;
    if ((bytes && cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, copy_stream) != cudaSuccess) ||
        cudaEventRecord(ev, copy_stream) != cudaSuccess) {
        cudaEventDestroy(ev);
        return NULL;
    }
    return (void *)ev;
}

extern "C" int mring_cuda_event_done(void *ev)
{
    cudaError_t e = cudaEventQuery((cudaEvent_t)ev);
    if (e == cudaErrorNotReady)
        return 0;
    return e == cudaSuccess ? 1 : -1;
}

extern "C" void mring_cuda_event_free(void *ev)
{
    if (ev)
        cudaEventDestroy((cudaEvent_t)ev);
}
