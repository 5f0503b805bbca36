/*
 * cli.h - what the `mring` subcommands share beyond cli/args.h: SimGrid's --cfg options, loading a
 * platform, and the subcommands themselves (one cli_*.c file each).
 */
#ifndef MRING_CLI_H
#define MRING_CLI_H

#include "args.h"

/* ---- the SimGrid commands (cli_sg.c, built with SimGrid) ---- */
#define CLI_MAX_CFGS 64
/* SimGrid --cfg options collected from the command line ("--cfg=name:value"), and --profile. */
typedef struct cli_cfgs {
    const char *argv[CLI_MAX_CFGS];
    char buf[CLI_MAX_CFGS][256];
    int n;
    int has_profile;
    mring_swprof_t profile; /* --profile: replaces the platform's mring_sw */
} cli_cfgs_t;
#define CLI_CFG_OPTION {"cfg", required_argument, 0, OPT_CFG}, {"profile", required_argument, 0, OPT_PROFILE}
/* The help of --profile (simulate, tune, scaling, model). */
#define CLI_PROFILE_HELP                                                                                           \
    "  --profile P       software costs of the stack (replacing the platform's mring_sw): a name\n"               \
    "                    (mring profiles lists them) or o=TIME;lat=SIZE:F,...;bw=SIZE:F,...;conn=C (o: CPU\n"      \
    "                    per message at each end, LogGP's o; lat/bw: latency and bandwidth factors from SIZE\n"    \
    "                    bytes up, as SMPI's; conn: stream (default), a connection per stream, or pair, one\n"    \
    "                    ordered connection per pair of ranks carrying every stream's messages in issue\n"        \
    "                    order, as MPI over TCP; simulated only, mring model keeps a connection per stream)\n"
/* Handle --cfg NAME:VALUE and --profile P (returns 1 if opt was one of them); exits 2 on a bad value. */
int cli_cfg_opt(const char *cmd, cli_cfgs_t *c, int opt, const char *arg);
struct mring_platform;
/* Load a platform (sim.h) or exit: 2 for a bad platform, 1 otherwise. cfgs may be NULL; its --profile
 * replaces the platform's. */
void cli_platform_load(const char *cmd, const cli_cfgs_t *cfgs, const char *file, struct mring_platform *pf);
/* --embed auto: search pf's routes (mring_embed_search) for the configuration of cc's other flags and
 * put the cycles found (buf, len bytes) in cc->embed_s; nothing when --embed is not auto.  Exits 2
 * when the configuration takes no embedding. */
void cli_embed_auto(const char *cmd, const struct mring_platform *pf, cli_conf_t *cc, char *buf, size_t len);
/* Default --topo to the platform's mring_topo (formatted into buf); exit 2 when its rank count differs. */
void cli_platform_topo(const char *cmd, const struct mring_platform *pf, cli_conf_t *cc, char *buf, size_t len);

int cmd_schedule(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_platform(int argc, char **argv);
int cmd_route(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_scaling(int argc, char **argv);
int cmd_workload(int argc, char **argv);
int cmd_profiles(int argc, char **argv);

#endif
