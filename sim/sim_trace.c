/* sim_trace.c - Chrome/Perfetto trace-event JSON of a simulated allreduce (see sim.h). */
#include "sim.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *short_phase(int phase)
{
    static const char *const n[] = {"copy", "RS", "AG", "reduce", "bcast", "exchange"};
    return phase >= 0 && phase < MRING_NPHASES ? n[phase] : "?";
}

/* One op as an async slice (a "b" and an "e" event with the same id): a stream's ops overlap in time
 * (pieces in flight, a send beside a receive), and async slices need not nest as "X" slices must. */
static int event(json_t *events, const mring_sim_event_t *e, int64_t id)
{
    char name[96], buf[24];
    const mring_op_t *op = e->op;
    if (op->kind == MRING_OP_SEND || op->kind == MRING_OP_RECV)
        snprintf(name, sizeof name, "ring %d %s d%d s%u %s %s %d", e->stream, short_phase(op->phase), op->dim + 1,
                 (unsigned)op->step, mring_opkind_name(op->kind), op->kind == MRING_OP_SEND ? "to" : "from", op->peer);
    else
        snprintf(name, sizeof name, "ring %d %s d%d s%u %s", e->stream, short_phase(op->phase), op->dim + 1,
                 (unsigned)op->step, mring_opkind_name(op->kind));
    snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)id);
    return json_array_append_new(events, json_pack("{s:s,s:s,s:s,s:s,s:f,s:i,s:i,s:{s:s,s:I,s:I}}", "name", name,
                                                   "cat", mring_phase_name(op->phase), "ph", "b", "id", buf, "ts",
                                                   e->start * 1e6, "pid", e->rank, "tid", e->stream, "args", "buffer",
                                                   mring_buf_name(op->buf), "offset", (json_int_t)op->off, "count",
                                                   (json_int_t)op->count)) ||
           json_array_append_new(events, json_pack("{s:s,s:s,s:s,s:s,s:f,s:i,s:i}", "name", name, "cat",
                                                   mring_phase_name(op->phase), "ph", "e", "id", buf, "ts",
                                                   e->end * 1e6, "pid", e->rank, "tid", e->stream));
}

static int add_names(json_t *events, const mring_sim_result_t *res)
{
    for (int r = 0; r < res->nranks; r++) {
        char name[32];
        snprintf(name, sizeof name, "rank %d", r);
        if (json_array_append_new(events, json_pack("{s:s,s:s,s:i,s:{s:s}}", "name", "process_name", "ph", "M",
                                                    "pid", r, "args", "name", name)))
            return -1;
        for (int j = 0; res->scheds && j < res->scheds[r].nstreams; j++) {
            snprintf(name, sizeof name, "ring %d", j);
            if (json_array_append_new(events, json_pack("{s:s,s:s,s:i,s:i,s:{s:s}}", "name", "thread_name", "ph",
                                                        "M", "pid", r, "tid", j, "args", "name", name)))
                return -1;
        }
    }
    return 0;
}

int mring_sim_write_trace(const mring_sim_result_t *res, const char *path, char *err, size_t errlen)
{
    json_t *events = json_array(), *doc;
    char tmp[4096];
    int rc = -1;
    if (!events || add_names(events, res))
        goto oom;
    for (int64_t i = 0; i < res->nevents; i++)
        if (event(events, &res->events[i], i))
            goto oom;
    doc = json_pack("{s:o,s:s}", "traceEvents", events, "displayTimeUnit", "ns");
    events = NULL;
    if (!doc)
        goto oom;
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    if (json_dump_file(doc, tmp, JSON_COMPACT) || rename(tmp, path)) {
        snprintf(err, errlen, "cannot write the trace %s", path);
        unlink(tmp);
    } else {
        rc = 0;
    }
    json_decref(doc);
    return rc;
oom:
    json_decref(events);
    snprintf(err, errlen, "out of memory writing the trace");
    return -1;
}
