/*
 * mring.c - the `mring` command: schedules, verification and the alpha-beta-gamma
 * model of multi-ring allreduce (the SimGrid simulation joins here as `simulate`).
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
#ifdef MRING_HAVE_SIMGRID
    {"simulate", cmd_simulate, "predicted allreduce time per size by SimGrid simulation of a platform"},
    {"tune", cmd_tune, "the best configuration per size on a platform: model-pruned, simulation-confirmed"},
    {"route", cmd_route, "the links of a platform's route between two hosts or ranks"},
    {"scaling", cmd_scaling, "predicted training throughput and scaling efficiency (workload + platform)"},
#endif
#ifdef MRING_HAVE_LIBXML2
    {"platform", cmd_platform, "write a SimGrid platform: minsky, dgx1, dgxh100, bigbasin or a generic cluster"},
#endif
    {"model", cmd_model, "predicted allreduce time per size from the alpha-beta-gamma model"},
    {"verify", cmd_verify, "prove schedules correct (matching, no deadlock, exact and identical results)"},
    {"schedule", cmd_schedule, "print one rank's schedule"},
    {"profiles", cmd_profiles, "the named software profiles (--profile): per-message costs and their sources"},
    {"workload", cmd_workload, "a training workload: gradient tensors in backward order, ready times, DDP buckets"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: mring COMMAND [options]   (mring COMMAND --help for its options)\n\n"
               "mring predicts, tunes and checks multi-ring allreduce (PowerAI DDL / BlueConnect) on a\n"
               "multi-dimensional rank grid.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nexamples (64 IBM Minsky nodes, 4 P100 each, NVLink inside a node, one EDR port per node):\n"
               "  mring tune --platform platforms/minsky-64.xml -b 1K -e 1G -f 4\n"
               "  mring simulate --platform platforms/minsky-64.xml --rings 2,1,1 -b 1K -e 1G -f 4 --breakdown\n"
               "  mring scaling --platform platforms/minsky-64.xml --workload resnet50\n"
               "  mring model --topo 4x16x4 --rings 2,1,1 \\\n"
               "      --links 1us:36GBps,2us:12.5GBps:4,2us:12.5GBps:4 --gamma 244GBps -b 1K -e 1G -f 4\n"
               "and for real, on MPI ranks: mpiexec -n 4 mring-bench --topo 2x2 --rings 2 -b 8 -e 64M -f 4\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "mring: missing command; see mring --help\n");
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "mring: unknown command '%s'; expected one of", argv[1]);
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(stderr, "%s %s", i ? "," : "", commands[i].name);
    fprintf(stderr, " (see mring --help)\n");
    return 2;
}
