/* cli_profiles.c - `mring profiles`: the named software profiles, their text form and their sources. */
#include "cli.h"

#include "swprof.h"

#include <stdio.h>
#include <string.h>

int cmd_profiles(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: mring profiles\n\n"
               "List the named software profiles that --profile accepts: name, text form\n"
               "(o=TIME;lat=SIZE:F,...;bw=SIZE:F,...;conn=stream|pair) and the published source of its figures.\n");
        return 0;
    }
    if (argc > 1)
        cli_usage_error("profiles", "unexpected argument '%s'; mring profiles takes none", argv[1]);
    const char *name, *spec, *source;
    for (int i = 0; (name = mring_swprof_named(i, &spec, &source)); i++)
        printf("%s\n  %s\n  source: %s\n", name, *spec ? spec : "(empty)", source);
    return 0;
}
