/* calibrate_fitonly.c - mring-calibrate --fit-only: fit "bytes seconds" pairs read from stdin, without MPI
 * (tests; refitting saved measurements such as the ring's passes of a calibration's JSON). */
#include "args.h"
#include "calibrate_report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Read "bytes seconds [stopped]" lines (blank lines and # comments skipped) into pass[]: a size no larger
 * than the line before's starts the next pass; "stopped" marks a point a stop of the machine overlapped
 * (left out of its size's median unless every pass's is: calib_median_level; a calibration JSON's
 * passes_stopped).  Returns the passes (1 when there is no line: an empty pass).
 * Exits 2 on a bad line or past CALIB_MAX_PASSES passes or MAX_POINTS pairs in one. */
static int read_passes(level_t *pass)
{
    char line[512];
    int lineno = 0, n = 1;
    level_t *l = &pass[0];
    *l = (level_t){.a = -1, .b = -1};
    while (fgets(line, sizeof line, stdin)) {
        char *s = line + strspn(line, " \t"), extra[2], word[16];
        double m, t;
        int nf;
        lineno++;
        s[strcspn(s, "#\r\n")] = '\0';
        if (!*s)
            continue;
        if ((nf = sscanf(s, "%lf %lf %15s %1s", &m, &t, word, extra)) < 2 || nf > 3 || (nf == 3 && strcmp(word, "stopped")))
            cli_usage_error(NULL, "stdin line %d '%s' is not valid; expected 'bytes seconds [stopped]'", lineno, s);
        if (!(m >= 0 && m <= 0x1p53) || m != floor(m)) /* a message is whole bytes (1024.5 was fitted as such) */
            cli_usage_error(NULL, "stdin line %d: bytes '%.17g' is not a whole number of bytes (0 .. 2^53)", lineno, m);
        if (l->n > 0 && m <= l->pt[l->n - 1].bytes) {
            if (n == CALIB_MAX_PASSES)
                cli_usage_error(NULL, "stdin line %d: more than %d passes (a size no larger than the one before "
                                "starts a pass)", lineno, CALIB_MAX_PASSES);
            l = &pass[n++];
            *l = (level_t){.a = -1, .b = -1};
        }
        if (l->n == MAX_POINTS)
            cli_usage_error(NULL, "stdin line %d: more than %d pairs in one pass", lineno, MAX_POINTS);
        l->pt[l->n++] = (point_t){.bytes = m, .time = t, .min = t, .stopped = nf == 3};
    }
    return n;
}

int calib_fit_only(int json, double o, const level_t *wire)
{
    static level_t pass[CALIB_MAX_PASSES], l;
    calib_profile_t p;
    char err[256];
    int n = read_passes(pass);
    if (calib_median_level(pass, n, &l, err, sizeof err) || calib_fit_level(&l, err, sizeof err) ||
        (o >= 0 && (calib_fit_profile(wire ? wire : &l, &l, o, &p, err, sizeof err) ||
                    calib_profile_spread(wire ? wire : &l, pass, n, &p, err, sizeof err))))
        cli_usage_error(NULL, "%s", err);
    calib_warn_unphysical(&l, "", "noise or not of one link");
    if (!json) {
        printf("# mring-calibrate --fit-only: %d pass(es), their median per size fitted by %s\n", n, calib_fit_name);
        calib_level_table("stdin", &l);
        if (o >= 0)
            calib_profile_table("stdin", "stdin", &p);
        return fflush(stdout) ? 1 : 0;
    }
    json_t *j = json_pack("{s:s, s:i, s:o}", "fit", calib_fit_name, "passes", n, "level", calib_level_json(&l));
    if (o >= 0)
        json_object_set_new(j, "profile", calib_profile_json(&p));
    return calib_print_json(j) ? 1 : 0;
}
