/*
 * test_config.c - the configuration module (model/config) and the generator registry (model/algo):
 * one parser for flags, MRING_* variables and tuning-file entries, its errors, equality, formatting,
 * the tuning file's writer and reader together, and a test-only generator registered at run time
 * that then appears in every list, check, help text and candidate set, and runs correctly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algo.h"
#include "config.h"
#include "gen.h"
#include "loopback.h"
#include "tuning.h"
#include "verify.h"

static mring_topo_t topo(const char *s)
{
    mring_topo_t t;
    char err[256];
    assert_int_equal(mring_topo_parse(s, &t, err, sizeof err), 0);
    return t;
}

/* The same fields give the same configuration in every style; each style names its fields its own way. */
static void parse_fields(void **state)
{
    mring_config_fields_t f = {"4x16x4", "multiring", "4,2,1", "ring,rabenseifner,rabenseifner", "1M", "4",
                               "0.1.2.3/0.2.1.3;-;-"};
    mring_config_t c[3];
    char err[256], d[256];
    (void)state;
    for (int s = 0; s < 3; s++)
        assert_int_equal(mring_config_parse(&f, (mring_fields_style_t)s, NULL, &c[s], err, sizeof err), 0);
    assert_true(mring_config_equal(&c[0], &c[1]) && mring_config_equal(&c[1], &c[2]));
    assert_int_equal(c[0].rings[0], 4);
    assert_int_equal(c[0].rings[2], 1);
    assert_int_equal(c[0].dim_algo[1], MRING_DIM_RABENSEIFNER);
    assert_int_equal(c[0].segment, 1 << 20);
    assert_string_equal(mring_config_describe(&c[0], d, sizeof d),
                        "--algo multiring --topo 4x16x4 --rings 4,2,1 --dim-algo ring,rabenseifner,rabenseifner "
                        "--segment 1M --chunks 4 --embed '0.1.2.3/0.2.1.3;-;-'");
    assert_ptr_equal(c[0].embed, c[1].embed); /* interned: one embedding, one pointer */
    /* the description is itself a set of fields: parse it back */
    mring_config_fields_t g = {"4x16x4", "multiring", "4,2,1", "ring,rabenseifner,rabenseifner", "1M", "4",
                               "0.1.2.3/0.2.1.3;-;-"};
    mring_config_t back;
    assert_int_equal(mring_config_parse(&g, MRING_FIELDS_FLAGS, NULL, &back, err, sizeof err), 0);
    assert_true(mring_config_equal(&back, &c[0]));
    /* defaults: a flat grid given by the caller, one ring, no dim-algo, no segment */
    mring_config_fields_t none = {0};
    mring_topo_t flat = mring_topo_flat(6);
    assert_int_equal(mring_config_parse(&none, MRING_FIELDS_ENV, &flat, &c[0], err, sizeof err), 0);
    assert_string_equal(mring_config_describe(&c[0], d, sizeof d), "--algo multiring --topo 6 --rings 1");
    assert_int_equal(mring_config_parse(&none, MRING_FIELDS_JSON, NULL, &c[0], err, sizeof err), -1);
    assert_string_equal(err, "topo is required (e.g. 4x16x4)");
}

/* Every bad field gets one line naming the field as that style spells it and the bad value. */
static void parse_errors(void **state)
{
    static const struct {
        mring_config_fields_t f;
        mring_fields_style_t style;
        const char *want; /* a substring of the message */
    } cases[] = {
        {{.topo = "4x16x4", .rings = "2,1"}, MRING_FIELDS_FLAGS, "--rings '2,1' has 2 entries; topology 4x16x4 has 3"},
        {{.topo = "4x16x4", .rings = "0"}, MRING_FIELDS_ENV, "MRING_RINGS '0' is not valid"},
        {{.topo = "4x16x4", .rings = "1,,1"}, MRING_FIELDS_JSON, "rings '1,,1' is not valid"},
        {{.topo = "4x16x4", .rings = "2,x,1"}, MRING_FIELDS_FLAGS, "--rings '2,x,1'"},
        {{.topo = "4x16x4", .rings = "65"}, MRING_FIELDS_FLAGS, "--rings '65' is not valid; expected R or R1,...,Rk"},
        {{.topo = "4x16x4", .algo = "best"}, MRING_FIELDS_ENV, "MRING_ALGO 'best' is unknown; expected one of multiring, ring"},
        {{.topo = "4x16x4", .dim_algo = "halving"}, MRING_FIELDS_ENV, "MRING_DIM_ALGO 'halving' is not valid"},
        {{.topo = "4x16x4", .dim_algo = "ring,ring"}, MRING_FIELDS_FLAGS, "--dim-algo 'ring,ring' has 2 entries"},
        {{.topo = "4x16x4", .segment = "1Q"}, MRING_FIELDS_JSON, "segment '1Q' is not a size"},
        {{.topo = "4x0"}, MRING_FIELDS_FLAGS, "4x0"},
        /* the algorithms' declared rules */
        {{.topo = "8", .algo = "rd", .rings = "2"}, MRING_FIELDS_FLAGS, "--rings 2: rd runs one stream"},
        {{.topo = "4x2", .algo = "ring", .rings = "2,1"}, MRING_FIELDS_FLAGS, "--rings 2,1 per dimension applies to multiring only"},
        {{.topo = "4x2", .algo = "rd", .dim_algo = "rabenseifner"}, MRING_FIELDS_FLAGS, "--dim-algo applies to multiring, hier only"},
        {{.topo = "4x3", .dim_algo = "rabenseifner"}, MRING_FIELDS_FLAGS, "dimension 2 needs a power-of-two size"},
        {{.topo = "4x2", .chunks = "0"}, MRING_FIELDS_ENV, "MRING_CHUNKS '0' is not valid; expected an integer 1..64"},
        {{.topo = "4x2", .chunks = "65"}, MRING_FIELDS_JSON, "chunks '65' is not valid"},
        {{.topo = "8", .algo = "rd", .chunks = "2"}, MRING_FIELDS_FLAGS, "--chunks 2: rd has no stages"},
        {{.topo = "4x2", .embed = "0.1.2.3"}, MRING_FIELDS_FLAGS, "--embed: '0.1.2.3' has 1 part(s); the grid has 2"},
        {{.topo = "4x2", .embed = "0.1.2.2;-"}, MRING_FIELDS_ENV, "MRING_EMBED: cycle 1 of dimension 1 ('0.1.2.2')"},
        {{.topo = "4x2", .embed = "0.1.2;-"}, MRING_FIELDS_JSON, "embed: cycle 1 of dimension 1 has 3 coordinates"},
        {{.topo = "4x2", .embed = "auto"}, MRING_FIELDS_FLAGS, "--embed auto searches a platform's routes"},
        {{.topo = "4x2", .algo = "rd", .embed = "1.0.2.3;-"}, MRING_FIELDS_FLAGS, "--embed applies to multiring, ring only"},
        {{.topo = "8", .algo = "ring", .embed = "0.1.2.3.4.5.6.7;-"}, MRING_FIELDS_FLAGS, "more parts than the grid's 1 dimension"},
        {{.topo = "4x2", .dim_algo = "rabenseifner", .embed = "1.0.2.3;-"}, MRING_FIELDS_FLAGS,
         "--embed gives cycles to dimension 1, which runs rabenseifner"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mring_config_t c;
        char err[256] = "";
        assert_int_equal(mring_config_parse(&cases[i].f, cases[i].style, NULL, &c, err, sizeof err), -1);
        if (!strstr(err, cases[i].want))
            fail_msg("case %zu: got '%s', expected it to contain '%s'", i, err, cases[i].want);
        assert_null(strchr(err, '\n'));
    }
}

/* Equality ignores what lies past the topology's dimensions, and sees every field within them. */
static void equality_and_calls(void **state)
{
    mring_config_t a, b;
    char err[256];
    (void)state;
    mring_config_default(&a, &(mring_topo_t){2, {4, 2}, 8});
    b = a;
    b.rings[5] = 7; /* beyond the grid */
    assert_true(mring_config_equal(&a, &b));
    b.dim_algo[1] = MRING_DIM_RABENSEIFNER;
    assert_false(mring_config_equal(&a, &b));
    b = a;
    b.segment = 4096;
    assert_false(mring_config_equal(&a, &b));
    b = a;
    b.chunks = 1; /* 0 and 1 both mean no chunks */
    assert_true(mring_config_equal(&a, &b));
    b.chunks = 2;
    assert_false(mring_config_equal(&a, &b));
    /* the per-call part is checked apart: a segment below one element of the call's type */
    a.segment = 4;
    assert_int_equal(mring_call_check(&a, (mring_call_t){100, 4}, err, sizeof err), 0);
    assert_int_equal(mring_call_check(&a, (mring_call_t){100, 8}, err, sizeof err), -1);
    assert_non_null(strstr(err, "--segment 4"));
    assert_int_equal(mring_call_check(&a, (mring_call_t){-1, 4}, err, sizeof err), -1);
    assert_non_null(strstr(err, "count -1"));
}

/* A bad tuning file is refused in one line naming what is wrong; nothing of it is used. */
static void tuning_bad_files(void **state)
{
    static const struct {
        const char *doc, *want;
    } cases[] = {
        {"{\"ranks\": 4294967300, \"entries\": []}", "expected {\"ranks\": P (1..65536)"}, /* not read as 4 */
        {"{\"ranks\": 0, \"entries\": []}", "expected {\"ranks\": P (1..65536)"},
        {"{\"ranks\": 4, \"entries\": [{\"min_size\": -1, \"max_size\": 100, \"algo\": \"ring\", \"topo\": "
         "\"4\", \"rings\": \"1\"}]}", "min_size -1 and max_size 100 are not a range"},
        {"{\"ranks\": 4, \"entries\": [{\"min_size\": 9, \"max_size\": 8, \"algo\": \"ring\", \"topo\": "
         "\"4\", \"rings\": \"1\"}]}", "min_size 9 and max_size 8 are not a range"},
        {"{\"ranks\": 8, \"entries\": [{\"min_size\": 0, \"max_size\": 100, \"algo\": \"ring\", \"topo\": \"4\", "
         "\"rings\": \"1\"}]}", "entry 0: topo has 4 ranks; the file is for 8"},
        {"{\"ranks\": 4, \"entries\": [{\"min_size\": 0}]}", "an entry lacks min_size, max_size, algo, topo or rings"},
        {"{\"ranks\": 4, \"entries\": [{\"min_size\": \"zero\", \"max_size\": 8, \"algo\": \"ring\", \"topo\": "
         "\"4\", \"rings\": \"1\"}]}", "min_size and max_size must be integers"},
        {"{\"ranks\": 4, \"entries\": [\"a\\u0001\n", "(line 1)"}, /* a parse error: one line */
        /* accepted without a word before: another format's version, a type no one knows, two ranges for a size */
        {"{\"mring_tuning\": 99, \"ranks\": 4, \"entries\": []}", "\"mring_tuning\" is not 1"},
        {"{\"ranks\": 4, \"type\": \"foo\", \"entries\": []}", "\"type\" is not a data type"},
        {"{\"ranks\": 4, \"entries\": [{\"min_size\": 0, \"max_size\": 2047, \"algo\": \"ring\", \"topo\": \"4\", "
         "\"rings\": \"1\"}, {\"min_size\": 1000, \"max_size\": 4095, \"algo\": \"rd\", \"topo\": \"4\", "
         "\"rings\": \"1\"}]}", "entry 1: sizes 1000..4095 overlap entry 0's 0..2047"},
        /* misspelt keys were ignored: "chunk" ran 1 chunk, "platfrom" passed */
        {"{\"ranks\": 4, \"entries\": [{\"min_size\": 0, \"max_size\": 8, \"algo\": \"multiring\", \"topo\": "
         "\"2x2\", \"rings\": \"1\", \"chunk\": 4}]}", "entry 0: unknown key \"chunk\"; expected one of min_size"},
        {"{\"ranks\": 4, \"platfrom\": \"x.xml\", \"entries\": []}", "unknown key \"platfrom\""},
        {"{\"ranks\": 4, \"entries\": [7]}", "entry 0: an entry is not an object"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[] = "/tmp/mring-test-tuning-XXXXXX", err[512] = "";
        int fd = mkstemp(path);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        assert_non_null(f);
        fputs(cases[i].doc, f);
        fclose(f);
        mring_tuning_t *t = mring_tuning_load(path, err, sizeof err);
        unlink(path);
        if (t || !strstr(err, cases[i].want) || strchr(err, '\n'))
            fail_msg("case %zu: want a refusal in one line naming '%s'; got %s: %s", i, cases[i].want,
                     t ? "accepted" : "refused", err);
    }
    char err[512] = "";
    assert_null(mring_tuning_load("/nonexistent/t.json", err, sizeof err));
    assert_string_equal(err, "tuning file /nonexistent/t.json: cannot read it (No such file or directory)");
}

/* The writer and the reader are one format: what is written reads back equal, per size range. */
static void tuning_round_trip(void **state)
{
    char path[] = "/tmp/mring-test-tuning-XXXXXX", err[256];
    mring_tuning_entry_t e[3];
    mring_config_fields_t f[3] = {{.topo = "2x2x2", .algo = "rd"},
                                  {"4x2", "multiring", "4,1", "ring,rabenseifner", "64K", "3", "0.1.2.3/0.2.1.3;-"},
                                  {.topo = "8", .algo = "ring", .rings = "2"}};
    mring_config_t got;
    (void)state;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(mring_config_parse(&f[i], MRING_FIELDS_FLAGS, NULL, &e[i].c, err, sizeof err), 0);
        e[i].time_us = 10.0 * (i + 1);
        e[i].busbw_gbps = 1.5;
    }
    e[0].min_size = 0, e[0].max_size = 4095;
    e[1].min_size = 4096, e[1].max_size = (1 << 20) - 1;
    e[2].min_size = 1 << 20, e[2].max_size = INT64_MAX;
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(mring_tuning_write(path, "test.xml", 8, "float32", e, 3, err, sizeof err), 0);
    mring_tuning_t *t = mring_tuning_load(path, err, sizeof err);
    if (!t)
        fail_msg("%s", err);
    assert_int_equal(mring_tuning_ranks(t), 8);
    static const int64_t probes[][2] = {{0, 0}, {4095, 0}, {4096, 1}, {(1 << 20) - 1, 1}, {1 << 20, 2}, {INT64_MAX, 2}};
    for (size_t i = 0; i < sizeof probes / sizeof *probes; i++) {
        assert_int_equal(mring_tuning_pick(t, 8, probes[i][0], &got, err, sizeof err), 0);
        assert_true(mring_config_equal(&got, &e[probes[i][1]].c));
    }
    assert_int_equal(mring_tuning_pick(t, 16, 0, &got, err, sizeof err), -1);
    assert_string_equal(err, "the tuning file is for 8 ranks, not 16");
    mring_tuning_free(t);
    unlink(path);
}

/* ---- a test-only generator: the flat ring in reverse rank order, registered at run time ---- */

static int toy_generate(const mring_config_t *c, mring_call_t k, int rank, mring_rank_sched_t *out)
{
    /* the ring through ranks P-1, P-2, ..., 0: rank sits at position P-1-rank, sends to rank - 1 */
    int P = c->topo.nranks, to = (rank + P - 1) % P, from = (rank + 1) % P;
    mring_builder_t b;
    if (mring_rank_sched_init(out, rank, 1))
        return -1;
    mring_builder_init(&b, out, 0, c, k, 0);
    mring_emit_prologue(&b, 0, k.count);
    mring_emit_ring(&b, to, from, P, P - 1 - rank, 1, 0, k.count, 1, (mring_label_t){MRING_PHASE_RS, 0, 0});
    mring_emit_ring(&b, to, from, P, P - 1 - rank, 1, 0, k.count, 0, (mring_label_t){MRING_PHASE_AG, 0, 0});
    if (b.err)
        mring_rank_sched_free(out);
    return b.err ? -1 : 0;
}

static const mring_gen_t toy = {
    .name = "toyring",
    .summary = "a test-only reverse ring",
    .rings = MRING_RINGS_ONE,
    .generate = toy_generate, /* no closed form: the model walks the schedule */
};

typedef struct sink {
    mring_cand_sink_t base;
    int n, toys;
} sink_t;

static int count_cand(mring_cand_sink_t *base, const mring_config_t *c)
{
    sink_t *s = (sink_t *)base;
    s->n++;
    s->toys += c->algo == mring_algo_count() - 1;
    return 0;
}

static void registered_generator(void **state)
{
    char err[256], help[4096];
    mring_config_t c;
    mring_algo_t id;
    (void)state;
    int builtin = mring_algo_count();
    assert_int_equal(builtin, MRING_NALGOS_BUILTIN);
    assert_int_equal(mring_algo_register(&toy), builtin);
    assert_int_equal(mring_algo_register(&toy), -1); /* the name is taken */
    assert_int_equal(mring_algo_count(), builtin + 1);
    /* lists, parsing, help */
    assert_string_equal(mring_algo_list(), "multiring, ring, rd, rabenseifner, hier, toyring");
    assert_int_equal(mring_algo_parse("toyring", &id), 0);
    assert_int_equal(id, builtin);
    mring_algo_help(help, sizeof help);
    assert_non_null(strstr(help, "toyring       a test-only reverse ring"));
    assert_non_null(strstr(help, "toyring       1 only"));
    /* its declared rules are checked like everyone's */
    mring_config_fields_t f = {.topo = "2x3", .algo = "toyring", .rings = "2"};
    assert_int_equal(mring_config_parse(&f, MRING_FIELDS_ENV, NULL, &c, err, sizeof err), -1);
    assert_string_equal(err, "--rings 2: toyring runs one stream; expected --rings 1");
    f.rings = NULL;
    assert_int_equal(mring_config_parse(&f, MRING_FIELDS_ENV, NULL, &c, err, sizeof err), 0);
    /* the tuner is offered it on the natural grid only */
    sink_t s = {{count_cand}, 0, 0};
    mring_topo_t t = topo("2x3");
    assert_int_equal(mring_algo_candidates(&t, 1, &s.base), 0);
    assert_int_equal(s.toys, 1);
    s = (sink_t){{count_cand}, 0, 0};
    assert_int_equal(mring_algo_candidates(&t, 0, &s.base), 0);
    assert_int_equal(s.toys, 0);
    /* it is proven and runs: verify, exact sums on the loopback transport, the model's walk */
    for (int64_t n = 0; n < 40; n += 7) {
        mring_verify_result_t res;
        assert_int_equal(mring_verify(&c, (mring_call_t){n, 4}, &res), 0);
        assert_true(res.ok);
    }
    float in[6][13], out[6][13];
    const void *ins[6];
    void *outs[6];
    for (int r = 0; r < 6; r++) {
        for (int i = 0; i < 13; i++)
            in[r][i] = (float)(r * 16 + i); /* small integers: every sum is exact in float */
        ins[r] = in[r];
        outs[r] = out[r];
    }
    assert_int_equal(mring_loopback_allreduce(&c, 13, MRING_FLOAT32, MRING_SUM, ins, outs, err, sizeof err), 0);
    for (int r = 0; r < 6; r++)
        for (int i = 0; i < 13; i++)
            assert_true(out[r][i] == (float)(15 * 16 + 6 * i));
    mring_cost_params_t p = {.ndims = 2, .link = {{1e-6, 1e9, 0, 0}, {1e-6, 1e9, 0, 0}}};
    double t_toy = mring_cost_closed(&c, (mring_call_t){6000, 4}, &p, 1);
    /* a ring of 6 on uniform links: 2 * 5 steps of (1 us + 1000 floats at 1 GB/s) */
    assert_true(t_toy > 0);
    assert_float_equal(t_toy, 10 * (1e-6 + 4000 / 1e9), 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_fields),       cmocka_unit_test(parse_errors), cmocka_unit_test(equality_and_calls),
        cmocka_unit_test(tuning_round_trip),  cmocka_unit_test(tuning_bad_files),
        cmocka_unit_test(registered_generator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
