/*
 * args.h - the command-line helpers every mring program shares (mring, mring-bench,
 * mring-calibrate): error reporting (one line on stderr, exit status 2 for bad input, 1 for a
 * run-time failure), getopt_long with named errors, value parsers, the flags that describe an
 * allreduce configuration (built by model/config's mring_config_parse) and nccl-tests' size sweep.
 * Nothing here depends on SimGrid or MPI.
 */
#ifndef MRING_ARGS_H
#define MRING_ARGS_H

#include "config.h"
#include "dtype.h"
#include "report.h"
#include "swprof.h"

#include <getopt.h>
#include <stdint.h>

/* For other programs (mring-bench): the name in messages, silent = 1 to print nothing (MPI ranks
 * other than 0), and a hook run before exit (MPI_Finalize). */
void cli_set_program(const char *name, int silent, void (*hook)(int status));

/* Print "mring CMD: message" on stderr and exit with status 2 (bad input). */
_Noreturn void cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print "mring CMD: message" on stderr and exit with status 1 (run-time failure). */
_Noreturn void cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* getopt_long with opterr off: unknown or incomplete options become a usage error naming them. */
int cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts, const struct option *longopts);

/* Value parsers: exit 2 naming the flag and the bad value. */
/* An output file named by FLAG (e.g. "--out") must be writable before any work: a file path (not empty,
 * not "-", not a directory or other non-regular file) in a directory this process may write into, and the
 * file itself writable when it exists.  Otherwise one line naming the path and exit 2 (the outputs are
 * written whole, to a temporary name renamed over the path, so nothing is half-written either). */
void cli_check_output(const char *cmd, const char *flag, const char *path);

int64_t cli_size(const char *cmd, const char *flag, const char *s);   /* K/M/G powers of two */
int64_t cli_int64(const char *cmd, const char *flag, const char *s);  /* a non-negative integer */
int cli_int(const char *cmd, const char *flag, const char *s, int lo, int hi);
double cli_double(const char *cmd, const char *flag, const char *s, double lo);

/* The configuration flags: --topo --algo --rings --segment --type --dim-algo --chunks --embed. */
typedef struct cli_conf {
    const char *topo_s, *algo_s, *rings_s, *type_s, *segment_s, *dim_algo_s, *chunks_s, *embed_s;
} cli_conf_t;

/* Handle a configuration flag (returns 1 if opt was one). */
int cli_conf_opt(cli_conf_t *cc, int opt, const char *arg);

/* The configuration options, to splice into a getopt_long table; values >= 1000. */
enum { OPT_TOPO = 1000, OPT_ALGO, OPT_RINGS, OPT_SEGMENT, OPT_TYPE, OPT_DIM_ALGO, OPT_CHUNKS, OPT_EMBED, OPT_CFG, OPT_PROFILE, OPT_FIRST_FREE };
#define CLI_CONF_OPTIONS                                                                                         \
    {"topo", required_argument, 0, OPT_TOPO}, {"algo", required_argument, 0, OPT_ALGO},                          \
        {"rings", required_argument, 0, OPT_RINGS}, {"segment", required_argument, 0, OPT_SEGMENT},              \
        {"type", required_argument, 0, OPT_TYPE}, {"dim-algo", required_argument, 0, OPT_DIM_ALGO},             \
        {"chunks", required_argument, 0, OPT_CHUNKS}, {"embed", required_argument, 0, OPT_EMBED}

/* Help text of the configuration options, derived from the algorithm registry (algo.h). */
const char *cli_conf_help(void);

/* Build the configuration from the flags (mring_config_fields_read; not yet checked: cli_conf_check) and the
 * element type; algo_s may be "all" only when allow_all (then algo = multiring and *all = 1).  Exits 2 on
 * bad input. */
void cli_conf_build(const char *cmd, const cli_conf_t *cc, int allow_all, int *all, mring_config_t *c,
                    mring_dtype_t *dtype);

/* Append "; <the whole configuration as flags>" to a report's title (len bytes) when c has chunks or an
 * embedding, which the title's other words do not say. */
void cli_title_config(char *title, size_t len, const mring_config_t *c);

/* Check c and a call of elements of elsize bytes on it; exit 2 naming the bad value if the algorithm refuses it. */
void cli_conf_check(const char *cmd, const mring_config_t *c, size_t elsize);

/* The calls of sizes[0 .. n-1] bytes on c (mring_call_check with the largest: a --segment that cuts it into too
 * many pieces), before any work; exits 2 naming the reason otherwise. */
void cli_sizes_check(const char *cmd, const mring_config_t *c, size_t elsize, const int64_t *sizes, int n);

/* The size sweep flags of nccl-tests: -b MIN -e MAX with -f FACTOR or -i STEP (default 32M..32M, x2). */
typedef struct cli_sweep {
    int64_t minb, maxb, step;
    double factor;
    const char *min_s, *max_s, *factor_s;
} cli_sweep_t;
#define CLI_SWEEP_OPTIONS                                                                                        \
    {"minbytes", required_argument, 0, 'b'}, {"maxbytes", required_argument, 0, 'e'},                            \
        {"stepfactor", required_argument, 0, 'f'}, {"stepbytes", required_argument, 0, 'i'}
cli_sweep_t cli_sweep_default(void);
/* Handle -b/-e/-f/-i (returns 1 if opt was one); exits 2 on a bad value. */
int cli_sweep_opt(const char *cmd, cli_sweep_t *sw, int opt, const char *arg);
/* The sizes, each rounded down to whole elements of elsize bytes, without repeats.  Exits 2 when -e < -b,
 * both -f and -i were given, or the sweep has more than `max` sizes.  Returns how many. */
int cli_sweep_sizes(const char *cmd, const cli_sweep_t *sw, int64_t elsize, int64_t *out, int max);

/* Exit 2 naming both when op is not defined on type t (mring_op_valid: MPI 4.0's table), as OPFLAG and TYPEFLAG
 * ("--op" and "--type", or mring-bench's "-o" and "-d"). */
void cli_op_check(const char *cmd, mring_dtype_t t, mring_redop_t op, const char *opflag, const char *typeflag);

/* Parse --profile's value into *sw or exit 2 naming the bad part. */
void cli_profile_parse(const char *cmd, const char *arg, mring_swprof_t *sw);

#endif
