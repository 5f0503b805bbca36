/* calibrate_report.c - mring-calibrate's output: levels, the profile and the whole result as JSON or
 * table lines (calibrate_report.h). */
#include "calibrate_report.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

/* A level as JSON (NULL: not measured -> null).  Units in the key names: s, s/B, B/s. */
json_t *calib_level_json(const level_t *l)
{
    json_t *pts, *o;
    if (!l)
        return json_null();
    pts = json_array(); /* after the check: nothing to leak without a level */
    for (int i = 0; i < l->n; i++) {
        const point_t *p = &l->pt[i];
        json_t *bytes = p->bytes == floor(p->bytes) && p->bytes < 0x1p53 ? json_integer((json_int_t)p->bytes)
                                                                           : json_real(p->bytes);
        json_array_append_new(pts, json_pack("{s:o, s:f, s:f, s:f, s:f}", "bytes", bytes, "time_s", p->time,
                                             "fit_s", p->fit, "rel_residual", (p->time - p->fit) / p->time, "min_s",
                                             p->min));
    }
    o = json_pack("{s:f, s:f, s:f, s:f, s:f, s:o}", "alpha_s", l->alpha, "beta_s_per_byte", l->beta,
                  "bandwidth_Bps", l->beta > 0 ? 1 / l->beta : 0.0, "max_rel_residual", l->max_rel,
                  "rms_rel_residual", l->rms_rel, "points", pts);
    if (l->a >= 0) {
        json_object_set_new(o, "ranks", json_pack("[i, i]", l->a, l->b));
        json_object_set_new(o, "pairs", json_integer(l->pairs));
    }
    if (isfinite(l->u_alpha) && isfinite(l->u_beta) && isfinite(l->u_max_rel))
        json_object_set_new(o, "unweighted", json_pack("{s:f, s:f, s:f, s:f}", "alpha_s", l->u_alpha, "beta_s_per_byte",
                                                       l->u_beta, "bandwidth_Bps", l->u_beta > 0 ? 1 / l->u_beta : 0.0,
                                                       "max_rel_residual", l->u_max_rel));
    return o;
}

json_t *calib_passes_json(const level_t *pass, int n, int stopped)
{
    json_t *a = json_array();
    for (int k = 0; k < n; k++) {
        json_t *t = json_array();
        for (int i = 0; i < pass[k].n; i++)
            json_array_append_new(t, stopped ? json_boolean(pass[k].pt[i].stopped) : json_real(pass[k].pt[i].time));
        json_array_append_new(a, t);
    }
    return a;
}

/* A level as table rows: one per size (bytes, median and least measured us, fitted us, relative
 * residual %), then the fit (alpha us, beta ns/B, bandwidth GB/s, residuals %). */
void calib_level_table(const char *name, const level_t *l)
{
    if (!l) {
        printf("# %s: not measured\n", name);
        return;
    }
    printf("# %-6s %12s %12s %12s %12s %9s\n", "level", "bytes", "time_us", "min_us", "fit_us", "resid_%");
    for (int i = 0; i < l->n; i++) {
        const point_t *p = &l->pt[i];
        printf("  %-6s %12.0f %12.3f %12.3f %12.3f %9.2f\n", name, p->bytes, p->time * 1e6, p->min * 1e6,
               p->fit * 1e6, 100 * (p->time - p->fit) / p->time);
    }
    printf("# %s: alpha %.4g us, beta %.4g ns/B, bandwidth %.4g GB/s, max |residual| %.2f%%, rms %.2f%%",
           name, l->alpha * 1e6, l->beta * 1e9, l->beta > 0 ? 1e-9 / l->beta : 0.0, 100 * l->max_rel,
           100 * l->rms_rel);
    if (l->a >= 0)
        printf(" (ranks %d and %d)", l->a, l->b);
    printf("\n# %s unweighted, for comparison: alpha %.4g us, bandwidth %.4g GB/s, max |residual| %.2f%%\n", name,
           l->u_alpha * 1e6, l->u_beta > 0 ? 1e-9 / l->u_beta : 0.0, 100 * l->u_max_rel);
}

/* A fitted software profile as JSON: its text form (the platform's mring_sw), o, the wire line it scales,
 * the factors per segment and the residuals. */
json_t *calib_profile_json(const calib_profile_t *p)
{
    char text[2048];
    json_t *f = json_array();
    for (int i = 0; i < p->sw.nlat; i++)
        json_array_append_new(f, json_pack("{s:f, s:f, s:f, s:[f, f], s:[f, f]}", "from_bytes", p->sw.lat[i].bytes,
                                           "lat_factor", p->sw.lat[i].factor, "bw_factor", p->sw.bw[i].factor,
                                           "lat_factor_range", p->lat_lo[i], p->lat_hi[i], "bw_factor_range",
                                           p->bw_lo[i], p->bw_hi[i]));
    return json_pack("{s:s, s:f, s:f, s:f, s:o, s:f, s:f, s:i}", "mring_sw",
                     mring_swprof_format(&p->sw, text, sizeof text), "o_s", p->sw.o, "wire_alpha_s", p->alpha,
                     "beta_s_per_byte", p->beta, "factors", f, "max_rel_residual", p->max_rel, "rms_rel_residual",
                     p->rms_rel, "passes", p->passes);
}

/* The same as table lines. */
void calib_profile_table(const char *points, const char *wire, const calib_profile_t *p)
{
    char text[2048];
    printf("# profile (%s): o %.4g us, wire alpha %.4g us (the %s line); factors from size: lat, bw, and their\n"
           "# least and greatest over %d pass(es) fitted alone: lat_lo lat_hi bw_lo bw_hi\n", points, p->sw.o * 1e6,
           p->alpha * 1e6, wire, p->passes);
    for (int i = 0; i < p->sw.nlat; i++)
        printf("  profile %12.0f %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f\n", p->sw.lat[i].bytes, p->sw.lat[i].factor,
               p->sw.bw[i].factor, p->lat_lo[i], p->lat_hi[i], p->bw_lo[i], p->bw_hi[i]);
    printf("# profile: max |residual| %.2f%%, rms %.2f%%; mring_sw %s\n", 100 * p->max_rel, 100 * p->rms_rel,
           mring_swprof_format(&p->sw, text, sizeof text));
}

/* Print a JSON object on stdout (indented, keys in insertion order); 0 or -1. */
int calib_print_json(json_t *o)
{
    int rc = json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(o);
    return rc || printf("\n") < 0 || fflush(stdout) ? -1 : 0;
}

/* ---- the report (rank 0) ---- */

int calib_conn_pair(const calib_result_t *r)
{
    return r->conn_second > 0 && r->conn_first / r->conn_second < CALIB_CONN_PAIR_BELOW;
}

double calib_bulk_bps(const level_t *l, int flows) { return l->beta > 0 ? flows / l->beta : 0.0; }

/* A bulk test as table lines: its sizes, then the link's capacity (what names the link). */
static void bulk_table(const char *name, const char *what, const level_t *l, int flows)
{
    calib_level_table(name, l);
    printf("# %s: %d flows at once through %s: %.4g GB/s per direction\n", name, flows, what,
           calib_bulk_bps(l, flows) / 1e9);
}

/* A measurement of n passes as JSON (NULL: not measured -> null): the level (their median per size), then each
 * pass's times (passes_s) and whether a stop overlapped each point (passes_stopped). */
static json_t *passes_json(const level_t *l, const level_t *pass, int n)
{
    json_t *o = calib_level_json(l);
    if (l) {
        json_object_set_new(o, "passes_s", calib_passes_json(pass, n, 0));
        json_object_set_new(o, "passes_stopped", calib_passes_json(pass, n, 1));
    }
    return o;
}

/* A bulk test as JSON (NULL: not measured -> null): its passes, its flows and the link's capacity link_Bps. */
static json_t *bulk_json(const level_t *l, const level_t *pass, int n, int flows)
{
    json_t *o = passes_json(l, pass, n);
    if (l) {
        json_object_set_new(o, "flows", json_integer(flows));
        json_object_set_new(o, "link_Bps", json_real(calib_bulk_bps(l, flows)));
    }
    return o;
}

/* the report as commented tables (lib: the MPI library's version); 0, or 1 when stdout failed */
static int report_table(const calib_load_t *lp, int64_t reduce_bytes, const calib_result_t *r, const char *lib)
{
    printf("# mring-calibrate: %d ranks, %d per node; sizes %lld..%lld B; median of %d %s steps after %d;\n"
           "# the ring and the bulk tests: the median of %d passes (%d points of them left out: a stop overlapped\n"
           "# them); fit %s; %s\n",
           r->P, r->R, (long long)lp->minb, (long long)lp->maxb, lp->iters,
           lp->pattern == CALIB_EXCHANGE ? "exchange" : "pingpong", lp->warmup, r->passes, r->stopped,
           calib_fit_name, lib);
    calib_level_table("intra", r->intra);
    calib_level_table("inter", r->inter);
    if (r->rack)
        calib_level_table("rack", r->rack);
    if (r->ring)
        calib_level_table("ring", r->ring);
    if (r->port)
        bulk_table("port", "a rank's port inside its node (pairs exchanging, both ways)", r->port, r->port_flows);
    if (r->nic)
        bulk_table("nic", "a node's NIC", r->nic, r->nic_flows);
    if (r->uplink)
        bulk_table("uplink", "a rack's uplink", r->uplink, r->uplink_flows);
    printf("# pairs at once: %d intra, %d inter, %d rack%s; o: %.4g us per send, %.4g us per receive (8 B, inter "
           "pairs)\n", r->intra ? r->intra->pairs : 0, r->inter ? r->inter->pairs : 0, r->rack ? r->rack->pairs : 0,
           r->one_pair ? " (--one-pair)" : "",
           r->o_send * 1e6, r->o_recv * 1e6);
    if (r->conn_second > 0)
        printf("# connection: two %lld B messages to one peer at once complete after %.4g and %.4g ms (ratio %.3f):"
               " conn=%s\n", (long long)lp->maxb, r->conn_first * 1e3, r->conn_second * 1e3,
               r->conn_first / r->conn_second, calib_conn_pair(r) ? "pair" : "stream");
    if (r->prof)
        calib_profile_table("ring steps", r->prof_wire, r->prof);
    printf("# reduce: %.4g GB/s (rank 0 alone), %.4g GB/s per rank with all %d at once (float32 sum, %lld B)\n",
           r->reduce / 1e9, r->reduce_all / 1e9, r->P, (long long)reduce_bytes);
    return fflush(stdout) ? 1 : 0;
}

/* the report as one JSON object (lib: the MPI library's version); 0, or 1 when it could not be written */
static int report_json(const calib_load_t *lp, int64_t reduce_bytes, const calib_result_t *r, const char *lib)
{
    json_t *j = json_pack("{s:i, s:i, s:i, s:i, s:i, s:s, s:s, s:s}", "ranks", r->P, "ranks_per_node", r->R, "nodes",
                          (r->P + r->R - 1) / r->R, "iters", lp->iters, "warmup", lp->warmup, "pattern",
                          lp->pattern == CALIB_EXCHANGE ? "exchange" : "pingpong", "fit", calib_fit_name,
                          "mpi_library", lib);
    json_object_set_new(j, "intra", calib_level_json(r->intra));
    json_object_set_new(j, "inter", calib_level_json(r->inter));
    json_object_set_new(j, "rack", calib_level_json(r->rack));
    json_object_set_new(j, "port", bulk_json(r->port, r->port_pass, r->passes, r->port_flows));
    json_object_set_new(j, "nic", bulk_json(r->nic, r->nic_pass, r->passes, r->nic_flows));
    json_object_set_new(j, "uplink", bulk_json(r->uplink, r->uplink_pass, r->passes, r->uplink_flows));
    json_object_set_new(j, "ring", passes_json(r->ring, r->ring_pass, r->passes));
    json_object_set_new(j, "connection",
                        r->conn_second > 0
                            ? json_pack("{s:I, s:f, s:f, s:f, s:s}", "bytes", (json_int_t)lp->maxb, "first_s",
                                        r->conn_first, "second_s", r->conn_second, "ratio",
                                        r->conn_first / r->conn_second, "conn", calib_conn_pair(r) ? "pair" : "stream")
                            : json_null());
    json_object_set_new(j, "o_send_s", json_real(r->o_send));
    json_object_set_new(j, "o_recv_s", json_real(r->o_recv));
    json_t *p = json_null(); /* null: no profile could be fitted (mring-calibrate warned why) */
    if (r->prof) {
        p = calib_profile_json(r->prof);
        json_object_set_new(p, "level", json_string("ring"));
        json_object_set_new(p, "wire", json_string(r->prof_wire));
    }
    json_object_set_new(j, "profile", p);
    json_object_set_new(j, "reduce_Bps", json_real(r->reduce));
    json_object_set_new(j, "reduce_all_Bps", json_real(r->reduce_all));
    json_object_set_new(j, "reduce_bytes", json_integer((json_int_t)reduce_bytes));
    return calib_print_json(j) ? 1 : 0;
}

int calib_report(int json, const calib_load_t *lp, int64_t reduce_bytes, const calib_result_t *r)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = '\0';
    return json ? report_json(lp, reduce_bytes, r, lib) : report_table(lp, reduce_bytes, r, lib);
}

