/* bench_args.c - mring-bench's flags, their checks and the report's title (see bench_args.h). */
#include "bench_args.h"
#include "algo.h"
#include "libmring.h"
#ifdef MRING_HAVE_CUDA
#include "cuda_reduce.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf("usage: mpiexec -n P mring-bench [-b MIN] [-e MAX] [-f FACTOR | -i STEP] [-n ITERS] [-w WARMUP]\n"
           "                  [--min-time SECONDS] [-c 0|1] [-d TYPE] [-o OP] [-a 0|1|2|3] [--topo T]\n"
           "                  [--algo A|mpi] [--rings R] [--chunks C] [--embed E]\n"
           "                  [--segment BYTES] [--dim-algo LIST] [--format table|csv|json] [--timeout SECONDS]\n"
           "                  [--tuning FILE] [--device host|cuda] [--cuda-aware] [--barrier 0|1]\n"
           "                  [--trace FILE.json] [--per-call FILE.csv] [--alternate 'FLAGS']...\n\n"
           "Time allreduce on the MPI job's ranks with the flags of nccl-tests (all_reduce_perf), out of\n"
           "place and in place, and check every result: inputs whose exact sum is known whatever the\n"
           "reduction order, receive buffers poisoned first, guard words around the buffers, the send\n"
           "buffer unchanged, results bitwise identical across ranks.\n\n"
           "  -b, -e, -f, -i    size sweep in bytes per rank (default 32M..32M, factor 2; K/M/G = powers of two)\n"
           "  -n, --iters N     timed iterations per size (default 20)\n"
           "  -w, --warmup N    untimed iterations first (default 5)\n"
           "  --min-time S      at each size, more timed iterations than -n where N calls take less than S seconds:\n"
           "                    as many as would last S at the pace of the fastest warm-up round (the slowest\n"
           "                    rank's; the first rounds open connections; calls back to back run faster, so\n"
           "                    they last less), so small sizes, whose calls one scheduler time slice can\n"
           "                    double, average over many\n"
           "                    (OSU's micro-benchmarks likewise run 1000 iterations up to 8 KiB, 100 above)\n"
           "  --barrier 0|1     0 (default): the timed calls run back to back and their total is divided by N, as\n"
           "                    nccl-tests do, so a rank that ends a call early starts the next one; 1: a barrier\n"
           "                    before each call, each call timed alone, as OSU's osu_allreduce (one call's latency,\n"
           "                    as mring simulate predicts it from a common start; the ranks' skew leaving the\n"
           "                    barrier is in it)\n"
           "  -c, --check 0|1   check the results (default 1)\n"
           "  -d, --datatype T  %s (default float32)\n"
           "  -o, --op OP       %s (default sum; each on the types MPI defines it for)\n"
           "  -a, --average A   time reported: 0 rank 0, 1 average (default), 2 minimum, 3 maximum over ranks\n"
           "  --topo T          rank grid (default: the job's nodes, ranks per node x nodes when every node has\n"
           "                    as many and ranks go node by node, else P, a flat ring)\n"
           "  --algo A          %s (default %s), or mpi (the MPI library's own\n"
           "                    MPI_Allreduce, timed and checked the same way)\n"
           "  --rings, --segment, --dim-algo, --chunks, --embed   as in mring simulate (no --embed auto)\n"
           "  --format F        table (default), csv or json (fields as mring simulate, plus inplace, wrong,\n"
           "                    time_min_us, time_max_us)\n"
           "  --timeout S       abort the job, naming the stuck operation, when one call takes longer (default 60;\n"
           "                    0: no limit)\n"
           "  --tuning FILE     take each size's configuration from a tuning file of `mring tune --out` (not with\n"
           "                    --topo, --algo, --rings, --segment, --dim-algo, --chunks or --embed)\n"
           "  --device D        host (default) or cuda: buffers in GPU memory (CUDA builds), staged through pinned\n"
           "                    host memory piece by piece\n"
           "  --cuda-aware      hand device pointers to MPI (for a CUDA-aware MPI) instead of staging\n"
           "  --trace FILE      after the last size's out-of-place timing, one more call from a barrier, traced: when\n"
           "                    each rank posted and completed each op, as the trace-event JSON of mring simulate\n"
           "                    --trace (open both in ui.perfetto.dev; each rank's times from its own start)\n"
           "  --per-call FILE   also write every timed call of every rank as CSV (size,inplace,config,call,rank,\n"
           "                    start_s,time_us; start_s: wall clock, seconds since the epoch, to line up with\n"
           "                    other tools' samples): the single slow calls that a block's mean hides\n"
           "  --alternate 'FLAGS'  one more configuration, as flags in one argument (e.g. '--chunks 4'; its --topo\n"
           "                    and the data type default to the main one's), timed call by call beside the main\n"
           "                    configuration: each round of calls runs every configuration once, the first one\n"
           "                    rotating round by round, so all of them share the job's placement, connections and\n"
           "                    moments; each gets its own rows (the config column says which), each call timed\n"
           "                    alone, and --per-call's config column is 0 for the main one, k for the k-th\n"
           "                    --alternate (up to %d)\n",
           mring_dtype_list(), mring_redop_list(), mring_algo_list(), mring_algo_name(MRING_ALGO_MULTIRING), BENCH_MAX_ALT);
}

enum { OPT_FORMAT = OPT_FIRST_FREE, OPT_MIN_TIME, OPT_TIMEOUT, OPT_TUNING, OPT_DEVICE, OPT_CUDA_AWARE, OPT_BARRIER, OPT_TRACE, OPT_PER_CALL, OPT_ALTERNATE };

/* One of mring-bench's own flags (not the sweep's nor the configuration's): opt with its argument arg. */
static void bench_opt(bench_t *b, int opt, const char *arg, int rank0)
{
    switch (opt) {
    case 'n': b->iters = cli_int(NULL, "-n", arg, 1, 1 << 30); break;
    case 'w': b->warmup = cli_int(NULL, "-w", arg, 0, 1 << 30); break;
    case 'c': b->check = cli_int(NULL, "-c", arg, 0, 1); break;
    case 'd': {
        mring_dtype_t t;
        if (mring_dtype_parse(arg, &t))
            cli_usage_error(NULL, "-d '%s' is unknown; expected one of %s", arg, mring_dtype_list());
        b->cc.type_s = arg;
        break;
    }
    case 'o':
        if (mring_redop_parse(arg, &b->op))
            cli_usage_error(NULL, "-o '%s' is unknown; expected one of %s", arg, mring_redop_list());
        break;
    case 'a': b->average = cli_int(NULL, "-a", arg, 0, 3); break;
    case OPT_FORMAT:
        if (mring_format_parse(arg, &b->fmt))
            cli_usage_error(NULL, "--format '%s' is unknown; expected table, csv or json", arg);
        break;
    case OPT_MIN_TIME: b->min_time = cli_double(NULL, "--min-time", arg, 0); break;
    case OPT_TIMEOUT: b->timeout = cli_double(NULL, "--timeout", arg, 0); break;
    case OPT_TUNING: b->tuning_file = arg; break;
    case OPT_DEVICE:
        if (strcmp(arg, "host") && strcmp(arg, "cuda"))
            cli_usage_error(NULL, "--device '%s' is unknown; expected host or cuda", arg);
        b->device = !strcmp(arg, "cuda");
        break;
    case OPT_CUDA_AWARE: b->cuda_aware = 1; break;
    case OPT_BARRIER: b->barrier = cli_int(NULL, "--barrier", arg, 0, 1); break;
    case OPT_TRACE: /* rank 0 writes it after the sweep: a path it cannot write fails now, on every rank (rank 0
                       * alone exiting left the others waiting) */
        cli_check_output(NULL, "--trace", arg);
        b->trace = arg;
        break;
    case OPT_PER_CALL: b->per_call = arg; break;
    case OPT_ALTERNATE:
        if (b->nalt == BENCH_MAX_ALT)
            cli_usage_error(NULL, "--alternate '%s': at most %d alternate configurations", arg, BENCH_MAX_ALT);
        b->alt_s[b->nalt++] = arg;
        break;
    case 'h':
        if (rank0)
            help();
        MPI_Finalize();
        exit(0);
    }
}

/* One --alternate string: split at blanks into *words (kept: cc points into it) and read as configuration
 * flags into *cc.  An unknown or incomplete flag, a word that is not a flag, or --type (the run has one data
 * type, -d) exits 2 naming the string. */
static void alternate_parse(const char *s, cli_conf_t *cc, char **words)
{
    static const struct option opts[] = {CLI_CONF_OPTIONS, {0, 0, 0, 0}};
    char *argv[64] = {"--alternate"}, *save = NULL;
    int argc = 1, opt;
    if (!(*words = strdup(s)))
        cli_fail(NULL, "out of memory");
    for (char *w = strtok_r(*words, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
        if (argc == 63)
            cli_usage_error(NULL, "--alternate '%s': more than 62 words", s);
        argv[argc++] = w;
    }
    *cc = (cli_conf_t){0};
    optind = 0; /* glibc: start a new scan */
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (opt == ':' || opt == '?')
            cli_usage_error(NULL, "--alternate '%s': %s '%s'; it takes the configuration flags of mring simulate", s,
                            opt == ':' ? "no value for" : "unknown flag", argv[optind - 1]);
        if (opt == OPT_TYPE)
            cli_usage_error(NULL, "--alternate '%s': --type is the run's (-d), not one configuration's", s);
        cli_conf_opt(cc, opt, optarg);
    }
    if (optind < argc)
        cli_usage_error(NULL, "--alternate '%s': unexpected word '%s'", s, argv[optind]);
}

void bench_parse(int argc, char **argv, int rank0, bench_t *b)
{
    *b = (bench_t){.sweep = cli_sweep_default(), .iters = 20, .warmup = 5, .check = 1, .average = 1, .timeout = 60};
    static const struct option opts[] = {CLI_CONF_OPTIONS, CLI_SWEEP_OPTIONS,
                                         {"iters", required_argument, 0, 'n'}, {"warmup", required_argument, 0, 'w'},
                                         {"check", required_argument, 0, 'c'}, {"datatype", required_argument, 0, 'd'},
                                         {"op", required_argument, 0, 'o'}, {"average", required_argument, 0, 'a'},
                                         {"format", required_argument, 0, OPT_FORMAT},
                                         {"timeout", required_argument, 0, OPT_TIMEOUT},
                                         {"min-time", required_argument, 0, OPT_MIN_TIME},
                                         {"tuning", required_argument, 0, OPT_TUNING},
                                         {"device", required_argument, 0, OPT_DEVICE},
                                         {"cuda-aware", no_argument, 0, OPT_CUDA_AWARE},
                                         {"barrier", required_argument, 0, OPT_BARRIER},
                                         {"trace", required_argument, 0, OPT_TRACE},
                                         {"per-call", required_argument, 0, OPT_PER_CALL},
                                         {"alternate", required_argument, 0, OPT_ALTERNATE},
                                         {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int opt;
    while ((opt = cli_getopt(NULL, argc, argv, "b:e:f:i:n:w:c:d:o:a:h", opts)) != -1) {
        if (cli_sweep_opt(NULL, &b->sweep, opt, optarg))
            continue;
        if (opt == OPT_ALGO && !strcmp(optarg, "mpi"))
            b->mpi = 1;
        else if (!cli_conf_opt(&b->cc, opt, optarg))
            bench_opt(b, opt, optarg, rank0);
    }
    if (optind < argc)
        cli_usage_error(NULL, "unexpected argument '%s'", argv[optind]);
    const char *given = b->cc.topo_s ? "--topo" : b->cc.algo_s ? "--algo" : b->cc.rings_s ? "--rings" :
                        b->cc.segment_s ? "--segment" : b->cc.dim_algo_s ? "--dim-algo" : b->cc.chunks_s ? "--chunks" :
                        b->cc.embed_s ? "--embed" : NULL;
    if (b->mpi && given) /* they were ignored without a word (--topo 2x2 on 2 ranks ran) */
        cli_usage_error(NULL, "--algo mpi with %s: MPI_Allreduce runs the MPI library's own algorithm, which mring's "
                        "configuration does not reach; give one or the other", given);
    if (b->tuning_file && given) /* (--algo mpi has its own message in main) */
        cli_usage_error(NULL, "--tuning with %s: the tuning file gives each size's whole configuration; give one or "
                        "the other", given);
    for (int k = 0; k < b->nalt; k++)
        alternate_parse(b->alt_s[k], &b->alt_cc[k], &b->alt_words[k]);
}

void bench_check(const bench_t *b, mring_dtype_t t)
{
    cli_op_check(NULL, t, b->op, "-o", "-d");
    if (b->mpi && mring_mpi_datatype(t) == MPI_DATATYPE_NULL)
        cli_usage_error(NULL, "--algo mpi with -d %s: MPI has no %s type; use another type",
                        mring_dtype_name(t), mring_dtype_name(t));
#ifdef MRING_HAVE_CUDA
    if (b->device && !mring_cuda_supports(t))
        cli_usage_error(NULL, "--device cuda with -d %s: CUDA has no long double; use --device host", mring_dtype_name(t));
    if (b->device && mring_cuda_devices() < 1)
        cli_usage_error(NULL, "--device cuda: no CUDA device is visible on this machine");
#else
    if (b->device)
        cli_usage_error(NULL, "--device cuda: this mring-bench was built without CUDA (nvcc not found)");
#endif
    if (b->nalt && (b->tuning_file || b->mpi))
        cli_usage_error(NULL, "--alternate with %s: the alternated configurations are mring's, beside one main "
                        "mring configuration", b->mpi ? "--algo mpi" : "--tuning");
    for (int k = 0; k < b->nalt; k++)
        if (b->alt_cc[k].algo_s && !strcmp(b->alt_cc[k].algo_s, "mpi"))
            cli_usage_error(NULL, "--alternate '%s': --algo mpi cannot be alternated; give it as the main configuration "
                            "in a job of its own", b->alt_s[k]);
    if (b->trace && b->mpi)
        cli_usage_error(NULL, "--trace with --algo mpi: MPI_Allreduce's inside is not traced; use an mring algorithm");
    if (b->min_time > 0 && b->warmup == 0)
        cli_usage_error(NULL, "--min-time %g with -w 0: the warm-up calls set the pace; give -w 1 or more", b->min_time);
}

void bench_title(const bench_t *b, int P, const mring_config_t *c, const char *row_algo, const char *topo,
                 const char *rings, char *title, size_t len)
{
    if (b->tuning)
        snprintf(title, len, "mring-bench: configuration per size from %s (%d ranks), %d iterations, "
                 "%d warm-up, check %s", b->tuning_file, P, b->iters, b->warmup, b->check ? "on" : "off");
    else if (b->mpi)
        snprintf(title, len, "mring-bench: the MPI library's MPI_Allreduce (%d ranks), %d iterations, "
                 "%d warm-up, check %s", P, b->iters, b->warmup, b->check ? "on" : "off");
    else
        snprintf(title, len, "mring-bench: %s on %s (%d ranks), rings %s, segment %lld B%s%s, %d iterations, "
                 "%d warm-up, check %s", row_algo, topo, P, rings, (long long)c->segment, b->cc.dim_algo_s ? ", dim-algo " : "",
                 b->cc.dim_algo_s ? b->cc.dim_algo_s : "", b->iters, b->warmup, b->check ? "on" : "off");
    if (b->min_time > 0) {
        size_t used = strlen(title);
        snprintf(title + used, len - used, ", more where they take less than %g s (--min-time)", b->min_time);
    }
    if (b->nalt) {
        size_t used = strlen(title);
        snprintf(title + used, len - used, "; every call alternated with %d more configuration%s (--alternate; the "
                 "config column says which row is which), each call timed alone", b->nalt, b->nalt > 1 ? "s" : "");
    }
}
