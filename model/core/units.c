/* units.c - sizes with K/M/G suffixes and SimGrid time/bandwidth units (see units.h). */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int mring_parse_size(const char *s, int64_t *bytes)
{
    char *end;
    unsigned long long v;
    int shift = 0;
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    case 'T': shift = 40; end++; break;
    default: break;
    }
    if (*end == 'B')
        end++;
    if (*end != '\0')
        return -1;
    if (v > ((unsigned long long)INT64_MAX >> shift))
        return -1;
    *bytes = (int64_t)(v << shift);
    return 0;
}

typedef struct unit {
    const char *name;
    double factor;
} unit_t;

static int parse_with_units(const char *s, const unit_t *units, double *out)
{
    char *end;
    double v;
    if (!s || !*s || isspace((unsigned char)*s))
        return -1;
    errno = 0;
    v = strtod(s, &end);
    if (end == s || errno || !isfinite(v) || v < 0)
        return -1;
    if (*end == '\0') {
        *out = v;
        return 0;
    }
    for (const unit_t *u = units; u->name; u++)
        if (!strcmp(end, u->name)) {
            *out = v * u->factor;
            return isfinite(*out) ? 0 : -1; /* 1e300GBps overflows to inf, which SimGrid refuses */
        }
    return -1;
}

int mring_parse_time(const char *s, double *seconds)
{
    static const unit_t units[] = {{"s", 1},       {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9},
                                   {"ps", 1e-12},  {"m", 60},    {"h", 3600},  {"d", 86400},
                                   {"w", 604800},  {NULL, 0}};
    return parse_with_units(s, units, seconds);
}

int mring_parse_bandwidth(const char *s, double *bytes_per_s)
{
    static const unit_t units[] = {
        {"Bps", 1},          {"kBps", 1e3},       {"KBps", 1e3},       {"MBps", 1e6},
        {"GBps", 1e9},       {"TBps", 1e12},      {"KiBps", 1024.0},   {"MiBps", 1048576.0},
        {"GiBps", 1073741824.0}, {"TiBps", 1099511627776.0},
        {"bps", 1 / 8.0},    {"kbps", 1e3 / 8},   {"Kbps", 1e3 / 8},   {"Mbps", 1e6 / 8},
        {"Gbps", 1e9 / 8},   {"Tbps", 1e12 / 8},  {"Kibps", 1024.0 / 8}, {"Mibps", 1048576.0 / 8},
        {"Gibps", 1073741824.0 / 8}, {"Tibps", 1099511627776.0 / 8}, {NULL, 0}};
    double v;
    if (parse_with_units(s, units, &v) || v <= 0)
        return -1;
    *bytes_per_s = v;
    return 0;
}
