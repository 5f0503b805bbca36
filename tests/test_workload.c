/* test_workload.c - workload profiles (model/workload.h): the ResNet derivation against published
 * parameter and MAC counts, backward order and ready fractions, compute time arithmetic, DDP
 * bucketing on a small explicit profile, bad profiles, and `mring workload`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <jansson.h>

#include "report.h"
#include "sim_cli.h"
#include "workload.h"

static void load_ok(const char *spec, mring_workload_t *w)
{
    char err[1024] = "";
    int rc = mring_workload_load(spec, w, err, sizeof err);
    if (rc)
        fail_msg("loading %s: %d: %s", spec, rc, err);
}

/* The tensor called name (fails if there is none). */
static const mring_tensor_t *find(const mring_workload_t *w, const char *name)
{
    for (int t = 0; t < w->ntensors; t++)
        if (!strcmp(w->tensors[t].name, name))
            return &w->tensors[t];
    fail_msg("%s has no tensor %s", w->name, name);
    return NULL;
}

/* ---- the ResNet derivation against the published counts ---- */

static void check_resnet(const char *name, int64_t params, double macs, int nlayers, int classes)
{
    mring_workload_t w;
    int64_t sum = 0;
    load_ok(name, &w);
    assert_string_equal(w.name, name);
    assert_int_equal(w.parameters, params);
    assert_true(w.macs_per_image == macs);
    assert_int_equal(w.nlayers, nlayers);
    assert_int_equal(w.ntensors, 3 * (nlayers - 1) + 2); /* conv + BN weight + BN bias; fc weight + bias */
    for (int l = 0, next = 0; l < w.nlayers; l++) {          /* layers own consecutive tensors, in order */
        assert_int_equal(w.layers[l].first_tensor, next);
        for (int t = next; t < next + w.layers[l].ntensors; t++)
            assert_int_equal(w.tensors[t].layer, l);
        next += w.layers[l].ntensors;
    }
    for (int t = 0; t < w.ntensors; t++)
        sum += w.tensors[t].elements;
    assert_int_equal(sum, params);
    assert_string_equal(w.tensors[0].name, "conv1.weight");
    assert_int_equal(w.tensors[0].elements, 7 * 7 * 3 * 64);
    assert_string_equal(w.layers[w.nlayers - 1].name, "fc");
    assert_true(w.layers[w.nlayers - 1].macs == 2048.0 * classes);
    assert_int_equal(find(&w, "fc.weight")->elements, 2048 * classes);
    assert_int_equal(find(&w, "fc.bias")->elements, classes);
    assert_int_equal(w.default_batch, 32);
    mring_workload_free(&w);
}

static void resnet_totals(void **state)
{
    check_resnet("resnet50", 25557032, 4089184256.0, 54, 1000);
    check_resnet("resnet101", 44549160, 7801405440.0, 105, 1000);
    check_resnet("resnet101-22k", 87252369, 7844087808.0, 105, 21841);
}

static void resnet_tensors(void **state)
{
    mring_workload_t w;
    load_ok("resnet50", &w);
    assert_string_equal(w.tensors[1].name, "bn1.weight");
    assert_string_equal(w.tensors[2].name, "bn1.bias");
    assert_int_equal(w.tensors[2].elements, 64);
    assert_true(w.layers[0].macs == 7.0 * 7 * 3 * 64 * 112 * 112); /* stem conv on 224 -> 112 */
    assert_string_equal(w.tensors[3].name, "layer1.0.conv1.weight");
    assert_int_equal(find(&w, "layer1.0.downsample.0.weight")->elements, 64 * 256);
    assert_int_equal(find(&w, "layer1.0.downsample.1.bias")->elements, 256);
    assert_int_equal(find(&w, "layer2.0.conv2.weight")->elements, 3 * 3 * 128 * 128);
    assert_int_equal(find(&w, "layer4.2.conv3.weight")->elements, 512 * 2048);
    assert_int_equal(find(&w, "layer4.2.bn3.weight")->elements, 2048);
    /* the stride sits on the 3x3 conv: layer2.0.conv1 still runs at 56x56, conv2 and conv3 at 28x28 */
    for (int l = 0; l < w.nlayers; l++) {
        if (!strcmp(w.layers[l].name, "layer2.0.conv1"))
            assert_true(w.layers[l].macs == 256.0 * 128 * 56 * 56);
        if (!strcmp(w.layers[l].name, "layer2.0.conv2"))
            assert_true(w.layers[l].macs == 9.0 * 128 * 128 * 28 * 28);
        if (!strcmp(w.layers[l].name, "layer2.0.downsample"))
            assert_true(w.layers[l].macs == 256.0 * 512 * 28 * 28);
    }
    assert_string_equal(w.tensors[w.ntensors - 1].name, "fc.bias");
    mring_workload_free(&w);
}

/* ---- backward order, ready fractions, compute time ---- */

static void backward_order(void **state)
{
    mring_workload_t w;
    mring_bucket_t *b;
    int n;
    load_ok("resnet50", &w);
    n = mring_workload_buckets(&w, 1, 4, &b); /* a cap below every tensor: one bucket per tensor */
    assert_int_equal(n, w.ntensors);
    assert_int_equal(b[0].first, 0);
    assert_int_equal(b[0].n, 1);
    assert_int_equal(b[0].elements, 1000); /* backward index 0 is fc.bias */
    assert_int_equal(b[1].elements, 2048000); /* then fc.weight */
    assert_true(b[0].ready_frac == 2048000.0 / 4089184256.0);
    assert_true(mring_workload_ready_frac(&w, w.ntensors - 1) == 2048000.0 / 4089184256.0);
    assert_true(b[1].ready_frac == b[0].ready_frac); /* the same layer */
    assert_true(b[n - 1].ready_frac == 1.0);
    assert_true(mring_workload_ready_frac(&w, 0) == 1.0);
    for (int i = 0; i < n; i++) {
        assert_int_equal(b[i].first, i);
        assert_int_equal(b[i].elements, w.tensors[w.ntensors - 1 - i].elements);
        if (i > 0 && !(b[i].ready_frac >= b[i - 1].ready_frac))
            fail_msg("ready fraction falls at backward index %d: %g after %g", i, b[i].ready_frac, b[i - 1].ready_frac);
    }
    free(b);
    mring_workload_free(&w);
}

static void compute_time(void **state)
{
    mring_workload_t w;
    load_ok("resnet50", &w);
    assert_int_equal(w.ref_batch, 32);
    assert_true(w.ref_macs_per_image == w.macs_per_image);
    assert_true(mring_workload_iter_s(&w, 32) == 32.0 / 195);
    assert_true(mring_workload_backward_s(&w, 32) == 2.0 / 3 * (32.0 / 195));
    assert_true(mring_workload_iter_s(&w, 64) == 64.0 / 195);
    assert_string_equal(w.gpu, "Tesla P100 SXM2 16GB");
    assert_non_null(strstr(w.source, "TFBENCH"));
    mring_workload_free(&w);
    load_ok("resnet101", &w);
    assert_int_equal(w.ref_batch, 64);
    assert_true(mring_workload_iter_s(&w, 64) == 64.0 / 136);
    assert_true(mring_workload_iter_s(&w, 32) == 32.0 / 136);
    mring_workload_free(&w);
    load_ok("resnet101-22k", &w); /* measured on the 1000-class model: scaled by the MACs ratio */
    assert_true(w.ref_macs_per_image == 7801405440.0);
    assert_true(mring_workload_iter_s(&w, 32) == 32.0 / 136 * (7844087808.0 / 7801405440.0));
    assert_true(mring_workload_backward_s(&w, 32) == 2.0 / 3 * (32.0 / 136 * (7844087808.0 / 7801405440.0)));
    mring_workload_free(&w);
}

/* ---- bucketing on a small explicit profile ---- */

/* Forward: a (macs 100: 10 + 2), b (300: 50), c (400: 5 + 3), d (200: 30); 100 elements, 1000 MACs.
 * Backward order: d.w 30, c.b 3, c.w 5, b.w 50, a.b 2, a.w 10; ready 0.2, 0.6, 0.6, 0.9, 1, 1. */
static const char small_json[] =
    "{\"name\": \"small\", \"description\": \"four layers\",\n"
    " \"layers\": [{\"name\": \"a\", \"macs\": 100, \"tensors\": [{\"name\": \"a.w\", \"elements\": 10},\n"
    "                                                  {\"name\": \"a.b\", \"elements\": 2}]},\n"
    "            {\"name\": \"b\", \"macs\": 300, \"tensors\": [{\"name\": \"b.w\", \"elements\": 50}]},\n"
    "            {\"name\": \"c\", \"macs\": 400, \"tensors\": [{\"name\": \"c.w\", \"elements\": 5},\n"
    "                                                  {\"name\": \"c.b\", \"elements\": 3}]},\n"
    "            {\"name\": \"d\", \"macs\": 200, \"tensors\": [{\"name\": \"d.w\", \"elements\": 30}]}],\n"
    " \"published_parameters\": 100, \"default_batch\": 8,\n"
    " \"compute\": {\"gpu\": \"test GPU\", \"batch\": 4, \"images_per_s\": 100, \"backward_share\": 0.5,\n"
    "             \"source\": \"made up\"},\n"
    " \"notes\": [\"a test profile\"]}\n";

/* Write text to the scratch file name; returns its path. */
static const char *write_file(const char *name, const char *text)
{
    const char *path = sim_tmp_path(name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
    return path;
}

typedef struct want {
    int first, n;
    int64_t elements;
    double ready;
} want_t;

static void check_buckets(const mring_workload_t *w, int64_t cap, size_t elsize, const want_t *want, int nwant)
{
    mring_bucket_t *b;
    int n = mring_workload_buckets(w, cap, elsize, &b);
    if (n != nwant)
        fail_msg("cap %lld, elsize %zu: %d buckets, want %d", (long long)cap, elsize, n, nwant);
    for (int k = 0; k < n; k++)
        if (b[k].first != want[k].first || b[k].n != want[k].n || b[k].elements != want[k].elements ||
            b[k].ready_frac != want[k].ready)
            fail_msg("cap %lld, elsize %zu, bucket %d: first %d n %d elements %lld ready %g; want %d %d %lld %g",
                     (long long)cap, elsize, k, b[k].first, b[k].n, (long long)b[k].elements, b[k].ready_frac,
                     want[k].first, want[k].n, (long long)want[k].elements, want[k].ready);
    free(b);
}

static void buckets(void **state)
{
    mring_workload_t w;
    load_ok(write_file("small.json", small_json), &w);
    assert_int_equal(w.parameters, 100);
    assert_true(w.macs_per_image == 1000);
    assert_int_equal(w.nlayers, 4);
    assert_int_equal(w.ntensors, 6);
    assert_int_equal(w.default_batch, 8);
    assert_true(mring_workload_iter_s(&w, 8) == 0.08);
    assert_true(mring_workload_backward_s(&w, 8) == 0.04);
    /* bytes in backward order at 4 B: 120, 12, 20, 200, 8, 40 */
    {
        const want_t cap100[] = {{0, 1, 30, 0.2}, {1, 3, 58, 0.9}, {4, 2, 12, 1.0}}; /* d.w and b.w pass the cap */
        const want_t cap0[] = {{0, 6, 100, 1.0}};
        const want_t cap1[] = {{0, 1, 30, 0.2}, {1, 1, 3, 0.6}, {2, 1, 5, 0.6},
                               {3, 1, 50, 0.9}, {4, 1, 2, 1.0}, {5, 1, 10, 1.0}};
        /* 32 B: c.b + c.w = 32 B closes (a bucket closes at == cap) */
        const want_t cap32[] = {{0, 1, 30, 0.2}, {1, 2, 8, 0.6}, {3, 1, 50, 0.9}, {4, 2, 12, 1.0}};
        const want_t cap100_2b[] = {{0, 4, 88, 0.9}, {4, 2, 12, 1.0}}; /* 2 B: 60, 66, 76, 176 | 4, 24 */
        const want_t cap_big[] = {{0, 6, 100, 1.0}};
        check_buckets(&w, 100, 4, cap100, 3);
        check_buckets(&w, 0, 4, cap0, 1);
        check_buckets(&w, 1, 4, cap1, 6);
        check_buckets(&w, 32, 4, cap32, 4);
        check_buckets(&w, 100, 2, cap100_2b, 2);
        check_buckets(&w, 400, 4, cap_big, 1); /* exactly the total: closes on the last tensor */
        check_buckets(&w, 25 << 20, 4, cap_big, 1);
    }
    mring_workload_free(&w);
}

/* ---- bad input ---- */

/* A small architecture profile for the bad-input cases of "architecture". */
static const char arch_json[] =
    "{\"name\": \"tiny-resnet\",\n"
    " \"architecture\": {\"family\": \"resnet-bottleneck\", \"blocks\": [1, 1, 1, 1], \"classes\": 10},\n"
    " \"default_batch\": 8,\n"
    " \"compute\": {\"gpu\": \"test GPU\", \"batch\": 4, \"images_per_s\": 100, \"classes\": 20,\n"
    "             \"backward_share\": 0.5, \"source\": \"made up\"}}\n";

/* base with `from` replaced by `to`: loading it returns 2 with every `needles` string in err. */
static void check_bad(const char *base, const char *from, const char *to, const char *const *needles)
{
    char text[sizeof small_json + 256], err[1024] = "";
    const char *at = strstr(base, from), *path;
    mring_workload_t w;
    int rc;
    if (!at)
        fail_msg("the test profile has no '%s'", from);
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - base), base, to, at + strlen(from));
    path = write_file("bad.json", text);
    rc = mring_workload_load(path, &w, err, sizeof err);
    if (rc != 2)
        fail_msg("'%s' -> '%s': returned %d, want 2 (err: %s)", from, to, rc, err);
    if (strchr(err, '\n') || !strstr(err, "bad.json"))
        fail_msg("'%s' -> '%s': not one line naming the file: %s", from, to, err);
    for (; *needles; needles++)
        if (!strstr(err, *needles))
            fail_msg("'%s' -> '%s': error does not name '%s': %s", from, to, *needles, err);
    assert_null(w.layers);
    assert_null(w.tensors);
}

static void bad_profiles(void **state)
{
#define BAD(from, to, ...) check_bad(small_json, from, to, (const char *const[]){__VA_ARGS__, NULL})
    BAD("\"description\"", "\"descripton\"", "unknown key \"descripton\"", "description");
    BAD("\"backward_share\"", "\"backward_shar\"", "compute.backward_shar");
    BAD("{\"name\": \"a.w\", \"elements\": 10}", "{\"name\": \"a.w\", \"elements\": 10, \"size\": 4}",
        "layers[0].tensors[0].size");
    BAD("\"default_batch\": 8", "\"default_batch\": \"8\"", "default_batch", "\"8\"", "integer");
    BAD("\"default_batch\": 8", "\"default_batch\": 0", "default_batch is 0");
    BAD("\"macs\": 300", "\"macs\": \"many\"", "layers[1].macs", "\"many\"");
    BAD("\"macs\": 300", "\"macs\": 0", "layers[1].macs is 0");
    BAD("\"elements\": 50", "\"elements\": -50", "layers[1].tensors[0].elements is -50");
    BAD("\"elements\": 50", "\"elements\": 50.5", "layers[1].tensors[0].elements is 50.5");
    BAD("\"published_parameters\": 100", "\"published_parameters\": 101", "published_parameters is 101", "100");
    BAD("\"tensors\": [{\"name\": \"b.w\", \"elements\": 50}]", "\"tensors\": []", "published_parameters is 100",
        "50");
    BAD("\"backward_share\": 0.5", "\"backward_share\": 1.5", "compute.backward_share is 1.5");
    BAD("\"images_per_s\": 100", "\"images_per_s\": -1", "compute.images_per_s is -1");
    BAD("\"batch\": 4", "\"batch\": 4, \"classes\": 1000", "compute.classes");
    BAD("\"gpu\": \"test GPU\", ", "", "compute.gpu");
    BAD("\"name\": \"small\"", "\"name\": 7", "name is 7");
    BAD("\"notes\": [\"a test profile\"]", "\"notes\": [3]", "notes");
    BAD(" \"layers\"", " \"architecture\": {\"family\": \"resnet-bottleneck\", \"blocks\": [3,4,6,3], \"classes\": 10},"
                       " \"layers\"",
        "both");
    BAD("\"layers\": [", "\"layers\": [5, ", "layers[0] is 5");
    BAD("{\"name\": \"b.w\", \"elements\": 50}", "\"b.w\"", "layers[1].tensors[0] is \"b.w\"");
    BAD("\"layers\": [", "\"layers\": [}", "bad.json:"); /* malformed JSON: file and line */
#undef BAD
#define BAD(from, to, ...) check_bad(arch_json, from, to, (const char *const[]){__VA_ARGS__, NULL})
    BAD("\"resnet-bottleneck\"", "\"vgg\"", "architecture.family", "vgg");
    BAD("[1, 1, 1, 1]", "[3, 4, 6]", "architecture.blocks", "[3,4,6]");
    BAD("[1, 1, 1, 1]", "[3, 4, 0, 3]", "architecture.blocks", "[3,4,0,3]");
    BAD("\"classes\": 10", "\"classes\": 0", "architecture.classes is 0");
    BAD("\"classes\": 10", "\"classes\": 10, \"image\": -224", "architecture.image is -224");
    BAD("\"classes\": 10", "\"classes\": 10, \"depth\": 50", "architecture.depth");
    BAD("\"classes\": 20", "\"classes\": \"ten\"", "compute.classes", "\"ten\"");
    BAD("\"architecture\"", "\"archtecture\"", "unknown key \"archtecture\"");
    BAD("\"architecture\": {", "\"x\": 1, \"y\": {", "unknown key \"x\"");
#undef BAD
}

/* The architecture profile above: measured on a 20-class variant, so time scales by the MACs ratio. */
static void arch_variant(void **state)
{
    mring_workload_t w;
    double fc10 = 2048.0 * 10, fc20 = 2048.0 * 20;
    load_ok(write_file("tiny.json", arch_json), &w);
    assert_int_equal(w.nlayers, 1 + 4 * 3 + 4 + 1);
    assert_true(w.ref_macs_per_image - w.macs_per_image == fc20 - fc10);
    assert_true(mring_workload_iter_s(&w, 4) == 4.0 / 100 * (w.macs_per_image / w.ref_macs_per_image));
    mring_workload_free(&w);
}

static void bad_names(void **state)
{
    mring_workload_t w;
    char err[1024] = "";
    assert_int_equal(mring_workload_load("resnet5", &w, err, sizeof err), 2);
    assert_non_null(strstr(err, "'resnet5'"));
    assert_non_null(strstr(err, "resnet50"));
    assert_non_null(strstr(err, "resnet101-22k"));
    assert_null(strchr(err, '\n'));
    err[0] = '\0';
    assert_int_equal(mring_workload_load("/nonexistent/dir/x.json", &w, err, sizeof err), 2);
    assert_non_null(strstr(err, "/nonexistent/dir/x.json"));
    err[0] = '\0';
    assert_int_equal(mring_workload_load("", &w, err, sizeof err), 2);
    assert_non_null(strstr(err, "resnet50"));
}

/* $MRING_WORKLOAD_DIR replaces the compiled-in directory for names and the list. */
static void workload_dir_env(void **state)
{
    mring_workload_t w;
    char err[1024] = "", list[256];
    write_file("small.json", small_json);
    setenv("MRING_WORKLOAD_DIR", sim_tmp, 1);
    load_ok("small", &w);
    assert_int_equal(w.parameters, 100);
    mring_workload_free(&w);
    assert_int_equal(mring_workload_load("resnet50", &w, err, sizeof err), 2);
    assert_non_null(strstr(err, "small"));
    unsetenv("MRING_WORKLOAD_DIR");
    assert_non_null(strstr(mring_workload_list(list, sizeof list), "resnet101, resnet101-22k, resnet50"));
}

/* ---- mring workload ---- */

static void cli_table(void **state)
{
    const char *args[] = {"workload", "resnet50", NULL};
    struct cli_result r = {0};
    cli_run_ok(args, &r);
    assert_non_null(strstr(r.out, "25557032"));
    assert_non_null(strstr(r.out, "fc.bias"));
    assert_non_null(strstr(r.out, "iteration 164.103 ms, backward 109.402 ms"));
    cli_free(&r);
}

static void cli_csv_json(void **state)
{
    const char *csv[] = {"workload", "resnet101-22k", "--format", "csv", "--bucket", "0", NULL};
    const char *js[] = {"workload", "resnet50", "--format", "json", "--batch", "64", "--bucket", "100M", NULL};
    struct cli_result r = {0};
    json_error_t je;
    json_t *doc;
    cli_run_ok(csv, &r);
    assert_memory_equal(r.out, "workload,batch,bucket_cap,index,name,layer,elements,bytes,ready_ms,bucket\n"
                               "resnet101-22k,32,0,0,fc.bias,fc,21841,87364,",
                        strlen("workload,batch,bucket_cap,index,name,layer,elements,bytes,ready_ms,bucket\n"
                               "resnet101-22k,32,0,0,fc.bias,fc,21841,87364,"));
    cli_free(&r);
    cli_run_ok(js, &r);
    doc = json_loads(r.out, 0, &je);
    if (!doc)
        fail_msg("not JSON: %s", je.text);
    assert_int_equal(json_integer_value(json_object_get(doc, "parameters")), 25557032);
    assert_int_equal(json_integer_value(json_object_get(doc, "batch")), 64);
    assert_int_equal(json_array_size(json_object_get(doc, "tensors")), 161);
    assert_int_equal(json_array_size(json_object_get(doc, "buckets")), 1); /* 97.5 MiB < 100M */
    json_decref(doc);
    cli_free(&r);
}

static void cli_bad(void **state)
{
    static const struct {
        const char *args[6], *needle;
    } cases[] = {
        {{"workload", "resnet50", "--batch", "0"}, "--batch '0'"},
        {{"workload", "resnet50", "--bucket", "lots"}, "--bucket 'lots'"},
        {{"workload", "resnet50", "--format", "xml"}, "--format 'xml'"},
        {{"workload", "nosuch"}, "resnet50"},
        {{"workload"}, "resnet50"},
        {{"workload", "resnet50", "extra"}, "'extra'"},
        {{"workload", "/nonexistent/x.json"}, "/nonexistent/x.json"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct cli_result r = {0};
        char how[64];
        if (cli_run(cases[i].args, &r) != 0)
            fail_msg("could not run %s", r.cmd);
        if (!r.exited || r.status != 2 || !strstr(r.err, cases[i].needle) ||
            strchr(r.err, '\n') != r.err + r.err_len - 1)
            fail_msg("%s: want exit 2 and one line naming '%s', got %s: %s", r.cmd, cases[i].needle,
                     cli_how(&r, how, sizeof how), r.err);
        cli_free(&r);
    }
}

/* Text from a user's file quoted in a message stays on one line: control characters escaped, cut to fit. */
static void escape_line(void **state)
{
    char buf[16];
    (void)state;
    assert_string_equal(mring_escape_line("a\nb\tc\x01", buf, sizeof buf), "a\\nb\\tc\\x01");
    assert_string_equal(mring_escape_line("plain", buf, sizeof buf), "plain");
    assert_string_equal(mring_escape_line("0123456789abc\n", buf, sizeof buf), "0123456789abc\\n"); /* fits: 15 */
    assert_string_equal(mring_escape_line("0123456789abcd\n", buf, sizeof buf), "0123456789abcd"); /* no half escape */
    assert_string_equal(mring_escape_line("0123456789abcdefgh", buf, sizeof buf), "0123456789abcde");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(escape_line),
        cmocka_unit_test(resnet_totals), cmocka_unit_test(resnet_tensors),   cmocka_unit_test(backward_order),
        cmocka_unit_test(compute_time),  cmocka_unit_test(buckets),          cmocka_unit_test(bad_profiles),
        cmocka_unit_test(arch_variant),  cmocka_unit_test(bad_names),        cmocka_unit_test(workload_dir_env),
        cmocka_unit_test(cli_table),     cmocka_unit_test(cli_csv_json),     cmocka_unit_test(cli_bad),
    };
    return cmocka_run_group_tests_name("workload", tests, sim_tmp_setup, sim_tmp_teardown);
}
