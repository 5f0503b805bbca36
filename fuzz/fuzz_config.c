/*
 * fuzz_config.c - the command-line value parsers: topology, the configuration fields (algo, rings,
 * dim-algo, segment, chunks, embed), sizes, times, bandwidths, --links and --profile.
 *
 * Input: up to 12 lines, one value each (a missing or empty line leaves a configuration field
 * unset): topo, algo, rings, dim_algo, segment, chunks, embed, size, links, profile, time, bandwidth.
 * Contract: a refusal is one line; an accepted topology has 1..MRING_MAX_RANKS ranks, the product of
 * its dimensions; an accepted configuration passes mring_config_check and, on up to 64 ranks, its
 * schedule passes the verifier (exact reduction on every rank, no deadlock) at a few counts; an
 * accepted time is finite and >= 0, a bandwidth finite and > 0, a link's latency finite and >= 0 and
 * its bandwidth finite and > 0.
 */
#include "fuzz.h"

#include "config.h"
#include "cost.h"
#include "swprof.h"
#include "topology.h"
#include "units.h"
#include "verify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { F_TOPO, F_ALGO, F_RINGS, F_DIM_ALGO, F_SEGMENT, F_CHUNKS, F_EMBED, F_SIZE, F_LINKS, F_PROFILE, F_TIME, F_BW, NF };

static void check_topo(const char *s, mring_topo_t *t, int *ok)
{
    char err[256] = "";
    *ok = s && !mring_topo_parse(s, t, err, sizeof err);
    if (s && !*ok)
        fuzz_one_line("mring_topo_parse", err);
    if (!*ok)
        return;
    long prod = 1;
    for (int i = 0; i < t->ndims; i++)
        prod *= t->dims[i] >= 1 ? t->dims[i] : 0;
    if (t->nranks < 1 || t->nranks > MRING_MAX_RANKS || prod != t->nranks)
        fuzz_fail("topology '%s' accepted with %d ranks (dimensions' product %ld)", s, t->nranks, prod);
}

static void check_config(char *const *f)
{
    mring_config_fields_t fields = {f[F_TOPO], f[F_ALGO], f[F_RINGS], f[F_DIM_ALGO], f[F_SEGMENT], f[F_CHUNKS],
                                    f[F_EMBED]};
    mring_config_t c;
    char err[512] = "";
    if (mring_config_parse(&fields, MRING_FIELDS_FLAGS, NULL, &c, err, sizeof err)) {
        fuzz_one_line("mring_config_parse", err);
        return;
    }
    if (mring_config_check(&c, err, sizeof err))
        fuzz_fail("mring_config_parse accepted a configuration mring_config_check refuses: %s", err);
    if (c.topo.nranks > 64)
        return;
    static const int64_t counts[] = {0, 1, 7, 61};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        mring_verify_result_t res;
        mring_call_t k = {counts[i], 4};
        int rc = mring_verify(&c, k, &res);
        if (rc < 0)
            fuzz_fail("verify ran out of memory on %d ranks", c.topo.nranks);
        if (rc || !res.ok)
            fuzz_fail("accepted configuration (topo %s, algo %s, rings %s, dim_algo %s, segment %s, chunks %s, "
                      "embed %s) fails the verifier at count %lld: %s", f[F_TOPO] ? f[F_TOPO] : "-",
                      f[F_ALGO] ? f[F_ALGO] : "-", f[F_RINGS] ? f[F_RINGS] : "-",
                      f[F_DIM_ALGO] ? f[F_DIM_ALGO] : "-", f[F_SEGMENT] ? f[F_SEGMENT] : "-",
                      f[F_CHUNKS] ? f[F_CHUNKS] : "-", f[F_EMBED] ? f[F_EMBED] : "-", (long long)counts[i], res.msg);
    }
}

static void check_numbers(char *const *f, const mring_topo_t *t, int topo_ok)
{
    int64_t bytes;
    double x;
    char err[512] = "";
    if (f[F_SIZE] && !mring_parse_size(f[F_SIZE], &bytes) && bytes < 0)
        fuzz_fail("size '%s' accepted as %lld", f[F_SIZE], (long long)bytes);
    if (f[F_TIME] && !mring_parse_time(f[F_TIME], &x) && !(isfinite(x) && x >= 0))
        fuzz_fail("time '%s' accepted as %g s", f[F_TIME], x);
    if (f[F_BW] && !mring_parse_bandwidth(f[F_BW], &x) && !(isfinite(x) && x > 0))
        fuzz_fail("bandwidth '%s' accepted as %g B/s", f[F_BW], x);
    if (f[F_PROFILE]) {
        mring_swprof_t sw;
        if (mring_swprof_parse(f[F_PROFILE], &sw, err, sizeof err))
            fuzz_one_line("mring_swprof_parse", err);
        else if (!(isfinite(sw.o) && sw.o >= 0))
            fuzz_fail("profile '%s' accepted with o = %g", f[F_PROFILE], sw.o);
    }
    if (f[F_LINKS] && topo_ok) {
        mring_cost_params_t p;
        memset(&p, 0, sizeof p);
        if (mring_links_parse(f[F_LINKS], t, &p, err, sizeof err)) {
            fuzz_one_line("mring_links_parse", err);
            return;
        }
        for (int i = 0; i < t->ndims; i++)
            if (!(isfinite(p.link[i].alpha) && p.link[i].alpha >= 0 && isfinite(p.link[i].bw) && p.link[i].bw > 0))
                fuzz_fail("links '%s' accepted with dimension %d latency %g s, bandwidth %g B/s", f[F_LINKS], i + 1,
                          p.link[i].alpha, p.link[i].bw);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_string(data, size), *f[NF] = {0}, *p = s;
    mring_topo_t t;
    int topo_ok;
    for (int i = 0; i < NF && p; i++) { /* line i is field i; an empty line leaves it unset */
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        f[i] = *p ? p : NULL;
        p = nl ? nl + 1 : NULL;
    }
    check_topo(f[F_TOPO], &t, &topo_ok);
    check_config(f);
    check_numbers(f, &t, topo_ok);
    free(s);
    return 0;
}
