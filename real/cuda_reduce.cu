// cuda_reduce.cu - reduction kernels and memory helpers of the real executor (see cuda_reduce.h).
#include "cuda_reduce.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

// The orders of model/dtype.h's enums (mring_dtype_t, mring_redop_t).
enum { F32, F64, F16, BF16, I32, I64, I8, U8, I16, U16, U32, U64, BOOL, C64, C128, LDBL,
       FLOAT_INT, DOUBLE_INT, LONG_INT, INT_INT, SHORT_INT, LDBL_INT, FLOAT_FLOAT, DOUBLE_DOUBLE, NTYPES };
enum { SUM, PROD, MIN, MAX, AVG, LAND, LOR, LXOR, BAND, BOR, BXOR, MAXLOC, MINLOC };

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

// sum and prod whose result does not depend on the operands' order when both are NaN: the one first in
// byte order, quieted, as on the host (model/core/reduce.c pick_nan).
template <typename C> __device__ C pick_nan(C x, C y, C r)
{
    if (r == r || x == x || y == y)
        return r;
    const unsigned char *a = (const unsigned char *)&x, *b = (const unsigned char *)&y;
    int order = 0;
    for (unsigned i = 0; i < sizeof(C) && order == 0; i++)
        order = (int)a[i] - (int)b[i];
    C p = order > 0 ? x : y;
    return p + p;
}

template <typename C> __device__ C apply(C x, C y, int op)
{
    switch (op) {
    case PROD: return pick_nan<C>(x, y, (C)(x * y));
    case MIN: return fmin_nan(x, y);
    case MAX: return fmax_nan(x, y);
    default: return pick_nan<C>(x, y, (C)(x + y));
    }
}

// Integers (and bool, logical ops only): compare in C for min/max, wrapping (unsigned) arithmetic for
// sum/prod, 0 or 1 from the logical ops, as on the host (model/core/reduce.c).
template <typename C> __device__ C apply_int(C x, C y, int op)
{
    typedef unsigned long long U;
    switch (op) {
    case PROD: return (C)((U)x * (U)y);
    case MIN: return x < y ? x : y;
    case MAX: return x > y ? x : y;
    case LAND: return (C)(x && y);
    case LOR: return (C)(x || y);
    case LXOR: return (C)(!x != !y);
    case BAND: return (C)((U)x & (U)y);
    case BOR: return (C)((U)x | (U)y);
    case BXOR: return (C)((U)x ^ (U)y);
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

// Complex as (re, im) pairs of R: sum, or the product with each real product rounded on its own (no
// fused multiply-add), as the host computes it for finite values.
template <typename R> __device__ R mul_rn(R a, R b);
template <> __device__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
template <> __device__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }

template <typename R> __global__ void complex_kernel(R *dst, const R *src, size_t n, int op, int src_first)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const R *xp = src_first ? src + 2 * i : dst + 2 * i, *yp = src_first ? dst + 2 * i : src + 2 * i;
        R a = xp[0], b = xp[1], c = yp[0], d = yp[1], re, im;
        if (op == PROD) {
            re = mul_rn(a, c) - mul_rn(b, d);
            im = mul_rn(a, d) + mul_rn(b, c);
        } else {
            re = a + c;
            im = b + d;
        }
        dst[2 * i] = re;
        dst[2 * i + 1] = im;
    }
}

// MAXLOC/MINLOC on {value; index} structs, MPI's rule as on the host; the result's padding is zeroed.
template <typename V, typename I> struct pair_t {
    V v;
    I i;
};

template <typename P> __global__ void loc_kernel(P *dst, const P *src, size_t n, int op, int src_first)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x) {
        P x = src_first ? src[k] : dst[k], y = src_first ? dst[k] : src[k];
        bool mx = op == MAXLOC, xwins = mx ? x.v > y.v : x.v < y.v, ywins = mx ? y.v > x.v : y.v < x.v;
        decltype(x.v) v = ywins ? y.v : x.v;
        decltype(x.i) i = xwins ? x.i : ywins ? y.i : x.i < y.i ? x.i : y.i;
        unsigned char b[sizeof(P)]; // assembled in bytes: a member store leaves the padding unspecified
        memset(b, 0, sizeof b);
        memcpy(b + offsetof(P, v), &v, sizeof v);
        memcpy(b + offsetof(P, i), &i, sizeof i);
        memcpy(&dst[k], b, sizeof b);
    }
}

template <typename T, typename C> __global__ void scale_kernel(T *buf, size_t n, C by)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        buf[i] = (T)((C)buf[i] / by);
}

static unsigned blocks(size_t n) { return (unsigned)(n / 256 + 1 < 4096 ? n / 256 + 1 : 4096); }

extern "C" int mring_cuda_supports(int dtype) { return dtype >= 0 && dtype < NTYPES && dtype != LDBL && dtype != LDBL_INT; }

#define REAL(T, C) reduce_kernel<T, C, false><<<blocks(n), 256>>>((T *)dst, (const T *)src, n, op, src_first)
#define INTK(T) reduce_kernel<T, T, true><<<blocks(n), 256>>>((T *)dst, (const T *)src, n, op, src_first)
#define LOC(V, I) loc_kernel<<<blocks(n), 256>>>((pair_t<V, I> *)dst, (const pair_t<V, I> *)src, n, op, src_first)

extern "C" int mring_cuda_reduce(void *dst, const void *src, size_t n, int dtype, int op, int src_first)
{
    if (!mring_cuda_supports(dtype))
        return (int)cudaErrorInvalidValue;
    if (n == 0)
        return 0;
    switch (dtype) {
    case F32: REAL(float, float); break;
    case F64: REAL(double, double); break;
    case F16: REAL(__half, float); break;
    case BF16: REAL(__nv_bfloat16, float); break;
    case I32: INTK(int32_t); break;
    case I64: INTK(int64_t); break;
    case I8: INTK(int8_t); break;
    case U8:
    case BOOL: INTK(uint8_t); break;
    case I16: INTK(int16_t); break;
    case U16: INTK(uint16_t); break;
    case U32: INTK(uint32_t); break;
    case U64: INTK(uint64_t); break;
    case C64: complex_kernel<<<blocks(n), 256>>>((float *)dst, (const float *)src, n, op, src_first); break;
    case C128: complex_kernel<<<blocks(n), 256>>>((double *)dst, (const double *)src, n, op, src_first); break;
    case FLOAT_INT: LOC(float, int); break;
    case DOUBLE_INT: LOC(double, int); break;
    case LONG_INT: LOC(long, int); break;
    case INT_INT: LOC(int, int); break;
    case SHORT_INT: LOC(short, int); break;
    case FLOAT_FLOAT: LOC(float, float); break;
    default: LOC(double, double); break;
    }
    cudaError_t e = cudaGetLastError();
    return e != cudaSuccess ? (int)e : (int)cudaDeviceSynchronize();
}

#define SCALE(T, C, BY) scale_kernel<T, C><<<blocks(m), 256>>>((T *)buf, m, (C)(BY))

extern "C" int mring_cuda_scale_avg(void *buf, size_t n, int dtype, int nranks)
{
    size_t m = dtype == C64 || dtype == C128 ? 2 * n : n; // complex: both parts, as reals
    if (!mring_cuda_supports(dtype))
        return (int)cudaErrorInvalidValue;
    if (n == 0)
        return 0;
    switch (dtype) {
    case F32:
    case C64: SCALE(float, float, nranks); break;
    case F64:
    case C128: SCALE(double, double, nranks); break;
    case F16: SCALE(__half, float, nranks); break;
    case BF16: SCALE(__nv_bfloat16, float, nranks); break;
    case I32: SCALE(int32_t, int32_t, nranks); break;
    case I8: SCALE(int8_t, int, nranks); break;
    case U8: SCALE(uint8_t, unsigned, nranks); break;
    case I16: SCALE(int16_t, int, nranks); break;
    case U16: SCALE(uint16_t, unsigned, nranks); break;
    case U32: SCALE(uint32_t, uint32_t, nranks); break;
    case U64: SCALE(uint64_t, uint64_t, nranks); break;
    default: SCALE(int64_t, int64_t, nranks); break;
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
