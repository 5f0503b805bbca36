/* sim_trace.h - a rank's ops from a trace file of `mring simulate --trace` or `mring-bench --trace`
 * (model/exec/trace.c's Chrome trace events: each op one "b" and one "e" event with the same id), for the
 * tests that time single ops or compare a measured timeline with a simulated one.
 * Header-only; include after <cmocka.h> and <jansson.h>.
 */
#ifndef MRING_TESTS_SIM_TRACE_H
#define MRING_TESTS_SIM_TRACE_H

#include <stdio.h>
#include <string.h>

typedef struct {
    char name[64]; /* the event's name without its peer: "ring 0 RS d2 s0 RECV" */
    char full[96]; /* the event's whole name: "ring 0 RS d2 s0 RECV from 2" */
    char id[24];
    double start, end; /* us; -1 until seen */
} sim_trace_op_t;

/* Rank `rank`'s ops among trace events `events`, in the order they began, into ops[0..max-1]; returns
 * how many.  Fails the test on more than max ops or an op without its end. */
static inline int sim_trace_ops(json_t *events, int rank, sim_trace_op_t *ops, int max)
{
    int n = 0;
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e)
    {
        const char *nm = json_string_value(json_object_get(e, "name")), *ph = json_string_value(json_object_get(e, "ph")),
                   *id = json_string_value(json_object_get(e, "id"));
        double ts = json_real_value(json_object_get(e, "ts"));
        if (!nm || !ph || !id || json_integer_value(json_object_get(e, "pid")) != rank)
            continue;
        if (!strcmp(ph, "b")) {
            if (n == max)
                fail_msg("rank %d has more than %d ops in the trace", rank, max);
            sim_trace_op_t *o = &ops[n++];
            snprintf(o->name, sizeof o->name, "%s", nm);
            snprintf(o->full, sizeof o->full, "%s", nm);
            char *peer = strstr(o->name, " from ") ? strstr(o->name, " from ") : strstr(o->name, " to ");
            if (peer)
                *peer = '\0';
            snprintf(o->id, sizeof o->id, "%s", id);
            o->start = ts;
            o->end = -1;
        } else if (!strcmp(ph, "e")) {
            for (int k = n - 1; k >= 0; k--)
                if (!strcmp(ops[k].id, id)) {
                    ops[k].end = ts;
                    break;
                }
        }
    }
    for (int k = 0; k < n; k++)
        if (ops[k].end < 0)
            fail_msg("rank %d's '%s' has no end in the trace", rank, ops[k].name);
    return n;
}

/* The op of ops[0..n-1] named name (as sim_trace_ops names them); fails the test when there is none. */
static inline const sim_trace_op_t *sim_trace_find(const sim_trace_op_t *ops, int n, const char *name)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(ops[k].name, name))
            return &ops[k];
    fail_msg("no op '%s' in the trace", name);
    return NULL;
}

#endif
