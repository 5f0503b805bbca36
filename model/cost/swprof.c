/* swprof.c - software profiles: parsing, the text form, factor lookup, the named profiles (swprof.h). */
#include "swprof.h"

#include "units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Named profiles, each with its source (the long form in platforms/SOURCES.md, "Software profiles").
 * mpi-tcp: the defaults of SimGrid 3.32's smpi/lat-factor and smpi/bw-factor (read from the library with
 * simgrid::config::get_value; the piecewise method is Degomme et al., IEEE TPDS 28(8), 2017).
 * nccl2: NCCL 2.x's own ring cost model (NVIDIA/nccl src/graph/tuning.cc, Simple protocol, the one NCCL 2.x
 * runs for bandwidth-bound sizes): a step costs 3.4 us over NVLink and 9.6 us over the network.  Solved for
 * o and one latency factor L on the shipped platforms' routes (an NVLink hop of 0.5 us, a GPU-to-GPU route
 * between nodes of 3.5 us, minsky-64): 0.5 L + 2o = 3.4 and 3.5 L + 2o = 9.6 give L = 2.07, o = 1.18 us.
 * mpi-ib: half of MVAPICH's 1.4 us one-way latency of a short message over ConnectX InfiniBand (J. Squyres,
 * devel@lists.open-mpi.org, 2007, msg02158) as o at each end; the platform's wire latency comes on top, so
 * it is an upper bound.
 * gloo-tcp: half of the 55 us one-way latency (110 us round trip) of 100-byte messages over Linux TCP
 * through Intel 1 GbE NICs (serverfault.com/questions/791539, kernel 2.6) as o at each end, and SMPI's
 * TCP bandwidth factors (as mpi-tcp): Gloo moves its messages over plain TCP sockets. */
#define SMPI_TCP_BW                                                                                                \
    "bw=0:0.812084,257:0.338112,732:0.341987,1426:0.608902,3484:0.77493,5776:1.08739,9376:0.58729,15424:0.697866," \
    "65472:0.940694"
static const struct named {
    const char *name, *spec, *source;
} named[] = {
    {"none", "", "no software costs: the wire's latency and bandwidth only"},
    {"mpi-tcp",
     "lat=0:2.01467,257:1.95341,732:1.9503,1426:1.61075,3484:1.88101,5776:2.18796,9376:2.59299,15424:3.48845,"
     "65472:11.6436;" SMPI_TCP_BW,
     "SMPI's calibration of MPI over TCP/Ethernet: SimGrid 3.32's default smpi/lat-factor and smpi/bw-factor"},
    {"nccl2", "o=1.18us;lat=0:2.07",
     "NCCL 2.x ring steps (Simple protocol) of 3.4 us over NVLink and 9.6 us over the network (NVIDIA/nccl "
     "src/graph/tuning.cc), solved for o and a latency factor on 0.5 us NVLink hops and 3.5 us node-to-node routes"},
    {"mpi-ib", "o=0.7us",
     "MPI over InfiniBand: half of MVAPICH's 1.4 us short-message latency on ConnectX (devel@lists.open-mpi.org, "
     "2007) at each end; the wire's latency comes on top (an upper bound)"},
    {"gloo-tcp", "o=27.5us;" SMPI_TCP_BW,
     "Gloo over TCP: half of the 55 us one-way latency of 100-byte messages over Linux TCP and 1 GbE "
     "(serverfault.com/questions/791539) at each end, SMPI's TCP bandwidth factors"},
};

const char *mring_swprof_named(int i, const char **spec, const char **source)
{
    if (i < 0 || i >= (int)(sizeof named / sizeof named[0]))
        return NULL;
    if (spec)
        *spec = named[i].spec;
    if (source)
        *source = named[i].source;
    return named[i].name;
}

/* Bounds of a profile's values: no stack's cost is near them, and past them SimGrid 3.32 misbehaves (a bandwidth
 * factor of 1e300 never ends a 1 MiB simulation; o = 1e300 s overflows its clock: the run ends with operations
 * pending; measured 2026-12-07). */
#define MAX_FACTOR 1e6
#define MAX_O_S 1.0

/* "SIZE:FACTOR,SIZE:FACTOR,..." into pieces (sizes ascending from 0, factors in (0, MAX_FACTOR]). */
static int parse_pieces(const char *key, char *list, mring_piece_t *pc, int *n, char *err, size_t errlen)
{
    *n = 0;
    for (char *tok; (tok = strsep(&list, ","));) {
        char *colon = strchr(tok, ':'), *end;
        int64_t bytes;
        double f;
        if (!colon || *n == MRING_SW_PIECES) {
            snprintf(err, errlen, "profile %s piece '%s' is not valid; expected SIZE:FACTOR (at most %d pieces)", key,
                     tok, MRING_SW_PIECES);
            return -1;
        }
        *colon = '\0';
        f = strtod(colon + 1, &end);
        if (mring_parse_size(tok, &bytes) || (*n == 0 && bytes != 0) || (*n > 0 && bytes <= pc[*n - 1].bytes)) {
            snprintf(err, errlen, "profile %s size '%s' is not valid; sizes ascend from 0", key, tok);
            return -1;
        }
        if (end == colon + 1 || *end || !isfinite(f) || f <= 0 || f > MAX_FACTOR) {
            snprintf(err, errlen, "profile %s factor '%s' is not valid; expected a number > 0 and <= %g", key,
                     colon + 1, MAX_FACTOR);
            return -1;
        }
        pc[(*n)++] = (mring_piece_t){(double)bytes, f};
    }
    return 0;
}

static int parse_part(char *part, mring_swprof_t *sw, char *err, size_t errlen)
{
    char *eq = strchr(part, '=');
    if (!eq) {
        snprintf(err, errlen, "profile part '%s' is not valid; expected o=TIME, lat=..., bw=... or conn=...", part);
        return -1;
    }
    *eq = '\0';
    if (!strcmp(part, "o")) {
        if (mring_parse_time(eq + 1, &sw->o) || !isfinite(sw->o) || sw->o > MAX_O_S) {
            snprintf(err, errlen, "profile o '%s' is not valid; expected a time like 1.5us, at most %gs", eq + 1,
                     MAX_O_S);
            return -1;
        }
        return 0;
    }
    if (!strcmp(part, "lat"))
        return parse_pieces("lat", eq + 1, sw->lat, &sw->nlat, err, errlen);
    if (!strcmp(part, "bw"))
        return parse_pieces("bw", eq + 1, sw->bw, &sw->nbw, err, errlen);
    if (!strcmp(part, "conn")) {
        if (strcmp(eq + 1, "pair") != 0 && strcmp(eq + 1, "stream") != 0) {
            snprintf(err, errlen, "profile conn '%s' is not valid; expected stream or pair", eq + 1);
            return -1;
        }
        sw->conn_pair = !strcmp(eq + 1, "pair");
        return 0;
    }
    snprintf(err, errlen, "profile key '%s' is not known; expected o, lat, bw or conn", part);
    return -1;
}

int mring_swprof_parse(const char *s, mring_swprof_t *sw, char *err, size_t errlen)
{
    mring_swprof_t out = {0};
    const char *spec = s;
    char *copy, *rest;
    int rc = 0;
    for (int i = 0; mring_swprof_named(i, NULL, NULL); i++)
        if (!strcmp(s, mring_swprof_named(i, NULL, NULL)))
            mring_swprof_named(i, &spec, NULL);
    if (!strchr(spec, '=') && *spec) {
        char names[256] = "";
        for (int i = 0; mring_swprof_named(i, NULL, NULL); i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                     mring_swprof_named(i, NULL, NULL));
        snprintf(err, errlen, "profile '%s' is not known; expected a name (%s) or o=TIME;lat=...;bw=...", s, names);
        return -1;
    }
    if (!(rest = copy = strdup(spec))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (char *part; !rc && (part = strsep(&rest, ";"));)
        if (*part)
            rc = parse_part(part, &out, err, errlen);
    free(copy);
    if (!rc)
        *sw = out;
    return rc;
}

/* Append "lat=SIZE:FACTOR,..." (key = lat or bw) to buf at used; returns the new length. */
static size_t format_pieces(const char *key, const mring_piece_t *pc, int n, char *buf, size_t len, size_t used)
{
    if (n > 0 && used < len)
        used += (size_t)snprintf(buf + used, len - used, "%s%s=", used ? ";" : "", key);
    for (int i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%.15g:%.15g", i ? "," : "", pc[i].bytes, pc[i].factor);
    return used;
}

char *mring_swprof_format(const mring_swprof_t *sw, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    if (sw->o > 0)
        used += (size_t)snprintf(buf, len, "o=%.15gs", sw->o);
    used = format_pieces("lat", sw->lat, sw->nlat, buf, len, used);
    used = format_pieces("bw", sw->bw, sw->nbw, buf, len, used);
    if (sw->conn_pair && used < len)
        snprintf(buf + used, len - used, "%sconn=pair", used ? ";" : "");
    return buf;
}

double mring_swprof_factor(const mring_piece_t *pieces, int n, double bytes)
{
    double f = 1;
    for (int i = 0; i < n && pieces[i].bytes <= bytes; i++)
        f = pieces[i].factor;
    return f;
}

int mring_swprof_active(const mring_swprof_t *sw)
{
    for (int i = 0; i < sw->nlat; i++)
        if (sw->lat[i].factor != 1)
            return 1;
    for (int i = 0; i < sw->nbw; i++)
        if (sw->bw[i].factor != 1)
            return 1;
    return sw->o > 0 || sw->conn_pair;
}
