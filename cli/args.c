/* args.c - the command-line helpers of every mring program (see args.h). */
#include "args.h"

#include "algo.h"
#include "units.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *prog = "mring";
static int quiet;
static void (*exit_hook)(int status);

void cli_set_program(const char *name, int silent, void (*hook)(int status))
{
    prog = name;
    quiet = silent;
    exit_hook = hook;
}

static _Noreturn void vdie(int status, const char *cmd, const char *fmt, va_list ap)
{
    if (!quiet) {
        fprintf(stderr, "%s%s%s: ", prog, cmd ? " " : "", cmd ? cmd : "");
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        fflush(stderr);
    }
    if (exit_hook)
        exit_hook(status);
    exit(status);
}

void cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdie(2, cmd, fmt, ap);
}

void cli_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdie(1, cmd, fmt, ap);
}

int cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts, const struct option *longopts)
{
    char opts[128];
    int opt;
    snprintf(opts, sizeof opts, ":%s", shortopts); /* ':' first: a missing value is reported as ':' */
    opterr = 0;
    optopt = 0;
    opt = getopt_long(argc, argv, opts, longopts, NULL);
    if (opt == ':' || opt == '?') {
        char shortname[3] = {'-', (char)optopt, 0};
        const char *prev = optind > 0 && optind <= argc ? argv[optind - 1] : "";
        const char *arg = !strncmp(prev, "--", 2) || !optopt || optopt >= 256 ? prev : shortname;
        char hint[128];
        snprintf(hint, sizeof hint, "%s%s%s --help", prog, cmd ? " " : "", cmd ? cmd : "");
        if (opt == ':')
            cli_usage_error(cmd, "option '%s' needs a value; see '%s'", arg, hint);
        cli_usage_error(cmd, "unknown option '%s'; see '%s'", arg, hint);
    }
    return opt;
}

void cli_check_output(const char *cmd, const char *flag, const char *path)
{
    char dir[4096];
    struct stat st;
    const char *slash = strrchr(path, '/');
    if (!*path || !strcmp(path, "-") || (slash && !slash[1]) || (stat(path, &st) == 0 && !S_ISREG(st.st_mode)))
        cli_usage_error(cmd, "%s '%s' is not a file path; expected a regular file to write", flag, path);
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".");
    if (access(dir, W_OK | X_OK) != 0)
        cli_usage_error(cmd, "%s '%s': cannot write in directory '%s' (%s)", flag, path, dir, strerror(errno));
    if (access(path, F_OK) == 0 && access(path, W_OK) != 0)
        cli_usage_error(cmd, "%s '%s': the file is not writable (%s)", flag, path, strerror(errno));
}

int64_t cli_size(const char *cmd, const char *flag, const char *s)
{
    int64_t v;
    if (mring_parse_size(s, &v))
        cli_usage_error(cmd, "%s '%s' is not a size; expected bytes with an optional K, M, G or T suffix, e.g. 128M",
                        flag, s);
    return v;
}

int64_t cli_int64(const char *cmd, const char *flag, const char *s)
{
    char *end;
    long long v;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (end == s || *end || errno || v < 0)
        cli_usage_error(cmd, "%s '%s' is not valid; expected a non-negative integer", flag, s);
    return v;
}

int cli_int(const char *cmd, const char *flag, const char *s, int lo, int hi)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        cli_usage_error(cmd, "%s '%s' is not valid; expected an integer from %d to %d", flag, s, lo, hi);
    return (int)v;
}

double cli_double(const char *cmd, const char *flag, const char *s, double lo)
{
    char *end;
    double v;
    errno = 0;
    v = strtod(s, &end);
    if (end == s || *end || errno || !(v >= lo) || !isfinite(v))
        cli_usage_error(cmd, "%s '%s' is not valid; expected a finite number >= %g", flag, s, lo);
    return v;
}

int cli_conf_opt(cli_conf_t *cc, int opt, const char *arg)
{
    switch (opt) {
    case OPT_TOPO: cc->topo_s = arg; return 1;
    case OPT_ALGO: cc->algo_s = arg; return 1;
    case OPT_RINGS: cc->rings_s = arg; return 1;
    case OPT_SEGMENT: cc->segment_s = arg; return 1;
    case OPT_TYPE: cc->type_s = arg; return 1;
    case OPT_DIM_ALGO: cc->dim_algo_s = arg; return 1;
    case OPT_CHUNKS: cc->chunks_s = arg; return 1;
    case OPT_EMBED: cc->embed_s = arg; return 1;
    default: return 0;
    }
}

const char *cli_conf_help(void)
{
    static char buf[4096];
    char algos[3072];
    snprintf(buf, sizeof buf,
             "  --topo T          rank grid d1xd2x...xdk, d1 innermost (e.g. 4x16x4 = 4 GPUs x 16 nodes x 4 racks);\n"
             "                    required, unless the --platform of simulate, model, tune or scaling gives it\n"
             "%s"
             "  --segment BYTES   pipelining piece (K/M/G suffixes); 0 = whole blocks (default)\n"
             "  --chunks C        multiring: each stream's data in C chunks pipelined through the dimensions, so\n"
             "                    outer links (the NIC) work while inner ones (NVLink) reduce the next chunk\n"
             "                    (Themis-style chunk scheduling); default 1\n"
             "  --embed E         the rank order each ring follows (%s): natural (default), auto (search\n"
             "                    the platform's routes for cycles that share the fewest links; simulate, tune),\n"
             "                    or per dimension ';'-separated: '-' or K cycles '/'-separated of coordinates\n"
             "                    '.'-separated; ring r follows cycle (r/2) mod K, forward for even r, e.g. for 8x4\n"
             "                    with --rings 4: 0.1.2.3.7.6.5.4/0.2.6.4.7.5.1.3;-\n"
             "  --type T          %s (default float32)\n",
             mring_algo_help(algos, sizeof algos), mring_algo_list_embed(), mring_dtype_list());
    return buf;
}

void cli_conf_build(const char *cmd, const cli_conf_t *cc, int allow_all, int *all, mring_config_t *c,
                    mring_dtype_t *dtype)
{
    char err[256];
    int is_all = allow_all && cc->algo_s && !strcmp(cc->algo_s, "all");
    mring_config_fields_t f = {cc->topo_s,    is_all ? NULL : cc->algo_s, cc->rings_s, cc->dim_algo_s,
                               cc->segment_s, cc->chunks_s,                 cc->embed_s};
    if (all)
        *all = is_all;
    mring_algo_t algo;
    if (!cc->topo_s)
        cli_usage_error(cmd, "--topo is required (e.g. --topo 4x16x4); see 'mring %s --help'", cmd);
    if (cc->algo_s && !is_all && mring_algo_parse(cc->algo_s, &algo))
        cli_usage_error(cmd, "--algo '%s' is unknown; expected one of %s%s", cc->algo_s, mring_algo_list(),
                        allow_all ? ", all" : "");
    if (mring_config_fields_read(&f, MRING_FIELDS_FLAGS, NULL, c, err, sizeof err))
        cli_usage_error(cmd, "%s", err);
    *dtype = MRING_FLOAT32;
    if (cc->type_s && mring_dtype_parse(cc->type_s, dtype))
        cli_usage_error(cmd, "--type '%s' is unknown; expected one of %s", cc->type_s, mring_dtype_list());
}

void cli_title_config(char *title, size_t len, const mring_config_t *c)
{
    size_t used = strlen(title);
    if ((c->chunks > 1 || c->embed) && used + 2 < len) {
        snprintf(title + used, len - used, "; ");
        mring_config_describe(c, title + used + 2, len - used - 2);
    }
}

void cli_conf_check(const char *cmd, const mring_config_t *c, size_t elsize)
{
    char err[256];
    if (mring_config_check(c, err, sizeof err) || mring_call_check(c, (mring_call_t){0, elsize}, err, sizeof err))
        cli_usage_error(cmd, "%s", err);
}

void cli_sizes_check(const char *cmd, const mring_config_t *c, size_t elsize, const int64_t *sizes, int n)
{
    char err[256];
    int64_t most = 0;
    for (int i = 0; i < n; i++)
        most = sizes[i] > most ? sizes[i] : most;
    if (mring_call_check(c, (mring_call_t){most / (int64_t)elsize, elsize}, err, sizeof err))
        cli_usage_error(cmd, "%s", err);
}

cli_sweep_t cli_sweep_default(void)
{
    cli_sweep_t sw = {32 << 20, 32 << 20, 0, 2, "32M", "32M", NULL};
    return sw;
}

int cli_sweep_opt(const char *cmd, cli_sweep_t *sw, int opt, const char *arg)
{
    switch (opt) {
    case 'b': sw->minb = cli_size(cmd, "-b", sw->min_s = arg); return 1;
    case 'e': sw->maxb = cli_size(cmd, "-e", sw->max_s = arg); return 1;
    case 'f':
        sw->factor_s = arg;
        if ((sw->factor = cli_double(cmd, "-f", arg, 0)) <= 1)
            cli_usage_error(cmd, "-f %s does not grow the size; expected a factor > 1", arg);
        return 1;
    case 'i':
        if ((sw->step = cli_size(cmd, "-i", arg)) == 0)
            cli_usage_error(cmd, "-i %s does not grow the size; expected a step > 0", arg);
        return 1;
    default: return 0;
    }
}

int cli_sweep_sizes(const char *cmd, const cli_sweep_t *sw, int64_t elsize, int64_t *out, int max)
{
    int n = 0;
    if (sw->factor_s && sw->step)
        cli_usage_error(cmd, "-f %s and -i both given; expected one way to step the size", sw->factor_s);
    if (sw->maxb < sw->minb)
        cli_usage_error(cmd, "-e %s is below -b %s; expected MAX >= MIN", sw->max_s, sw->min_s);
    for (int64_t s = sw->minb; s <= sw->maxb;) {
        int64_t size = s / elsize * elsize; /* whole elements, as nccl-tests does */
        if (n == max && size != out[n - 1])
            cli_usage_error(cmd, "-b %s -e %s gives more than %d sizes at this step; expected a larger -%c", sw->min_s,
                            sw->max_s, max, sw->step > 0 ? 'i' : 'f');
        if (n == 0 || size != out[n - 1])
            out[n++] = size;
        if (s == sw->maxb || (sw->step > 0 && s > sw->maxb - sw->step)) /* the last (no overflow past -e) */
            break;
        if (sw->step > 0) {
            s += sw->step;
            continue;
        }
        double next = (double)s * sw->factor;
        if (next > (double)sw->maxb || next >= 0x1p63) /* past -e; and (int64_t)next must be defined */
            break;
        s = (int64_t)next > s ? (int64_t)next : s + 1; /* from -b 0, or a factor too small to grow s */
    }
    return n;
}

void cli_op_check(const char *cmd, mring_dtype_t t, mring_redop_t op, const char *opflag, const char *typeflag)
{
    if (!mring_op_valid(t, op))
        cli_usage_error(cmd, "%s %s is not defined on %s %s; it takes %s", opflag, mring_redop_name(op), typeflag,
                        mring_dtype_name(t), mring_op_domain(op));
}

void cli_profile_parse(const char *cmd, const char *arg, mring_swprof_t *sw)
{
    char err[256];
    if (mring_swprof_parse(arg, sw, err, sizeof err))
        cli_usage_error(cmd, "--%s", err);
}
