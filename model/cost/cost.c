/* cost.c - the closed-form time of a configuration: its generator's closed form, or the walk (see cost.h). */
#include "cost.h"

#include "algo.h"

double mring_cost_closed(const mring_config_t *c, mring_call_t k, const mring_cost_params_t *p, int inplace)
{
    const mring_gen_t *g = mring_algo_gen(c->algo);
    if (k.count == 0) /* nothing moves: no messages, as in the schedules */
        return 0;
    return g->closed_form ? g->closed_form(c, k, p, inplace) : mring_cost_walk(c, k, p, inplace);
}
