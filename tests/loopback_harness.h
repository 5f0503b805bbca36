/*
 * loopback_harness.h - shared by test_loopback.c and test_loopback_nan.c: runs one
 * mring_loopback_allreduce on real buffers and checks the result bit for bit.
 *
 * A test fills keep[r] (rank r's input) and expv (the expected result), then calls
 * run_check: out-of-place receive buffers start poisoned with 0xA5 bytes, so an
 * unwritten element shows; in-place calls start from the input.  It checks every
 * element of every rank against expv, that all ranks hold identical bits, and that
 * send buffers are unchanged.  Failures print the configuration (at most 30 per
 * test); end() fails the test if any case failed.  Expected values are encoded
 * here, independently of the reduction kernels in model/dtype.c.
 * Included by one test program each: every function is static.
 */
#ifndef MRING_TESTS_LOOPBACK_HARNESS_H
#define MRING_TESTS_LOOPBACK_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "bench_check.h"
#include "loopback.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXP 16
#define MAXN 1024

#define MAXES 32                           /* the largest element (longdouble_int) */
static unsigned char keep[MAXP][MAXN * MAXES]; /* the inputs, per rank (a copy, to check send buffers) */
static unsigned char expv[MAXN * MAXES];       /* the expected result */
static int by_formula; /* 1: check results with bench_wrong (bench_check.h) instead of expv */
static int nfail, ncases, nmulti;           /* failures, cases run, of which with more than 1 ring */

typedef struct spec {
    const char *topo;
    mring_algo_t algo;
    int rings; /* R >= 1: R in every dimension; -1: 2 in the first dimension only; -2: 2 in the last only */
    int64_t count, segment;
    mring_dtype_t t;
    mring_redop_t op;
    int inplace;
} spec_t;

/* ---- values: encode/decode, independent of the kernels in dtype.c ---- */

static int is_float(mring_dtype_t t) { return t != MRING_INT32 && t != MRING_INT64; }
static int sig_bits(mring_dtype_t t)
{
    return t == MRING_FLOAT32 ? 24 : t == MRING_FLOAT64 ? 53 : t == MRING_FLOAT16 ? 11 : 8;
}

/* x rounded to nearest even with the given significand bits (normal range). */
static double round_sig(double x, int bits)
{
    int e;
    if (x == 0 || x != x)
        return x;
    double m = frexp(x, &e);
    return ldexp(nearbyint(ldexp(m, bits)), e - bits);
}

/* binary16 bits of x, which must be exact in binary16 (no _Float16: not every compiler has it). */
static uint16_t f16_bits(double x)
{
    int e;
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    double m = frexp(fabs(x), &e); /* |x| = m 2^e, m in [0.5, 1) */
    if (x == 0)
        return sign;
    if (e - 1 < -14) /* subnormal: a multiple of 2^-24 */
        return (uint16_t)(sign | (uint16_t)ldexp(fabs(x), 24));
    return (uint16_t)(sign | (e - 1 + 15) << 10 | ((uint16_t)ldexp(m, 11) - 1024));
}

static double f16_value(uint16_t h)
{
    int ex = h >> 10 & 0x1f, man = h & 0x3ff;
    double v = ex == 0 ? ldexp(man, -24) : ex == 31 ? (man ? NAN : INFINITY) : ldexp(man + 1024, ex - 25);
    return h & 0x8000 ? -v : v;
}

/* Store x, which must be exact in type t. */
static void encode(mring_dtype_t t, double x, void *dst)
{
    if (is_float(t) && x == x)
        assert_true(round_sig(x, sig_bits(t)) == x && fabs(x) <= 65504);
    switch (t) {
    case MRING_FLOAT32: { float f = (float)x; memcpy(dst, &f, 4); break; }
    case MRING_FLOAT64: memcpy(dst, &x, 8); break;
    case MRING_FLOAT16: { uint16_t h = f16_bits(x); memcpy(dst, &h, 2); break; }
    case MRING_BFLOAT16: {
        float f = (float)x;
        uint32_t u;
        memcpy(&u, &f, 4);
        uint16_t h = (uint16_t)(u >> 16); /* exact: the low half is zero */
        memcpy(dst, &h, 2);
        break;
    }
    case MRING_INT32: { int32_t v = (int32_t)x; memcpy(dst, &v, 4); break; }
    default: { int64_t v = (int64_t)x; memcpy(dst, &v, 8); break; }
    }
}

static double decode(mring_dtype_t t, const void *p)
{
    union { float f; double d; uint16_t u16; int32_t i; int64_t l; uint32_t u32; } v = {0};
    memcpy(&v, p, mring_dtype_size(t));
    switch (t) {
    case MRING_FLOAT32: return v.f;
    case MRING_FLOAT64: return v.d;
    case MRING_FLOAT16: return f16_value(v.u16);
    case MRING_BFLOAT16: { uint32_t u = (uint32_t)v.u16 << 16; float f; memcpy(&f, &u, 4); return f; }
    case MRING_INT32: return v.i;
    default: return (double)v.l;
    }
}

static int is_nan(mring_dtype_t t, const void *p)
{
    uint16_t h;
    memcpy(&h, p, 2);
    if (t == MRING_FLOAT16)
        return (h & 0x7c00) == 0x7c00 && (h & 0x03ff);
    if (t == MRING_BFLOAT16)
        return (h & 0x7f80) == 0x7f80 && (h & 0x007f);
    return is_float(t) && isnan(decode(t, p));
}

static unsigned long long bits(const void *p, size_t es)
{
    unsigned long long v = 0;
    memcpy(&v, p, es);
    return v;
}

/* ---- running and checking one case ---- */

static int make_config(const spec_t *s, mring_config_t *c)
{
    mring_topo_t topo;
    char err[256];
    if (mring_topo_parse(s->topo, &topo, err, sizeof err))
        fail_msg("topology %s: %s", s->topo, err);
    if (s->rings < 0 && topo.ndims < 2)
        return -1; /* the same as rings 2 */
    mring_config_default(c, &topo);
    c->algo = s->algo;
    c->segment = s->segment;
    for (int d = 0; d < topo.ndims; d++)
        c->rings[d] = s->rings > 0 ? s->rings : d == (s->rings == -1 ? 0 : topo.ndims - 1) ? 2 : 1;
    return mring_config_check(c, err, sizeof err) ||
                   mring_call_check(c, (mring_call_t){s->count, mring_dtype_size(s->t)}, err, sizeof err)
               ? -1
               : 0;
}

static void report(const spec_t *s, const mring_config_t *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void report(const spec_t *s, const mring_config_t *c, const char *fmt, ...)
{
    char msg[512], r[64];
    va_list ap;
    if (nfail++ >= 30)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    print_error("FAIL algo=%s topo=%s rings=%s segment=%lld type=%s op=%s count=%lld %s: %s\n",
                mring_algo_name(s->algo), s->topo, mring_rings_format(c, r, sizeof r), (long long)s->segment,
                mring_dtype_name(s->t), mring_redop_name(s->op), (long long)s->count,
                s->inplace ? "in-place" : "out-of-place", msg);
}

/* Element i of got must equal expv's bits, or be a NaN (any bits) when i == nan_at. */
static int check_rank(const spec_t *s, const mring_config_t *c, int r, const unsigned char *got, int64_t nan_at)
{
    size_t es = mring_dtype_size(s->t);
    int64_t wrong;
    if (by_formula && (wrong = bench_wrong(got, s->t, s->op, c->topo.nranks, s->count))) {
        report(s, c, "rank %d: %lld wrong elements", r, (long long)wrong);
        return 1;
    }
    for (int64_t i = 0; !by_formula && i < s->count; i++) {
        const unsigned char *g = got + (size_t)i * es, *e = expv + (size_t)i * es;
        if (i == nan_at ? is_nan(s->t, g) : !memcmp(g, e, es))
            continue;
        if (i == nan_at)
            report(s, c, "rank %d element %lld: got %g (bits 0x%llx), expected a NaN", r, (long long)i,
                   decode(s->t, g), bits(g, es));
        else
            report(s, c, "rank %d element %lld: got %g (bits 0x%llx), expected %g (bits 0x%llx)", r,
                   (long long)i, decode(s->t, g), bits(g, es), decode(s->t, e), bits(e, es));
        return 1;
    }
    return 0;
}

/* Run the allreduce on the inputs in keep and check against expv. Returns 1 on failure. */
static int run_check(const spec_t *s, const mring_config_t *c, int64_t nan_at)
{
    int P = c->topo.nranks, bad = 0;
    size_t bytes = (size_t)s->count * mring_dtype_size(s->t), alloc = bytes ? bytes : 1;
    void *in[MAXP], *out[MAXP];
    char err[512];
    assert_true(P <= MAXP && s->count <= MAXN);
    for (int r = 0; r < P; r++) {
        in[r] = malloc(alloc);
        out[r] = malloc(alloc);
        assert_true(in[r] && out[r]);
        memset(out[r], 0xA5, alloc);
        memcpy(s->inplace ? out[r] : in[r], keep[r], bytes);
    }
    ncases++;
    nmulti += c->rings[0] > 1 || c->rings[c->topo.ndims - 1] > 1;
    if (mring_loopback_allreduce(c, s->count, s->t, s->op, s->inplace ? NULL : (const void *const *)in, out, err,
                                 sizeof err)) {
        report(s, c, "mring_loopback_allreduce returned -1: %s", err);
        bad = 1;
    }
    for (int r = 0; r < P && !bad; r++) {
        if (!s->inplace && memcmp(in[r], keep[r], bytes)) {
            report(s, c, "rank %d: send buffer modified", r);
            bad = 1;
        } else if (check_rank(s, c, r, out[r], nan_at)) {
            bad = 1;
        } else if (memcmp(out[r], out[0], bytes)) {
            report(s, c, "rank %d: result bits differ from rank 0's", r);
            bad = 1;
        }
    }
    for (int r = 0; r < P; r++) {
        free(in[r]);
        free(out[r]);
    }
    return bad;
}

/* ---- the order-independent inputs ----
 * Integer values, small enough that every partial result is exact in every type
 * whatever the order of reduction (bfloat16 holds integers up to 256 exactly,
 * float16 up to 2048):
 *   sum, avg   values in [-15, 15]: |partial sums| <= 15 * 16 = 240 for P <= 16
 *   prod       values in {1, 2, -1, -2}: every partial product is +-2^k
 *   min, max   values in [-100, 100]
 * The expectation is computed in int64.  avg: integer types truncate (C division);
 * float types expect the exact quotient sum / P rounded to nearest even to the
 * type's significand (24, 53, 11, 8 bits): the result must be exact after that one
 * rounding.  (The quotient is formed in double first; double rounding cannot change
 * it here: s / P for P <= 16 has a periodic binary expansion of period <= 4, which
 * never puts the double on a tie of the narrower type.) */

static int64_t input_value(mring_redop_t op, int r, int64_t i)
{
    static const int pm12[4] = {1, 2, -1, -2};
    switch (op) {
    case MRING_PROD: return pm12[(i + 3 * r) % 4];
    case MRING_MIN:
    case MRING_MAX: return (i * 37 + r * 59 + 11) % 201 - 100;
    default: return (i * 7 + r * 13 + 5) % 31 - 15;
    }
}

static double expected_value(mring_redop_t op, mring_dtype_t t, int P, int64_t i)
{
    int64_t e = input_value(op, 0, i);
    for (int r = 1; r < P; r++) {
        int64_t v = input_value(op, r, i);
        e = op == MRING_PROD ? e * v : op == MRING_MIN ? (v < e ? v : e) : op == MRING_MAX ? (v > e ? v : e) : e + v;
    }
    if (op != MRING_AVG)
        return (double)e;
    return is_float(t) ? round_sig((double)e / P, sig_bits(t)) : (double)(e / P);
}

__attribute__((unused)) static void fill_standard(const spec_t *s, int P)
{
    size_t es = mring_dtype_size(s->t);
    for (int64_t i = 0; i < s->count; i++) {
        for (int r = 0; r < P; r++)
            encode(s->t, (double)input_value(s->op, r, i), keep[r] + (size_t)i * es);
        encode(s->t, expected_value(s->op, s->t, P, i), expv + (size_t)i * es);
    }
}

/* ---- sweeps ---- */

typedef struct sweep {
    const char *const *topos;
    int ntopos;
    const int *rings;
    int nrings;
    const int64_t *segs;
    int nsegs;
    unsigned types, ops;     /* bit masks over mring_dtype_t, mring_redop_t */
    const int64_t *counts;   /* NULL: counts_for(P) */
    int ncounts;
    void (*fn)(spec_t *);    /* runs and checks one case */
} sweep_t;

/* The counts tried for P ranks: {0, 1, P-1, P, P+1, 2P+1, 37, 1000}, without repeats. */
static int counts_for(int P, int64_t *n)
{
    const int64_t all[] = {0, 1, P - 1, P, P + 1, 2 * P + 1, 37, 1000};
    int k = 0;
    for (int a = 0; a < 8; a++) {
        int dup = 0;
        for (int b = 0; b < k; b++)
            dup |= n[b] == all[a];
        if (!dup)
            n[k++] = all[a];
    }
    return k;
}

/* Every topology x type x op x rings x segment x count x in-place of w, for one algorithm.
 * Segments are tried on counts up to 64 only: the run time grows with the square of
 * the number of pieces. */
static void do_sweep(mring_algo_t algo, const sweep_t *w)
{
    int64_t counts[8];
    for (int ti = 0; ti < w->ntopos; ti++) {
        mring_topo_t topo;
        char err[256];
        assert_int_equal(mring_topo_parse(w->topos[ti], &topo, err, sizeof err), 0);
        int nc = w->counts ? w->ncounts : counts_for(topo.nranks, counts);
        for (int t = 0; t < MRING_NTYPES; t++)
            for (int op = 0; op < MRING_NOPS; op++)
                for (int k = 0; k < w->nrings * w->nsegs * nc * 2; k++) {
                    int ri = k / (w->nsegs * nc * 2), si = k / (nc * 2) % w->nsegs, ci = k / 2 % nc;
                    spec_t s = {w->topos[ti], algo, w->rings[ri], w->counts ? w->counts[ci] : counts[ci],
                                w->segs[si], (mring_dtype_t)t, (mring_redop_t)op, k % 2};
                    if ((w->types >> t & 1) && (w->ops >> op & 1) && (s.segment == 0 || s.count <= 64) &&
                        mring_op_valid(s.t, s.op))
                        w->fn(&s);
                }
    }
}

static void begin(void) { nfail = ncases = nmulti = 0; }
static void end(const char *what)
{
    print_message("%s: %d cases, %d with more than one ring\n", what, ncases, nmulti);
    if (nfail)
        fail_msg("%s: %d of %d cases failed (the first ones are listed above)", what, nfail, ncases);
    assert_true(ncases > 0);
}

static void sweep_all_algos(const char *what, const sweep_t *w)
{
    begin();
    for (int a = 0; a < mring_algo_count(); a++)
        do_sweep((mring_algo_t)a, w);
    end(what);
}

static const char *const small_topos[] = {"1", "2", "3", "4", "2x3", "4x2", "2x2x2", "3x2"};
static const int rings12[] = {1, 2};
static const int64_t seg0[] = {0};
#define BASIC_TYPES ((1u << MRING_NTYPES_BASIC) - 1) /* float32..int64 (dtype.h) */
#define BASIC_OPS ((1u << MRING_NOPS_BASIC) - 1)     /* sum..avg */
#define FLOAT_TYPES (1u << MRING_FLOAT32 | 1u << MRING_FLOAT64 | 1u << MRING_FLOAT16 | 1u << MRING_BFLOAT16)

#endif
