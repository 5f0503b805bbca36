/*
 * mpi_allreduce_check.c - mring_allreduce against known results on the ranks it is launched with.
 *
 *   mpiexec -n P build/tests/mpi_allreduce_check [full|quick] [split]
 *
 * Configurations: every algorithm x every topology that factors P (ordered factorisations into
 * factors >= 2, plus "1xP" when P is 1 or prime) x rings 1..3 where mring_config_check accepts
 * them.  Each call: inputs with an exact result whatever the reduction order, the receive buffer
 * poisoned (0xA5) before an out-of-place call, guard words around both buffers.  Checked: the
 * return code, zero wrong elements, send buffer equal to a copy taken before the call, guards
 * intact, results bitwise identical across ranks (per-call hashes gathered once per config).
 * Counts 37 and the big int64 max are checked by this file's own inputs and expected values
 * (own_*), the other calls by the product's check (bench_fill/bench_wrong).
 *
 * Matrix.  "full": every configuration runs every valid type x op pair (138: mring_op_valid) at counts
 * {0, 1, P-1, P, P+1, 37}, out of place and in place, plus float32 sum and int64 max at 1000003
 * elements, both ways.  The default (~3300 calls, ~32 s at P=8, before the 108 pairs of the types
 * and ops added later) drops:
 *  - the pairs beyond the first 6 types x 5 ops (dtype.h, MRING_NTYPES_BASIC) to one call each, in
 *    the primary configuration only, counts 1, P+1 and 37 and both directions in rotation;
 *  - all types x ops except in one configuration per algorithm, the primary (most dimensions, then
 *    most rings): the others run, per count and direction, one type of each element size (2, 4, 8
 *    bytes), the type within a size and the op rotating with configuration, count and direction
 *    (the schedules depend on count and element size only; types x ops exercise the kernels);
 *  - at 1000003 elements, except in the primary: int64 max, and float32 sum in the direction
 *    (in place or out of place) the rotation does not pick.
 * "quick" (~2 s at P=3, ~20 s at P=6) also drops the 1000003-element calls of the non-primary
 * configurations (large messages take MPI's rendezvous path; a stream that loses elements only at
 * large counts was caught by the default and missed by quick).
 * The primary configurations also check the refusals (negative count: MPI_ERR_ARG, unknown type:
 * MPI_ERR_TYPE, an op not defined on the type: MPI_ERR_OP; the buffer untouched).
 * "split" sends every message of more than 4099 bytes as blocks of a derived datatype
 * (mring_ctx_set_max_message), the path of messages over INT_MAX bytes, on buffers of any machine.
 * Rank 0 prints the first failures and "mpi_allreduce_check: P=<P> <N> calls, <W> failures";
 * the exit status is 1 when W > 0.
 */
#include "bench_check.h"
#include "algo.h"
#include "libmring.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG 1000003
#define MAX_CALLS 2048
#define MAX_TOPOS 32
#define SHOW_FAILURES 8

enum { F_RC = 1, F_WRONG = 2, F_SEND = 4, F_GUARD = 8, F_HASH = 16 };

typedef struct call {
    int64_t count;
    uint8_t t, op, inplace, own;
} call_t;

typedef struct state {
    int rank, P, full, quick, split;
    long ncalls, nfail;
    void *copy; /* the send buffer before the call */
    /* the configuration in progress */
    const char *algo, *topo;
    int rings, n;
    call_t calls[MAX_CALLS];
    int32_t code[MAX_CALLS];
    uint64_t hash[MAX_CALLS];
} state_t;

/* ---- own inputs and expected values: small integers, +-1 and 2 for prod (exact in every type) ---- */

static double own_input(mring_redop_t op, int r, int64_t i)
{
    if (op == MRING_PROD)
        return (r + i) % 4 == 0 ? 2 : (r * 3 + i) % 5 == 0 ? -1 : 1;
    return (double)((r * 5 + i * 3) % 7) - 3; /* -3..3 */
}

/* exact small values only: float16 and bfloat16 encoded here, not by the product's converters */
static uint16_t own_half(double v, int bf)
{
    if (bf) {
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        return (uint16_t)(u >> 16);
    }
    int e;
    double m = frexp(fabs(v), &e); /* v = m 2^e, m in [0.5, 1) */
    uint16_t s = v < 0 ? 0x8000 : 0;
    return v == 0 ? s : (uint16_t)(s | (e + 14) << 10 | ((uint16_t)ldexp(m, 11) & 0x3ff));
}

static double own_unhalf(uint16_t h, int bf)
{
    if (bf) {
        uint32_t u = (uint32_t)h << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    int e = h >> 10 & 0x1f, m = h & 0x3ff;
    double v = e == 31 ? NAN : e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
    return h & 0x8000 ? -v : v;
}

static void own_set(void *b, mring_dtype_t t, int64_t i, double v)
{
    switch (t) {
    case MRING_FLOAT32: ((float *)b)[i] = (float)v; break;
    case MRING_FLOAT64: ((double *)b)[i] = v; break;
    case MRING_FLOAT16: ((uint16_t *)b)[i] = own_half(v, 0); break;
    case MRING_BFLOAT16: ((uint16_t *)b)[i] = own_half(v, 1); break;
    case MRING_INT32: ((int32_t *)b)[i] = (int32_t)v; break;
    default: ((int64_t *)b)[i] = (int64_t)v; break;
    }
}

static double own_get(const void *b, mring_dtype_t t, int64_t i)
{
    switch (t) {
    case MRING_FLOAT32: return ((const float *)b)[i];
    case MRING_FLOAT64: return ((const double *)b)[i];
    case MRING_FLOAT16: return own_unhalf(((const uint16_t *)b)[i], 0);
    case MRING_BFLOAT16: return own_unhalf(((const uint16_t *)b)[i], 1);
    case MRING_INT32: return ((const int32_t *)b)[i];
    default: return (double)((const int64_t *)b)[i];
    }
}

static void own_fill(void *b, mring_dtype_t t, mring_redop_t op, int r, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        own_set(b, t, i, own_input(op, r, i));
}

/* v rounded to nearest even with bits significant bits (normal range only) */
static double own_round(double v, int bits)
{
    int e;
    double m = frexp(v, &e);
    return ldexp(rint(ldexp(m, bits)), e - bits);
}

/* the exact result of element i: the fold over ranks; avg: C truncation for integers, else sum / P
 * rounded to float32 (float64: to double), then to 16 bits as dtype.h says */
static double own_want(mring_dtype_t t, mring_redop_t op, int P, int64_t i)
{
    double want = own_input(op, 0, i);
    for (int r = 1; r < P; r++) {
        double v = own_input(op, r, i);
        want = op == MRING_PROD ? want * v : op == MRING_MIN ? fmin(want, v) : op == MRING_MAX ? fmax(want, v) : want + v;
    }
    if (op != MRING_AVG)
        return want;
    if (t == MRING_INT32 || t == MRING_INT64)
        return (double)((int64_t)want / P);
    if (t == MRING_FLOAT64)
        return want / P;
    want = (double)((float)want / (float)P);
    return t == MRING_FLOAT16 ? own_round(want, 11) : t == MRING_BFLOAT16 ? own_round(want, 8) : want;
}

/* elements that differ from own_want (own_input repeats with period 140 in i) */
static int64_t own_wrong(const void *b, mring_dtype_t t, mring_redop_t op, int P, int64_t count)
{
    double want[140];
    int64_t wrong = 0;
    for (int i = 0; i < 140; i++)
        want[i] = own_want(t, op, P, i);
    for (int64_t i = 0; i < count; i++)
        wrong += own_get(b, t, i) != want[i % 140];
    return wrong;
}

/* ---- one call ---- */

/* FNV-1a over 64-bit words (bench_hash goes byte by byte: too slow for a million elements on 8 ranks) */
static uint64_t hash(const void *buf, size_t bytes)
{
    uint64_t h = 1469598103934665603ULL, w;
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        memcpy(&w, (const char *)buf + i, 8);
        h = (h ^ w) * 1099511628211ULL;
    }
    for (; i < bytes; i++)
        h = (h ^ ((const unsigned char *)buf)[i]) * 1099511628211ULL;
    return h;
}

static void one(state_t *s, mring_ctx_t *ctx, mring_dtype_t t, mring_redop_t op, int64_t count, int inplace)
{
    size_t bytes = (size_t)count * mring_dtype_size(t);
    int own = (count == 37 && t < MRING_NTYPES_BASIC && op < MRING_NOPS_BASIC) || (count == BIG && t == MRING_INT64),
        code = 0;
    guarded_t in, out;
    if (guarded_alloc(&in, bytes) || guarded_alloc(&out, bytes) || s->n == MAX_CALLS) {
        fprintf(stderr, "mpi_allreduce_check: out of memory or too many calls per configuration\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    void *src = inplace ? out.data : in.data;
    if (own)
        own_fill(src, t, op, s->rank, count);
    else
        bench_fill(src, t, op, s->rank, s->P, count);
    if (!inplace) {
        memset(out.data, 0xA5, bytes);
        memcpy(s->copy, in.data, bytes);
    }
    if (mring_allreduce(inplace ? MPI_IN_PLACE : in.data, out.data, count, t, op, ctx) != MPI_SUCCESS)
        code |= F_RC;
    if (own ? own_wrong(out.data, t, op, s->P, count) : bench_wrong(out.data, t, op, s->P, count))
        code |= F_WRONG;
    if (!inplace && memcmp(s->copy, in.data, bytes))
        code |= F_SEND;
    if (!guarded_intact(&in) || !guarded_intact(&out))
        code |= F_GUARD;
    s->calls[s->n] = (call_t){count, (uint8_t)t, (uint8_t)op, (uint8_t)inplace, (uint8_t)own};
    s->hash[s->n] = hash(out.data, bytes);
    s->code[s->n++] = code;
    guarded_free(&in);
    guarded_free(&out);
}

static void show(state_t *s, const call_t *c, int rank, int code)
{
    if (++s->nfail > SHOW_FAILURES)
        return;
    printf("FAIL algo=%s topo=%s rings=%d type=%s op=%s count=%lld inplace=%d rank=%d:%s%s%s%s%s%s\n", s->algo,
           s->topo, s->rings, mring_dtype_name(c->t), mring_redop_name(c->op), (long long)c->count, c->inplace, rank,
           code & F_RC ? " error returned" : "", code & F_WRONG ? " wrong elements" : "",
           code & F_WRONG ? (c->own ? " (own check)" : " (bench_wrong)") : "", code & F_SEND ? " send buffer changed" : "",
           code & F_GUARD ? " guard overwritten" : "", code & F_HASH ? " result bits differ from rank 0" : "");
}

/* the calls of one configuration done: gather codes and hashes, rank 0 counts and reports failures */
static void settle(state_t *s)
{
    int n = s->n, P = s->P;
    int32_t *codes = s->rank ? NULL : malloc((size_t)P * (size_t)n * sizeof *codes);
    uint64_t *hashes = s->rank ? NULL : malloc((size_t)P * (size_t)n * sizeof *hashes);
    MPI_Gather(s->code, n, MPI_INT32_T, codes, n, MPI_INT32_T, 0, MPI_COMM_WORLD);
    MPI_Gather(s->hash, n, MPI_UINT64_T, hashes, n, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    for (int i = 0; !s->rank && i < n; i++) {
        long before = s->nfail;
        for (int r = 0; r < P && s->nfail == before; r++) {
            int code = codes[(size_t)r * n + i] | (hashes[(size_t)r * n + i] != hashes[i] ? F_HASH : 0);
            if (code)
                show(s, &s->calls[i], r, code);
        }
    }
    s->ncalls += n;
    s->n = 0;
    free(codes);
    free(hashes);
}

/* ---- the matrix ---- */

/* the types and ops mring had first (dtype.h): every count in the primary configuration */
static int basic(int t, int op) { return t < MRING_NTYPES_BASIC && op < MRING_NOPS_BASIC; }

/* Arguments mring_allreduce refuses before any message: a negative count, an unknown type, an op not
 * defined on the type; each counts as a call, failed unless refused with its MPI error class. */
static void refusals(state_t *s, mring_ctx_t *ctx)
{
    float x[2] = {1, 2};
    int codes[3] = {mring_allreduce(MPI_IN_PLACE, x, -1, MRING_FLOAT32, MRING_SUM, ctx),
                    mring_allreduce(MPI_IN_PLACE, x, 2, MRING_NTYPES, MRING_SUM, ctx),
                    mring_allreduce(MPI_IN_PLACE, x, 2, MRING_FLOAT32, MRING_BAND, ctx)};
    const int want[3] = {MPI_ERR_ARG, MPI_ERR_TYPE, MPI_ERR_OP};
    for (int i = 0; i < 3; i++) {
        s->calls[s->n] = (call_t){i == 0 ? -1 : 2, i == 1 ? 0 : MRING_FLOAT32, i == 2 ? MRING_BAND : MRING_SUM, 1, 0};
        s->hash[s->n] = 0;
        s->code[s->n++] = codes[i] == want[i] && x[0] == 1 && x[1] == 2 ? 0 : F_RC;
    }
}

static void run_config(state_t *s, mring_ctx_t *ctx, int k, int primary)
{
    int64_t counts[] = {0, 1, s->P - 1, s->P, s->P + 1, 37};
    for (int j = 0; j < 6; j++)
        for (int inplace = 0; inplace < 2; inplace++)
            if (primary) {
                for (int t = 0; t < MRING_NTYPES; t++)
                    for (int op = 0; op < MRING_NOPS; op++)
                        if (mring_op_valid((mring_dtype_t)t, (mring_redop_t)op) && (s->full || basic(t, op)))
                            one(s, ctx, (mring_dtype_t)t, (mring_redop_t)op, counts[j], inplace);
            } else {
                static const mring_dtype_t by_size[3][2] = {{MRING_FLOAT16, MRING_BFLOAT16},
                                                            {MRING_FLOAT32, MRING_INT32}, {MRING_FLOAT64, MRING_INT64}};
                for (int e = 0; e < 3; e++)
                    one(s, ctx, by_size[e][(k + j + inplace) % 2], (mring_redop_t)((k * 3 + j * 2 + e + inplace) % MRING_NOPS_BASIC),
                        counts[j], inplace);
            }
    for (int t = 0, m = 0; primary && !s->full && t < MRING_NTYPES; t++) /* each other pair once */
        for (int op = 0; op < MRING_NOPS; op++)
            if (mring_op_valid((mring_dtype_t)t, (mring_redop_t)op) && !basic(t, op)) {
                static const int pick[3] = {1, 4, 5}; /* counts 1, P + 1, 37 */
                one(s, ctx, (mring_dtype_t)t, (mring_redop_t)op, counts[pick[m % 3]], m / 3 % 2);
                m++;
            }
    if (primary)
        refusals(s, ctx);
    for (int inplace = 0; inplace < 2; inplace++)
        if (primary || (!s->quick && inplace == k % 2)) {
            one(s, ctx, MRING_FLOAT32, MRING_SUM, BIG, inplace);
            if (primary)
                one(s, ctx, MRING_INT64, MRING_MAX, BIG, inplace);
        }
    settle(s);
}

/* ordered factorisations of n into factors >= 2, appended to prefix */
static int factorise(int n, const char *prefix, char topos[][64], int nt)
{
    char buf[64];
    for (int f = 2; f <= n && nt < MAX_TOPOS; f++)
        if (n % f == 0) {
            snprintf(buf, sizeof buf, "%s%s%d", prefix, *prefix ? "x" : "", f);
            if (f == n)
                snprintf(topos[nt++], 64, "%s", buf);
            else
                nt = factorise(n / f, buf, topos, nt);
        }
    return nt;
}

static int is_prime(int p)
{
    for (int d = 2; d * d <= p; d++)
        if (p % d == 0)
            return 0;
    return p > 1;
}

/* algorithm a on topology topo with r rings in every dimension; 0 if mring_config_check accepts it */
static int make_config(mring_config_t *c, int a, const char *topo, int r, char *err, size_t errlen)
{
    mring_topo_t t;
    if (mring_topo_parse(topo, &t, err, errlen))
        return -1;
    mring_config_default(c, &t);
    c->algo = (mring_algo_t)a;
    for (int d = 0; d < t.ndims; d++)
        c->rings[d] = r;
    return mring_config_check(c, err, errlen);
}

static int gcd(int a, int b) { return b ? gcd(b, a % b) : a; }

/* Algorithm a on the flat grid P with 4 rings following 2 cycles: coordinate order, and steps of the
 * smallest stride coprime with P (rings 2 and 3 visit 0, k, 2k, ...): every result checked. */

/* A context on MPI_COMM_WORLD (30 s timeout); with "split", messages above 4099 bytes go as blocks. */
static int create(const state_t *s, const mring_config_t *c, mring_ctx_t **ctx, char *err, size_t len)
{
    int rc = mring_ctx_create(MPI_COMM_WORLD, c, 30, ctx, err, len);
    if (rc == MPI_SUCCESS && s->split && (rc = mring_ctx_set_max_message(*ctx, 4099)) != MPI_SUCCESS)
        snprintf(err, len, "mring_ctx_set_max_message refused 4099");
    return rc;
}
static void run_embedded(state_t *s, int a, int k)
{
    char text[4096], topo[16], err[512];
    int stride = 2;
    mring_config_t c;
    mring_ctx_t *ctx;
    while (gcd(stride, s->P) != 1)
        stride++;
    snprintf(topo, sizeof topo, "%d", s->P);
    text[0] = '\0';
    for (int x = 0; x < s->P; x++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s%d", x ? "." : "", x);
    for (int x = 0; x < s->P; x++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s%d", x ? "." : "/", x * stride % s->P);
    mring_config_fields_t f = {.topo = topo, .algo = mring_algo_name(a), .rings = "4", .embed = text};
    s->algo = mring_algo_name(a), s->topo = topo, s->rings = 4;
    if (mring_config_parse(&f, MRING_FIELDS_FLAGS, NULL, &c, err, sizeof err) ||
        create(s, &c, &ctx, err, sizeof err) != MPI_SUCCESS) {
        if (!s->rank && ++s->nfail <= SHOW_FAILURES)
            printf("FAIL algo=%s embed=%s: %s\n", s->algo, text, err);
        return;
    }
    run_config(s, ctx, k, 1);
    mring_ctx_free(ctx);
}

/* every accepted (topology, rings) of algorithm a; 1 ring must be accepted on every topology */
static void run_algo(state_t *s, int a, char topos[][64], int nt)
{
    int k = 0, best = -1, best_ti = 0, best_r = 0, ok[MAX_TOPOS][3];
    mring_config_t c;
    char err[512];
    s->algo = mring_algo_name((mring_algo_t)a);
    for (int ti = 0; ti < nt; ti++) /* the primary: most dimensions, then most rings */
        for (int r = 1; r <= 3; r++) {
            ok[ti][r - 1] = !make_config(&c, a, topos[ti], r, err, sizeof err);
            if (ok[ti][r - 1] && c.topo.ndims * 4 + r > best)
                best = c.topo.ndims * 4 + r, best_ti = ti, best_r = r;
            if (r == 1 && !ok[ti][0] && !s->rank && ++s->nfail <= SHOW_FAILURES)
                printf("FAIL algo=%s topo=%s rings=1: mring_config_check: %s\n", s->algo, topos[ti], err);
        }
    for (int ti = 0; ti < nt; ti++)
        for (int r = 1; r <= 3; r++) {
            mring_ctx_t *ctx;
            if (!ok[ti][r - 1])
                continue;
            make_config(&c, a, topos[ti], r, err, sizeof err);
            s->topo = topos[ti], s->rings = r;
            if (create(s, &c, &ctx, err, sizeof err) != MPI_SUCCESS) {
                if (!s->rank && ++s->nfail <= SHOW_FAILURES)
                    printf("FAIL algo=%s topo=%s rings=%d: mring_ctx_create: %s\n", s->algo, s->topo, r, err);
                continue;
            }
            run_config(s, ctx, k++, s->full || (ti == best_ti && r == best_r));
            mring_ctx_free(ctx);
        }
    if (mring_algo_gen(a)->embed != MRING_EMBED_NONE && s->P >= 3)
        run_embedded(s, a, k);
}

int main(int argc, char **argv)
{
    static state_t s;
    char topos[MAX_TOPOS][64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s.P);
    for (int i = 1; i < argc; i++) {
        s.full |= !strcmp(argv[i], "full");
        s.quick |= !strcmp(argv[i], "quick");
        s.split |= !strcmp(argv[i], "split");
        if (strcmp(argv[i], "full") && strcmp(argv[i], "quick") && strcmp(argv[i], "split")) {
            if (!s.rank)
                fprintf(stderr, "mpi_allreduce_check: unknown argument '%s'; expected full, quick or split\n",
                        argv[i]);
            MPI_Finalize();
            return 2;
        }
    }
    int nt = s.P == 1 ? (snprintf(topos[0], 64, "1"), 1) : factorise(s.P, "", topos, 0);
    if ((s.P == 1 || is_prime(s.P)) && nt < MAX_TOPOS)
        snprintf(topos[nt++], 64, "1x%d", s.P);
    s.copy = malloc((size_t)BIG * 8);
    double t0 = MPI_Wtime();
    for (int a = 0; a < mring_algo_count(); a++)
        run_algo(&s, a, topos, nt);
    if (!s.rank) {
        if (s.nfail > SHOW_FAILURES)
            printf("... %ld more failures\n", s.nfail - SHOW_FAILURES);
        printf("mpi_allreduce_check: P=%d %ld calls, %ld failures\n", s.P, s.ncalls, s.nfail);
        printf("# %d topologies, %.1f s\n", nt, MPI_Wtime() - t0);
    }
    MPI_Bcast(&s.nfail, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    free(s.copy);
    MPI_Finalize();
    return s.nfail ? 1 : 0;
}
