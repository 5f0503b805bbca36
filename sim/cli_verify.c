/* cli_verify.c - `mring verify`: prove schedules correct for a list of counts. */
#include "cli.h"

#include "algo.h"
#include "verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf("usage: mring verify --topo T [--algo A|all] [--rings R] [--segment BYTES] [--dim-algo LIST]\n"
           "                    [--chunks C] [--embed E] [--type T] --count N[,N...]\n\n"
           "Execute every rank's schedule symbolically, out of place and in place, and prove: every send\n"
           "matches a receive of the same size, in order, with no deadlock; every output element on every\n"
           "rank is the reduction of every rank's input exactly once; all ranks reduce each element in the\n"
           "same order (bitwise identical results); streams of a rank never race.  Prints traffic per rank\n"
           "and per dimension (the most any rank sends: in all, and on each dimension's links).\n"
           "Exit status 0 if all hold, 1 if any fails (named).\n\n%s"
           "  --algo all        every algorithm (those that refuse the configuration get --rings 1, no --embed\n"
           "                    and no --chunks)\n"
           "  --count LIST      elements per rank, comma-separated (required)\n",
           cli_conf_help());
}

static void human(double bytes, char *buf, size_t len)
{
    const char *u[] = {"B", "KB", "MB", "GB", "TB"};
    int i = 0;
    while (bytes >= 1000 && i < 4) {
        bytes /= 1000;
        i++;
    }
    snprintf(buf, len, i ? "%.3g %s" : "%.0f %s", bytes, u[i]);
}

static int verify_one(const char *cmd, const mring_config_t *c, mring_call_t k, int forced_one)
{
    mring_verify_result_t res;
    char rings[128], b[32], line[512];
    size_t used;
    int rc = mring_verify(c, k, &res);
    if (rc < 0)
        cli_fail(cmd, "out of memory verifying %s with count %lld", mring_algo_name(c->algo), (long long)k.count);
    mring_rings_format(c, rings, sizeof rings);
    used = (size_t)snprintf(line, sizeof line, "%-4s  %-12s rings %-7s%s count %-11lld", rc ? "FAIL" : "ok",
                            mring_algo_name(c->algo), rings, forced_one ? "*" : " ", (long long)k.count);
    if (rc) {
        printf("%s %s\n", line, res.msg);
        return 1;
    }
    human(res.bytes_max, b, sizeof b);
    used += (size_t)snprintf(line + used, sizeof line - used, " %8lld ops; busiest rank %lld msgs, %s sent (", (long long)res.ops,
                             (long long)res.msgs_max, b);
    for (int d = 0; d < c->topo.ndims; d++) {
        human(res.bytes_dim_max[d], b, sizeof b);
        used += (size_t)snprintf(line + used, sizeof line - used, "%sdim%d %s", d ? ", " : "", d + 1, b);
    }
    printf("%s), scratch %lld elements\n", line, (long long)res.scratch_max);
    return 0;
}

/* --count's comma-separated element counts into counts[0 .. 255], each a valid call of c with elements of
 * elsize bytes; their number.  Bad input exits 2 naming the value (cli_usage_error). */
static int parse_counts(const char *cmd, const char *count_s, const mring_config_t *c, size_t elsize,
                        int64_t counts[256])
{
    int n = 0;
    char err[256];
    for (const char *p = count_s;;) {
        const char *comma = strchr(p, ',');
        char item[64];
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (n == 256)
            cli_usage_error(cmd, "--count has more than 256 values");
        if (len >= sizeof item)
            cli_usage_error(cmd, "--count '%.*s' is not a valid count (longer than %zu characters)", (int)len, p,
                            sizeof item - 1);
        snprintf(item, sizeof item, "%.*s", (int)len, p);
        counts[n] = cli_int64(cmd, "--count", item);
        if (mring_call_check(c, (mring_call_t){counts[n++], elsize}, err, sizeof err))
            cli_usage_error(cmd, "--count: %s", err);
        if (!comma)
            return n;
        p = comma + 1;
    }
}

int cmd_verify(int argc, char **argv)
{
    static const struct option opts[] = {CLI_CONF_OPTIONS,
                                         {"count", required_argument, 0, 'n'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *cmd = "verify", *count_s = NULL;
    cli_conf_t cc = {0};
    mring_config_t base;
    mring_dtype_t dtype;
    int opt, all, failures = 0, ncounts;
    int64_t counts[256];
    char topo[128];
    while ((opt = cli_getopt(cmd, argc, argv, "h", opts)) != -1) {
        if (cli_conf_opt(&cc, opt, optarg))
            continue;
        if (opt == 'n')
            count_s = optarg;
        else if (opt == 'h') {
            help();
            return 0;
        }
    }
    if (optind < argc)
        cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    cli_conf_build(cmd, &cc, 1, &all, &base, &dtype);
    if (!count_s)
        cli_usage_error(cmd, "--count is required (elements per rank, e.g. --count 0,1,1000003)");
    ncounts = parse_counts(cmd, count_s, &base, mring_dtype_size(dtype), counts);
    for (int a = 0; a < mring_algo_count(); a++) {
        mring_config_t c = base;
        char err[256];
        int forced = 0;
        if (all)
            c.algo = a;
        else if (a > 0)
            break;
        if (mring_config_check(&c, err, sizeof err) ||
            mring_call_check(&c, (mring_call_t){0, mring_dtype_size(dtype)}, err, sizeof err)) {
            if (!all)
                cli_usage_error(cmd, "%s", err);
            for (int i = 0; i < c.topo.ndims; i++)
                c.rings[i] = 1;
            c.embed = NULL; /* the algorithm's own orders, whole stages */
            c.chunks = 1;
            forced = 1;
            cli_conf_check(cmd, &c, mring_dtype_size(dtype));
        }
        if (a == 0 || !all)
            printf("# mring verify: topology %s (%d ranks), %s (%zu bytes per element)%s\n",
                   mring_topo_format(&c.topo, topo, sizeof topo), c.topo.nranks, mring_dtype_name(dtype), mring_dtype_size(dtype),
                   all ? "; * = verified with --rings 1, no --embed, no --chunks" : "");
        for (int i = 0; i < ncounts; i++) {
            failures += verify_one(cmd, &c, (mring_call_t){counts[i], mring_dtype_size(dtype)}, forced);
            fflush(stdout);
        }
    }
    return failures ? 1 : 0;
}
