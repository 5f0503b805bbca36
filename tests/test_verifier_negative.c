/*
 * test_verifier_negative.c - the verifier can fail: hand-made schedules of 2-4
 * ranks, first correct ones (which pass), then small mutations of them, each
 * rejected with a message naming the broken property.
 *
 * MRING_TEST_FILTER / MRING_TEST_SKIP=<pattern> run / skip tests by name (cmocka
 * filters), e.g. to run one test at a time under the sanitizers, which abort the
 * whole program on the first error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "symbolic.h"
#include "verify.h"

#define N 4 /* elements per rank */
enum { I_COPY, I_RECV, I_SEND, I_RED }; /* op indices of pair() */

typedef struct world {
    mring_rank_sched_t s[4];
    int P;
} world_t;

static char last_msg[512]; /* message of the latest check() */

static mring_op_t mk(int kind, int peer, int buf, int64_t off, int src_buf, int64_t src_off, int64_t count,
                     unsigned flags, uint32_t tag)
{
    mring_op_t o;
    memset(&o, 0, sizeof o);
    o.kind = (uint8_t)kind;
    o.peer = peer;
    o.buf = (uint8_t)buf;
    o.off = off;
    o.src_buf = (uint8_t)src_buf;
    o.src_off = src_off;
    o.count = count;
    o.flags = (uint8_t)flags;
    o.tag = tag;
    o.dim = -1;
    return o;
}

#define SEND(peer, buf, off, n, tag) mk(MRING_OP_SEND, peer, buf, off, 0, 0, n, 0, tag)
#define RECV(peer, buf, off, n, tag) mk(MRING_OP_RECV, peer, buf, off, 0, 0, n, 0, tag)
#define RED(buf, off, sbuf, soff, n, fl) mk(MRING_OP_REDUCE, 0, buf, off, sbuf, soff, n, fl, 0)
#define CPY(buf, off, sbuf, soff, n) mk(MRING_OP_COPY, 0, buf, off, sbuf, soff, n, 0, 0)
enum { OUT = MRING_BUF_OUT, SCR = MRING_BUF_SCRATCH, IN = MRING_BUF_IN, SRC1ST = MRING_REDUCE_SRC_FIRST };

static void w_init(world_t *w, int P, int nstreams)
{
    memset(w, 0, sizeof *w);
    w->P = P;
    for (int r = 0; r < P; r++)
        assert_int_equal(mring_rank_sched_init(&w->s[r], r, nstreams), 0);
}

static void w_free(world_t *w)
{
    for (int r = 0; r < w->P; r++)
        mring_rank_sched_free(&w->s[r]);
}

static void put(world_t *w, int r, int s, mring_op_t op) { assert_int_equal(mring_emit(&w->s[r], s, op), 0); }
static mring_op_t *at(world_t *w, int r, int s, int64_t i) { return &w->s[r].streams[s].ops[i]; }

/* Verify w over count elements and free it. expect NULL: must pass; else must fail with a
 * message containing one of the '|'-separated phrases of expect. */
static void check(world_t *w, int64_t count, const char *expect)
{
    mring_topo_t t = mring_topo_flat(w->P);
    mring_verify_result_t res;
    int rc = mring_verify_schedules(w->s, &t, count, 4, &res), found = 0;
    w_free(w);
    snprintf(last_msg, sizeof last_msg, "%s", res.msg);
    if (!expect) {
        if (rc != 0 || !res.ok)
            fail_msg("expected a pass, got rc %d: %s", rc, res.msg);
        return;
    }
    char alts[256], *save = NULL;
    snprintf(alts, sizeof alts, "%s", expect);
    for (char *p = strtok_r(alts, "|", &save); p; p = strtok_r(NULL, "|", &save))
        found |= strstr(res.msg, p) != NULL;
    if (rc != 1 || res.ok || !found)
        fail_msg("expected a failure with \"%s\", got rc %d ok %d: %s", expect, rc, res.ok, res.msg);
}

/* Rank r (of 2) on stream s: allreduce of OUT[off, off+n) through SCRATCH[soff, soff+n). */
static void pair(world_t *w, int r, int s, int64_t off, int64_t n, int64_t soff)
{
    int peer = 1 - r;
    uint32_t tag = mring_tag(s, 0);
    put(w, r, s, CPY(OUT, off, IN, off, n));
    put(w, r, s, RECV(peer, SCR, soff, n, tag));
    put(w, r, s, SEND(peer, OUT, off, n, tag));
    put(w, r, s, RED(OUT, off, SCR, soff, n, r == 1 ? SRC1ST : 0)); /* both: x0 op x1 */
}

static void two_rank_n(world_t *w, int64_t n)
{
    w_init(w, 2, 1);
    pair(w, 0, 0, 0, n, 0);
    pair(w, 1, 0, 0, n, 0);
}

static void two_rank(world_t *w) { two_rank_n(w, N); }

/* Two streams per rank: stream 0 on OUT[0,2) via SCRATCH[0,2), stream 1 on OUT[off1, off1+2) via SCRATCH[soff1..). */
static void two_streams(world_t *w, int64_t off1, int64_t soff1)
{
    w_init(w, 2, 2);
    for (int r = 0; r < 2; r++) {
        pair(w, r, 0, 0, 2, 0);
        pair(w, r, 1, off1, 2, soff1);
    }
}

/* Three ranks exchange inputs (peer q's into SCRATCH[q*N..]), then reduce as (x0+x1)+x2;
 * rank 2 computes x0+(x1+x2) instead when rank2_right. */
static void three_rank(world_t *w, int rank2_right)
{
    w_init(w, 3, 1);
    for (int r = 0; r < 3; r++) {
        put(w, r, 0, CPY(OUT, 0, IN, 0, N));
        for (int q = 0; q < 3; q++)
            if (q != r)
                put(w, r, 0, RECV(q, SCR, q * N, N, mring_tag(0, 0)));
        for (int q = 0; q < 3; q++)
            if (q != r)
                put(w, r, 0, SEND(q, OUT, 0, N, mring_tag(0, 0)));
    }
    put(w, 0, 0, RED(OUT, 0, SCR, 1 * N, N, 0));
    put(w, 0, 0, RED(OUT, 0, SCR, 2 * N, N, 0));
    put(w, 1, 0, RED(OUT, 0, SCR, 0, N, SRC1ST));
    put(w, 1, 0, RED(OUT, 0, SCR, 2 * N, N, 0));
    if (rank2_right) {
        put(w, 2, 0, RED(OUT, 0, SCR, 1 * N, N, SRC1ST)); /* x1+x2 */
        put(w, 2, 0, RED(OUT, 0, SCR, 0, N, SRC1ST));     /* x0+(x1+x2) */
    } else {
        put(w, 2, 0, RED(SCR, 0, SCR, 1 * N, N, 0)); /* x0+x1 */
        put(w, 2, 0, RED(OUT, 0, SCR, 0, N, SRC1ST)); /* (x0+x1)+x2 */
    }
}

/* ---- correct schedules pass ---- */

static void test_correct_schedules_pass(void **state)
{
    world_t w;
    (void)state;
    two_rank(&w);
    check(&w, N, NULL);
    two_streams(&w, 2, 2);
    check(&w, N, NULL);
    three_rank(&w, 0);
    check(&w, N, NULL);
}

/* ---- messaging ---- */

static void test_unmatched_message(void **state)
{
    world_t w;
    (void)state;
    two_rank(&w);
    put(&w, 0, 0, SEND(1, OUT, 0, N, mring_tag(0, 1))); /* nobody receives it */
    check(&w, N, "deadlock|unmatched");
    two_rank(&w);
    put(&w, 1, 0, RECV(0, SCR, 0, N, mring_tag(0, 1))); /* nobody sends it */
    check(&w, N, "deadlock|unmatched");
}

static void test_size_mismatch(void **state)
{
    world_t w;
    (void)state;
    two_rank(&w);
    at(&w, 1, 0, I_RECV)->count = N - 1;
    check(&w, N, "size mismatch: rank 0 sends 4 elements");
}

static void test_deadlock(void **state)
{
    world_t w;
    (void)state;
    two_rank(&w);
    for (int r = 0; r < 2; r++) { /* REDUCE (waits on the RECV) before the SEND (reads what REDUCE writes) */
        mring_op_t t = *at(&w, r, 0, I_SEND);
        *at(&w, r, 0, I_SEND) = *at(&w, r, 0, I_RED);
        *at(&w, r, 0, I_RED) = t;
    }
    check(&w, N, "deadlock");
}

/* ---- reduction content ---- */

static void test_input_counted_twice(void **state)
{
    world_t w;
    (void)state;
    two_rank(&w);
    put(&w, 0, 0, *at(&w, 0, 0, I_RED)); /* reduce the received data again */
    check(&w, N, "counts rank 1's input twice");
}

static void test_input_missing(void **state)
{
    world_t w;
    (void)state;
    two_rank(&w);
    w.s[1].streams[0].nops--; /* rank 1 drops its REDUCE */
    check(&w, N, "rank 1 element 0 of OUT reduces 1 of 2 ranks");
}

static void test_position_mismatch(void **state)
{
    world_t w;
    (void)state;
    two_rank(&w);
    at(&w, 0, 0, I_RED)->off = 1; /* peer's [0, N-1) into OUT[1, N) */
    at(&w, 0, 0, I_RED)->count = N - 1;
    check(&w, N, "combines element position 1 with position 0");
    two_rank(&w);
    put(&w, 0, 0, CPY(OUT, 0, OUT, 1, 1)); /* a complete result, at the wrong place */
    check(&w, N, "rank 0 element 0 of OUT holds the data of element 1");
}

static void test_different_order(void **state)
{
    world_t w;
    (void)state;
    three_rank(&w, 1);
    check(&w, N, "rank 2 element 0 is reduced in a different order than on rank 0");
}

static void test_never_written(void **state)
{
    world_t w;
    (void)state;
    two_rank_n(&w, N - 1); /* the last element is never touched */
    check(&w, N, "out of place: rank 0 element 3 of OUT is never written");
    two_rank(&w);
    at(&w, 0, 0, I_COPY)->count = N - 1; /* prologue misses OUT[N-1], which is then sent and reduced */
    check(&w, N, "reduces an element that was never written");
}

static void test_in_place_only_failure(void **state)
{
    world_t w;
    (void)state;
    /* rank 0 sends IN after reducing into OUT: x0 out of place, x0+x1 in place */
    w_init(&w, 2, 1);
    put(&w, 0, 0, CPY(OUT, 0, IN, 0, N));
    put(&w, 0, 0, RECV(1, SCR, 0, N, 0));
    put(&w, 0, 0, RED(OUT, 0, SCR, 0, N, 0));
    put(&w, 0, 0, SEND(1, IN, 0, N, 0));
    put(&w, 1, 0, CPY(OUT, 0, IN, 0, N));
    put(&w, 1, 0, SEND(0, OUT, 0, N, 0));
    put(&w, 1, 0, RECV(0, SCR, 0, N, 0));
    put(&w, 1, 0, RED(OUT, 0, SCR, 0, N, SRC1ST));
    check(&w, N, "counts rank 1's input twice");
    assert_non_null(strstr(last_msg, "in place: rank 1"));
    assert_null(strstr(last_msg, "out of place"));
}

/* ---- static checks ---- */

static void test_streams_race(void **state)
{
    world_t w;
    (void)state;
    two_streams(&w, 1, 2); /* OUT[0,2) and OUT[1,3) */
    check(&w, N, "rank 0: streams 0 and 1 race on OUT[1..2)");
    two_streams(&w, 2, 1); /* SCRATCH[0,2) and SCRATCH[1,3) */
    check(&w, N, "rank 0: streams 0 and 1 race on SCRATCH[1..2)");
}

static void test_writes_in(void **state)
{
    world_t w;
    (void)state;
    for (int i = I_COPY; i <= I_RED; i++) {
        if (i == I_SEND)
            continue;
        two_rank(&w);
        at(&w, 0, 0, i)->buf = IN;
        check(&w, N, "writes the send buffer IN");
    }
}

static void test_out_of_bounds(void **state)
{
    world_t w;
    (void)state;
    two_rank(&w);
    at(&w, 0, 0, I_SEND)->off = 1; /* OUT[1, N+1) */
    check(&w, N, "is outside OUT of 4 elements");
    two_rank(&w);
    at(&w, 1, 0, I_RED)->src_off = -1;
    check(&w, N, "is outside SCRATCH of 4 elements");
    two_rank(&w);
    w.s[0].scratch_count = N - 1; /* too small for its own ops */
    check(&w, N, "is outside SCRATCH of 3 elements");
    two_rank(&w);
    check(&w, N + 1, "never written"); /* the count does not match the schedules: OUT[4] untouched */
}

static void test_invalid_peer(void **state)
{
    static const int peers[] = {0, 2, -1, 1000};
    world_t w;
    char want[64];
    (void)state;
    for (size_t i = 0; i < sizeof peers / sizeof *peers; i++) {
        two_rank(&w);
        at(&w, 0, 0, i % 2 ? I_RECV : I_SEND)->peer = peers[i];
        snprintf(want, sizeof want, "has peer %d; expected another rank of 0..1", peers[i]);
        check(&w, N, want);
    }
}

static void test_malformed_ops(void **state)
{
    world_t w;
    (void)state;
    two_rank(&w);
    at(&w, 0, 0, I_RED)->count = 0;
    check(&w, N, "has count 0; expected > 0");
    two_rank(&w);
    at(&w, 1, 0, I_COPY)->count = -2;
    check(&w, N, "has count -2");
    two_rank(&w);
    at(&w, 0, 0, I_RED)->kind = 9;
    check(&w, N, "op of unknown kind 9");
    two_rank(&w);
    at(&w, 0, 0, I_RED)->src_buf = 7;
    check(&w, N, "is outside ? of 0 elements");
    two_rank(&w);
    w.s[1].rank = 0;
    check(&w, N, "schedule 1 is labelled rank 0");
}

/*
 * Verifier bug: ranges are checked with off + count > size, which overflows for a huge
 * offset; a COPY into OUT[INT64_MAX, +1) passes the static checks and the symbolic
 * write is silently dropped, so the schedule is accepted (and UBSan aborts on the
 * signed overflow in mring_op_format/check_range).
 */
static void test_huge_offset_is_outside(void **state)
{
    world_t w;
    (void)state;
    two_rank(&w);
    put(&w, 0, 0, CPY(OUT, INT64_MAX, IN, 0, 1));
    check(&w, N, "outside");
}

/* ---- generated schedules pass; the same mutation breaks them ---- */

static void config(mring_config_t *c, const char *topo, mring_algo_t algo, int rings)
{
    mring_topo_t t;
    char err[256];
    assert_int_equal(mring_topo_parse(topo, &t, err, sizeof err), 0);
    mring_config_default(c, &t);
    c->algo = algo;
    for (int i = 0; i < t.ndims; i++)
        c->rings[i] = rings;
    if (mring_config_check(c, err, sizeof err))
        fail_msg("config %s: %s", topo, err);
}

static void test_generated_pass(void **state)
{
    static const struct { const char *topo; mring_algo_t algo; int rings; } cases[] = {
        {"2x2", MRING_ALGO_MULTIRING, 1}, {"2x3", MRING_ALGO_MULTIRING, 2}, {"3", MRING_ALGO_RING, 1},
        {"4", MRING_ALGO_RD, 1},          {"4", MRING_ALGO_RABENSEIFNER, 1}, {"2x2", MRING_ALGO_HIER, 1},
    };
    mring_config_t c;
    mring_verify_result_t res;
    world_t w;
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        config(&c, cases[i].topo, cases[i].algo, cases[i].rings);
        if (mring_verify(&c, (mring_call_t){10, 4}, &res) != 0 || !res.ok)
            fail_msg("%s on %s: %s", mring_algo_name(c.algo), cases[i].topo, res.msg);
    }
    config(&c, "2x2", MRING_ALGO_MULTIRING, 1); /* rank 1 drops its last op */
    w_init(&w, 0, 1);
    for (w.P = 0; w.P < 4; w.P++)
        assert_int_equal(mring_generate(&c, (mring_call_t){10, 4}, w.P, &w.s[w.P]), 0);
    w.s[1].streams[w.s[1].nstreams - 1].nops--;
    check(&w, 10, "deadlock");
}

/* The rank sets behind "counts rank r's input twice": sums of runs of ranks, joined when adjacent,
 * and the overlap found anywhere inside a run, with the lowest shared rank named. */
static void test_rank_sets(void **state)
{
    char why[160];
    mring_exprs_t *e = mring_exprs_new(16);
    uint32_t lo = 0, mid = 0, hi = 0, x;
    (void)state;
    assert_non_null(e);
    for (int r = 0; r < 4; r++) /* ranks 0..3, one run */
        lo = r ? mring_exprs_combine(e, lo, mring_sym_leaf(r), why, sizeof why) : mring_sym_leaf(r);
    for (int r = 8; r < 12; r++) /* ranks 8..11 */
        hi = r > 8 ? mring_exprs_combine(e, hi, mring_sym_leaf(r), why, sizeof why) : mring_sym_leaf(r);
    mid = mring_exprs_combine(e, mring_sym_leaf(5), mring_sym_leaf(6), why, sizeof why); /* 5..6 */
    x = mring_exprs_combine(e, lo, hi, why, sizeof why); /* {0..3, 8..11} */
    assert_true(lo && hi && mid && x);
    assert_int_equal(mring_exprs_nranks(e, x), 8);
    assert_int_equal(mring_exprs_combine(e, x, mring_sym_leaf(10), why, sizeof why), 0); /* inside the 2nd run */
    assert_string_equal(why, "counts rank 10's input twice in one element");
    assert_int_equal(mring_exprs_combine(e, mring_sym_leaf(3), x, why, sizeof why), 0); /* the 1st run's end */
    assert_string_equal(why, "counts rank 3's input twice in one element");
    uint32_t gap = mring_exprs_combine(e, x, mid, why, sizeof why); /* {0..3, 5..6, 8..11}: 4 and 7 free */
    assert_int_equal(mring_exprs_nranks(e, gap), 10);
    uint32_t four = mring_exprs_combine(e, gap, mring_sym_leaf(4), why, sizeof why); /* 0..6 joined */
    uint32_t all = mring_exprs_combine(e, four, mring_sym_leaf(7), why, sizeof why); /* 0..11 */
    assert_int_equal(mring_exprs_nranks(e, all), 12);
    assert_int_equal(mring_exprs_combine(e, all, mring_sym_leaf(7), why, sizeof why), 0);
    assert_string_equal(why, "counts rank 7's input twice in one element");
    assert_int_equal(mring_exprs_combine(e, mring_sym_leaf(12), all, why, sizeof why) != 0, 1);
    /* hash-consing: the same pair is the same id */
    assert_int_equal(mring_exprs_combine(e, x, mid, why, sizeof why), gap);
    mring_exprs_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_correct_schedules_pass), cmocka_unit_test(test_unmatched_message),
        cmocka_unit_test(test_size_mismatch),          cmocka_unit_test(test_deadlock),
        cmocka_unit_test(test_input_counted_twice),    cmocka_unit_test(test_input_missing),
        cmocka_unit_test(test_position_mismatch),      cmocka_unit_test(test_different_order),
        cmocka_unit_test(test_never_written),          cmocka_unit_test(test_in_place_only_failure),
        cmocka_unit_test(test_streams_race),           cmocka_unit_test(test_writes_in),
        cmocka_unit_test(test_out_of_bounds),          cmocka_unit_test(test_invalid_peer),
        cmocka_unit_test(test_malformed_ops),          cmocka_unit_test(test_generated_pass),
        cmocka_unit_test(test_rank_sets),
        cmocka_unit_test(test_huge_offset_is_outside), /* last: aborts under UBSan (see above) */
    };
    if (getenv("MRING_TEST_FILTER"))
        cmocka_set_test_filter(getenv("MRING_TEST_FILTER"));
    if (getenv("MRING_TEST_SKIP"))
        cmocka_set_skip_filter(getenv("MRING_TEST_SKIP"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
