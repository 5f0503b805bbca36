/*
 * test_interp.c - the schedule interpreter (interp.h) against a mock transport.
 *
 * The mock records every post (kind, stream, op index and pointer) in order.  SEND
 * and RECV (and REDUCE when async_reduce is set) return a request that stays
 * incomplete until the test completes it; REDUCE/COPY otherwise complete at once
 * (req = NULL).  Checked: in-order issue, holding back exactly the ops that conflict
 * with an in-flight op of the stream (schedule.h), independent streams, IDLE/PROGRESS/
 * DONE/ERROR, in-place prologue skipping, run's timeout with describe, wait_any.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <time.h>

#include "interp.h"

#define MAXP 64
enum { PENDING = 1, DONE, RELEASED };

typedef struct {
    const mring_rank_sched_t *rs;
    struct rec { int kind, stream; int64_t op; const mring_op_t *ptr; } rec[MAXP]; /* posts: op index, pointer */
    int n;                 /* posts so far */
    int state[MAXP];       /* request of post i; its address is the handle */
    int ntest[MAXP];       /* test calls on post i's request */
    int auto_after[MAXP];  /* > 0: post i's request completes by itself on that test call */
    int async_reduce, fail_kind, fail_test, fail_wait;
    int bad;               /* handles tested or waited on that are not pending */
    int nwait, wait_n;     /* wait_any calls; n of the last one */
    int busy_on_reduce;    /* a REDUCE holds the rank busy (busy()) until the test clears busy */
    int busy;
} mock_t;

/* A test fixture: the mock, the schedule it is fed, the interpreter. */
typedef struct { mock_t m; mring_rank_sched_t rs; mring_transport_t tp; mring_interp_t it; } fix_t;

static int post(mock_t *m, int kind, int s, const mring_op_t *op, void **req)
{
    int i = m->n, async = kind <= MRING_OP_RECV || (kind == MRING_OP_REDUCE && m->async_reduce);
    assert_true(i < MAXP);
    assert_int_equal(op->kind, kind);
    assert_true(s >= 0 && s < m->rs->nstreams);
    m->rec[i] = (struct rec){kind, s, op - m->rs->streams[s].ops, op};
    m->n++;
    if (kind == m->fail_kind)
        return -1;
    m->state[i] = async ? PENDING : RELEASED;
    *req = async ? &m->state[i] : NULL;
    m->busy |= kind == MRING_OP_REDUCE && m->busy_on_reduce;
    return 0;
}
static int m_busy(void *c) { return ((mock_t *)c)->busy; }
static int m_isend(void *c, int s, const mring_op_t *op, void **r) { return post(c, MRING_OP_SEND, s, op, r); }
static int m_irecv(void *c, int s, const mring_op_t *op, void **r) { return post(c, MRING_OP_RECV, s, op, r); }
static int m_reduce(void *c, int s, const mring_op_t *op, void **r) { return post(c, MRING_OP_REDUCE, s, op, r); }
static int m_copy(void *c, int s, const mring_op_t *op, void **r) { return post(c, MRING_OP_COPY, s, op, r); }

/* Post index of a request handle, or -1 (and counted as bad) if it is not a live one. */
static int handle(mock_t *m, void *req)
{
    long i = (int *)req - m->state;
    int live = i >= 0 && i < m->n && m->state[i] != RELEASED;
    m->bad += !live;
    return live ? (int)i : -1;
}

static int m_test(void *ctx, void *req, int *done)
{
    mock_t *m = ctx;
    int i = handle(m, req);
    if (i < 0 || m->fail_test)
        return -1;
    if (m->auto_after[i] > 0 && ++m->ntest[i] >= m->auto_after[i])
        m->state[i] = DONE;
    *done = m->state[i] == DONE;
    if (*done)
        m->state[i] = RELEASED; /* the back end releases a completed request */
    return 0;
}

/* Every handle must be live; completes the first one (the oldest of the lowest stream). */
static int m_wait_any(void *ctx, void **reqs, int n)
{
    mock_t *m = ctx;
    m->nwait++;
    m->wait_n = n;
    for (int k = 0; k < n; k++)
        handle(m, reqs[k]);
    if (m->fail_wait)
        return -1;
    if (n > 0)
        *(int *)reqs[0] = DONE;
    return 0;
}

static void fix_init(fix_t *f, int rank, int nstreams)
{
    memset(f, 0, sizeof *f);
    assert_int_equal(mring_rank_sched_init(&f->rs, rank, nstreams), 0);
    f->m.rs = &f->rs;
    f->m.fail_kind = -1;
    f->tp = (mring_transport_t){&f->m, m_isend, m_irecv, m_reduce, m_copy, m_test, NULL, NULL};
}

#define FIX(f, rank, nstreams) fix_t f; fix_init(&f, rank, nstreams)
static void fix_start(fix_t *f, int ip) { assert_int_equal(mring_interp_init(&f->it, &f->rs, &f->tp, ip), 0); }

static void fix_end(fix_t *f)
{
    assert_int_equal(f->m.bad, 0);
    mring_interp_free(&f->it);
    mring_rank_sched_free(&f->rs);
}

static void emit(fix_t *f, int s, int kind, int buf, int64_t off, int src_buf, int64_t src_off, int64_t count,
                 int peer)
{
    mring_op_t op = {.kind = (uint8_t)kind, .buf = (uint8_t)buf, .src_buf = (uint8_t)src_buf, .peer = peer,
                     .tag = mring_tag(s, (uint32_t)f->rs.streams[s].nops), .off = off, .src_off = src_off,
                     .count = count};
    assert_int_equal(mring_emit(&f->rs, s, op), 0);
}
#define SEND(f, s, b, o, n, p) emit(f, s, MRING_OP_SEND, b, o, 0, 0, n, p)
#define RECV(f, s, b, o, n, p) emit(f, s, MRING_OP_RECV, b, o, 0, 0, n, p)
#define RED(f, s, b, o, sb, so, n) emit(f, s, MRING_OP_REDUCE, b, o, sb, so, n, -1)
#define COPY(f, s, b, o, sb, so, n) emit(f, s, MRING_OP_COPY, b, o, sb, so, n, -1)
enum { O = MRING_BUF_OUT, S = MRING_BUF_SCRATCH, I = MRING_BUF_IN };

/* The posts so far are exactly (stream, op) pairs exp[0..n-1], in order, with matching kinds and pointers. */
static void expect_posts(const fix_t *f, const int (*exp)[2], int n)
{
    assert_int_equal(f->m.n, n);
    for (int i = 0; i < n; i++) {
        assert_int_equal(f->m.rec[i].stream, exp[i][0]);
        assert_int_equal(f->m.rec[i].op, exp[i][1]);
        assert_ptr_equal(f->m.rec[i].ptr, &f->rs.streams[exp[i][0]].ops[exp[i][1]]); /* post() checked the kind */
    }
}
#define EXPECT(f, ...)                                                                                          \
    expect_posts(f, (const int[][2]){__VA_ARGS__}, (int)(sizeof((const int[][2]){__VA_ARGS__}) / sizeof(int[2])))

/* Mark the request of stream s's op k complete (it must have been posted and be pending). */
static void complete(fix_t *f, int s, int64_t k)
{
    for (int i = 0; i < f->m.n; i++)
        if (f->m.rec[i].stream == s && f->m.rec[i].op == k) {
            assert_int_equal(f->m.state[i], PENDING);
            f->m.state[i] = DONE;
            return;
        }
    fail_msg("stream %d op %lld was not posted", s, (long long)k);
}

#define PROGRESS(f, want) assert_int_equal(mring_interp_progress(&(f)->it), MRING_INTERP_##want)
/* Complete stream s's op k, then progress expecting want. */
#define FINISH(f, s, k, want) (complete(f, s, k), PROGRESS(f, want))

/* A REDUCE reading a RECV's scratch waits for it, and the later disjoint SEND waits behind it. */
static void test_reduce_waits_for_recv(void **state)
{
    FIX(f, 0, 1);
    RECV(&f, 0, S, 0, 4, 1);
    SEND(&f, 0, O, 4, 4, 1);
    RED(&f, 0, O, 0, S, 0, 4);
    SEND(&f, 0, O, 8, 4, 2);
    fix_start(&f, 0);
    PROGRESS(&f, PROGRESS);
    EXPECT(&f, {0, 0}, {0, 1});
    PROGRESS(&f, IDLE);
    FINISH(&f, 0, 1, PROGRESS); /* the SEND completing does not unblock the REDUCE */
    EXPECT(&f, {0, 0}, {0, 1});
    PROGRESS(&f, IDLE);
    FINISH(&f, 0, 0, PROGRESS);
    EXPECT(&f, {0, 0}, {0, 1}, {0, 2}, {0, 3});
    FINISH(&f, 0, 3, DONE);
    fix_end(&f);
}

/* A back end that holds the rank busy (busy()) in a REDUCE: nothing is issued or reaped meanwhile, and
 * once it is free the next progress goes on issuing before it reaps, as a blocking call returns into
 * the issue loop (the SimGrid back end's semantics, sim_stream.cpp). */
static void test_busy_issues_before_reaping(void **state)
{
    FIX(f, 0, 1);
    f.m.busy_on_reduce = 1;
    f.tp.busy = m_busy;
    SEND(&f, 0, O, 4, 4, 1);
    RECV(&f, 0, S, 0, 4, 1);
    RED(&f, 0, O, 0, S, 0, 4);
    SEND(&f, 0, O, 8, 4, 2);
    fix_start(&f, 0);
    PROGRESS(&f, PROGRESS);
    EXPECT(&f, {0, 0}, {0, 1});
    FINISH(&f, 0, 1, PROGRESS); /* the REDUCE is issued and the rank is busy */
    EXPECT(&f, {0, 0}, {0, 1}, {0, 2});
    complete(&f, 0, 0);         /* the first SEND completes while the rank is busy */
    PROGRESS(&f, IDLE);         /* busy: nothing issued, nothing reaped */
    EXPECT(&f, {0, 0}, {0, 1}, {0, 2});
    assert_int_equal(f.m.state[0], DONE);
    f.m.busy = 0;
    PROGRESS(&f, PROGRESS); /* free: the last SEND goes out before the completed one is reaped */
    EXPECT(&f, {0, 0}, {0, 1}, {0, 2}, {0, 3});
    assert_int_equal(f.m.state[0], DONE);
    PROGRESS(&f, PROGRESS); /* now it is reaped */
    assert_int_equal(f.m.state[0], RELEASED);
    FINISH(&f, 0, 3, DONE);
    fix_end(&f);
}

/* A SEND of the range a REDUCE writes waits for it when REDUCE is async; not when it is synchronous. */
static void test_send_waits_for_async_reduce(void **state)
{
    for (int async = 0; async <= 1; async++) {
        FIX(f, 0, 1);
        f.m.async_reduce = async;
        RECV(&f, 0, S, 0, 4, 1);
        RED(&f, 0, O, 0, S, 0, 4);
        SEND(&f, 0, O, 0, 4, 1);
        RECV(&f, 0, S, 4, 4, 1);
        fix_start(&f, 0);
        PROGRESS(&f, PROGRESS);
        EXPECT(&f, {0, 0});
        FINISH(&f, 0, 0, PROGRESS);
        if (async) {
            EXPECT(&f, {0, 0}, {0, 1});
            PROGRESS(&f, IDLE);
            FINISH(&f, 0, 1, PROGRESS);
        }
        EXPECT(&f, {0, 0}, {0, 1}, {0, 2}, {0, 3});
        complete(&f, 0, 3);
        FINISH(&f, 0, 2, DONE);
        fix_end(&f);
    }
}

/* Each pair (a, b) in one stream: b is held back while a is in flight iff they conflict (mring_ops_conflict);
 * otherwise both are posted at once and complete in any order. */
static void test_hazard_pairs(void **state)
{
    static const struct { int ka, ba, oa, kb, bb, ob, waits; } c[] = {
        {MRING_OP_RECV, S, 0, MRING_OP_RECV, S, 2, 1}, /* WAW */
        {MRING_OP_RECV, S, 0, MRING_OP_RECV, S, 4, 0}, /* adjacent ranges do not overlap */
        {MRING_OP_SEND, O, 0, MRING_OP_RECV, O, 3, 1}, /* WAR */
        {MRING_OP_RECV, O, 0, MRING_OP_SEND, O, 3, 1}, /* RAW */
        {MRING_OP_SEND, O, 0, MRING_OP_SEND, O, 0, 0}, /* RAR */
        {MRING_OP_SEND, I, 0, MRING_OP_RECV, O, 0, 1}, /* IN may alias OUT */
        {MRING_OP_RECV, S, 0, MRING_OP_RECV, O, 0, 0}, /* other buffer */
        {MRING_OP_SEND, O, 0, MRING_OP_RECV, S, 0, 0}, /* SEND then RECV of disjoint ranges */
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        FIX(f, 0, 1);
        emit(&f, 0, c[i].ka, c[i].ba, c[i].oa, 0, 0, 4, 1);
        emit(&f, 0, c[i].kb, c[i].bb, c[i].ob, 0, 0, 4, 1);
        assert_int_equal(mring_ops_conflict(&f.rs.streams[0].ops[0], &f.rs.streams[0].ops[1]), c[i].waits);
        fix_start(&f, 0);
        PROGRESS(&f, PROGRESS);
        assert_int_equal(f.m.n, c[i].waits ? 1 : 2);
        PROGRESS(&f, IDLE);
        if (c[i].waits) {
            FINISH(&f, 0, 0, PROGRESS);
            EXPECT(&f, {0, 0}, {0, 1});
            FINISH(&f, 0, 1, DONE);
        } else { /* completion in any order */
            FINISH(&f, 0, 1, PROGRESS);
            PROGRESS(&f, IDLE);
            FINISH(&f, 0, 0, DONE);
        }
        fix_end(&f);
    }
}

/* A blocked stream does not hold back another. */
static void test_streams_independent(void **state)
{
    FIX(f, 2, 2);
    RECV(&f, 0, S, 0, 4, 1);
    RED(&f, 0, O, 0, S, 0, 4);
    RECV(&f, 1, S, 4, 4, 3);
    RED(&f, 1, O, 4, S, 4, 4);
    SEND(&f, 1, O, 4, 4, 3);
    fix_start(&f, 0);
    PROGRESS(&f, PROGRESS);
    EXPECT(&f, {0, 0}, {1, 0});
    FINISH(&f, 1, 0, PROGRESS);
    EXPECT(&f, {0, 0}, {1, 0}, {1, 1}, {1, 2});
    FINISH(&f, 1, 2, PROGRESS);
    PROGRESS(&f, IDLE); /* stream 1 done, stream 0 still waits for its RECV */
    FINISH(&f, 0, 0, DONE);
    EXPECT(&f, {0, 0}, {1, 0}, {1, 1}, {1, 2}, {0, 1});
    fix_end(&f);
}

/* Empty schedule: DONE at once. A failing post or test: ERROR, and it stays ERROR. */
static void test_done_and_errors(void **state)
{
    FIX(f, 0, 2);
    fix_start(&f, 0);
    PROGRESS(&f, DONE);
    assert_int_equal(mring_interp_run(&f.it, 0.05), 0);
    fix_end(&f);
    for (int kind = 0; kind < 4; kind++) {
        fix_init(&f, 0, 1);
        f.m.fail_kind = kind;
        emit(&f, 0, kind == MRING_OP_RECV ? MRING_OP_SEND : MRING_OP_RECV, S, 8, 0, 0, 4, 1);
        emit(&f, 0, kind, O, 0, S, 4, 4, 1); /* disjoint from the first op */
        fix_start(&f, 0);
        PROGRESS(&f, ERROR);
        PROGRESS(&f, ERROR);
        assert_int_equal(f.m.n, 2); /* nothing posted after the failure */
        assert_int_equal(mring_interp_run(&f.it, 0.05), MRING_INTERP_ERROR);
        fix_end(&f);
    }
    fix_init(&f, 0, 1);
    RECV(&f, 0, S, 0, 4, 1);
    fix_start(&f, 0);
    PROGRESS(&f, PROGRESS);
    f.m.fail_test = 1;
    PROGRESS(&f, ERROR);
    f.m.fail_test = 0;
    PROGRESS(&f, ERROR);
    fix_end(&f);
}

/* In place, COPY IN->OUT at the same offset is skipped without the transport; other copies are not. */
static void test_inplace_copy(void **state)
{
    for (int inplace = 0; inplace <= 1; inplace++) {
        FIX(f, 0, 1);
        COPY(&f, 0, O, 0, I, 0, 8);
        COPY(&f, 0, O, 8, I, 4, 4);
        COPY(&f, 0, S, 0, I, 0, 8);
        COPY(&f, 0, O, 16, S, 16, 4);
        fix_start(&f, inplace);
        PROGRESS(&f, DONE);
        if (inplace)
            EXPECT(&f, {0, 1}, {0, 2}, {0, 3});
        else
            EXPECT(&f, {0, 0}, {0, 1}, {0, 2}, {0, 3});
        fix_end(&f);
    }
}

/* needle occurs in [from, to) (to == NULL: to the end) */
static int within(const char *from, const char *to, const char *needle)
{
    const char *p = strstr(from, needle);
    return p && (!to || p < to);
}

/* Nothing ever completes: run times out and describe names the stuck ops. */
static void test_run_timeout_describe(void **state)
{
    char d[1024];
    FIX(f, 3, 2);
    SEND(&f, 0, O, 0, 4, 5);
    RECV(&f, 1, S, 0, 4, 7);
    RED(&f, 1, O, 4, S, 0, 4);
    fix_start(&f, 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(mring_interp_run(&f.it, 0.05), 1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_true((double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec) >= 0.05);
    EXPECT(&f, {0, 0}, {1, 0});
    mring_interp_describe(&f.it, d, sizeof d, 8);
    const char *s0 = strstr(d, "rank 3 stream 0 op 0"), *s1 = strstr(d, "rank 3 stream 1 op 0");
    assert_true(s0 && s1 && s0 < s1);
    assert_true(within(s0, s1, "SEND") && within(s0, s1, "->5") && !within(s0, s1, "RECV"));
    assert_true(within(s1, NULL, "RECV") && within(s1, NULL, "<-7"));
    mring_interp_describe(&f.it, d, sizeof d, 1);
    assert_non_null(strstr(d, "rank 3 stream 0"));
    assert_null(strstr(d, "stream 1"));
    fix_end(&f);
}

/* wait_any is called exactly when idle, with the in-flight requests; progress resumes after it.
 * A failing wait_any stops the run with ERROR. */
static void test_wait_any(void **state)
{
    for (int fail = 0; fail <= 1; fail++) {
        FIX(f, 0, 1);
        f.tp.wait_any = m_wait_any;
        f.m.fail_wait = fail;
        RECV(&f, 0, S, 0, 4, 1);
        RED(&f, 0, O, 0, S, 0, 4);
        SEND(&f, 0, O, 0, 4, 1);
        fix_start(&f, 0);
        assert_int_equal(mring_interp_run(&f.it, 5.0), fail ? MRING_INTERP_ERROR : 0);
        assert_int_equal(f.m.nwait, fail ? 1 : 2); /* once for the RECV, once for the SEND */
        assert_int_equal(f.m.wait_n, 1);
        if (!fail)
            EXPECT(&f, {0, 0}, {0, 1}, {0, 2});
        fix_end(&f);
    }
}

/* A request that completes while the interpreter re-tests a blocked op's blockers is progress:
 * interp.h says IDLE only when nothing could move, and an op completing is a move. */
static void test_completion_while_blocked_is_progress(void **state)
{
    FIX(f, 0, 1);
    RECV(&f, 0, S, 0, 4, 1);
    RECV(&f, 0, S, 4, 4, 2);
    RED(&f, 0, O, 0, S, 0, 8); /* blocked by both RECVs */
    f.m.auto_after[0] = 3;     /* the first RECV completes on its third test */
    fix_start(&f, 0);
    PROGRESS(&f, PROGRESS); /* posts both RECVs; the blocked REDUCE re-tests them (test 1) */
    assert_int_equal(f.it.remaining, 3);
    int r = mring_interp_progress(&f.it); /* tests 2 and 3: the first RECV completes */
    int completed = f.it.remaining == 2 && f.m.state[0] == RELEASED; /* it did complete in that call */
    fix_end(&f);
    assert_true(completed);
    assert_int_equal(r, MRING_INTERP_PROGRESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduce_waits_for_recv),
        cmocka_unit_test(test_send_waits_for_async_reduce),
        cmocka_unit_test(test_hazard_pairs),
        cmocka_unit_test(test_streams_independent),
        cmocka_unit_test(test_done_and_errors),
        cmocka_unit_test(test_inplace_copy),
        cmocka_unit_test(test_run_timeout_describe),
        cmocka_unit_test(test_wait_any),
        cmocka_unit_test(test_completion_while_blocked_is_progress),
        cmocka_unit_test(test_busy_issues_before_reaping),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
