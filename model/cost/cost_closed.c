/* cost_closed.c - the step evaluator the closed forms are written with (see cost.h). */
#include "cost_closed.h"

#include <stdlib.h>
#include <string.h>

int mring_cost_step(const mring_config_t *c, const mring_cost_params_t *p, int S, const int *to,
                    const double *bytes, const double *red, double *tmax, double *link, double *cpu)
{
    int P = c->topo.nranks, nd = c->topo.ndims;
    int *port = calloc((size_t)nd * (size_t)P, sizeof *port); /* flows per (port, port group) */
    if (!port)
        return -1;
    for (int j = 0; j < S; j++)
        tmax[j] = link[j] = cpu[j] = 0;
    for (int f = 0; f < P * S; f++)
        if (to[f] >= 0) {
            int ld = mring_topo_link_dim(&c->topo, f / S, to[f]);
            if (p->link[ld].share > 0)
                port[p->link[ld].port * P + (f / S) / p->link[ld].share]++;
        }
    for (int r = 0; r < P; r++) {
        int mg = 0, flows = 0;
        for (int j = 0; j < S; j++) {
            mg += red[r * S + j] > 0;
            flows += to[r * S + j] >= 0;
        }
        for (int j = 0; j < S; j++) {
            int f = r * S + j, ld, m = 0;
            if (to[f] < 0)
                continue;
            ld = mring_topo_link_dim(&c->topo, r, to[f]);
            if (p->link[ld].share > 0)
                m = port[p->link[ld].port * P + r / p->link[ld].share];
            else
                for (int k = 0; k < S; k++)
                    m += to[r * S + k] == to[f];
            /* o at the sender and at the receiver, each shared by the rank's flows of the step */
            double msg = mring_cost_msg(p, ld, bytes[f], m), busy = mring_cost_msg_busy(p, ld, bytes[f], m),
                   host = 2 * flows * p->sw.o + mring_cost_compute(p, red[f], mg, 0), t = msg + host;
            /* a link takes a message per its bytes' time, or per half its whole time where latency rules:
             * two messages of a stream to one peer are in flight at once (MRING_SEND_WINDOW) */
            busy = busy > msg / MRING_SEND_WINDOW ? busy : msg / MRING_SEND_WINDOW;
            tmax[j] = t > tmax[j] ? t : tmax[j];
            link[j] = busy > link[j] ? busy : link[j];
            cpu[j] = host > cpu[j] ? host : cpu[j];
        }
    }
    free(port);
    return 0;
}

int mring_cost_flows_init(mring_flows_t *f, const mring_config_t *c, int S)
{
    size_t n = (size_t)c->topo.nranks * (size_t)S;
    memset(f, 0, sizeof *f);
    f->S = S;
    f->to = malloc(n * sizeof *f->to);
    f->bytes = calloc(n, sizeof *f->bytes);
    f->red = calloc(n, sizeof *f->red);
    f->tmax = calloc((size_t)S, sizeof *f->tmax);
    f->total = calloc((size_t)S, sizeof *f->total);
    f->lmax = calloc((size_t)S, sizeof *f->lmax);
    f->cmax = calloc((size_t)S, sizeof *f->cmax);
    f->link = calloc((size_t)S, sizeof *f->link);
    f->cpu = calloc((size_t)S, sizeof *f->cpu);
    if (!f->to || !f->bytes || !f->red || !f->tmax || !f->total || !f->lmax || !f->cmax || !f->link || !f->cpu) {
        mring_cost_flows_free(f);
        return -1;
    }
    mring_cost_flows_clear(f, c);
    return 0;
}

void mring_cost_flows_clear(mring_flows_t *f, const mring_config_t *c)
{
    size_t n = (size_t)c->topo.nranks * (size_t)f->S;
    for (size_t i = 0; i < n; i++) {
        f->to[i] = -1;
        f->bytes[i] = f->red[i] = 0;
    }
}

int mring_cost_flows_add(mring_flows_t *f, const mring_config_t *c, const mring_cost_params_t *p, double times)
{
    if (mring_cost_step(c, p, f->S, f->to, f->bytes, f->red, f->tmax, f->lmax, f->cmax))
        return -1;
    for (int j = 0; j < f->S; j++) {
        f->total[j] += times * f->tmax[j];
        f->link[j] += times * f->lmax[j];
        f->cpu[j] += times * f->cmax[j];
    }
    mring_cost_flows_clear(f, c);
    return 0;
}

double mring_cost_flows_result(const mring_flows_t *f)
{
    double t = 0;
    for (int j = 0; j < f->S; j++)
        if (f->total[j] > t)
            t = f->total[j];
    return t;
}

void mring_cost_flows_free(mring_flows_t *f)
{
    free(f->to);
    free(f->bytes);
    free(f->red);
    free(f->tmax);
    free(f->total);
    free(f->lmax);
    free(f->cmax);
    free(f->link);
    free(f->cpu);
    memset(f, 0, sizeof *f);
}
