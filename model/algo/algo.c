/* algo.c - the generator registry and what is derived from it (see algo.h). */
#include "algo.h"

#include "gen.h"

#include <stdio.h>
#include <string.h>

/* The built-in algorithms, in their ids' order (config.h); registered ones follow. */
static const mring_gen_t *registry[MRING_MAX_ALGOS] = {
    [MRING_ALGO_MULTIRING] = &mring_gen_multiring,       [MRING_ALGO_RING] = &mring_gen_ring,
    [MRING_ALGO_RD] = &mring_gen_rd,                     [MRING_ALGO_RABENSEIFNER] = &mring_gen_rabenseifner,
    [MRING_ALGO_HIER] = &mring_gen_hier,
};
static int nalgos = MRING_NALGOS_BUILTIN;

/* Name lists for messages, rebuilt when an algorithm is registered (empty = not built yet). */
static char list_all[512], list_per_dim[256], list_dim_algo[256], list_embed[256];

static void list_add(char *buf, size_t len, const char *name)
{
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
}

static void build_lists(void)
{
    list_all[0] = list_per_dim[0] = list_dim_algo[0] = list_embed[0] = '\0';
    for (int a = 0; a < nalgos; a++) {
        list_add(list_all, sizeof list_all, registry[a]->name);
        if (registry[a]->rings == MRING_RINGS_PER_DIM)
            list_add(list_per_dim, sizeof list_per_dim, registry[a]->name);
        if (registry[a]->dim_algo_help)
            list_add(list_dim_algo, sizeof list_dim_algo, registry[a]->name);
        if (registry[a]->embed != MRING_EMBED_NONE)
            list_add(list_embed, sizeof list_embed, registry[a]->name);
    }
}

int mring_algo_count(void) { return nalgos; }

mring_topo_t mring_algo_embed_grid(const mring_config_t *c)
{
    const mring_gen_t *g = mring_algo_gen(c->algo);
    return g && g->embed == MRING_EMBED_FLAT ? mring_topo_flat(c->topo.nranks) : c->topo;
}

const mring_gen_t *mring_algo_gen(mring_algo_t a) { return a >= 0 && a < nalgos ? registry[a] : NULL; }

int mring_algo_register(const mring_gen_t *g)
{
    mring_algo_t dup;
    if (nalgos == MRING_MAX_ALGOS || !g || !g->name || !g->summary || !g->generate || !mring_algo_parse(g->name, &dup))
        return -1;
    registry[nalgos++] = g;
    build_lists();
    return nalgos - 1;
}

const char *mring_algo_name(mring_algo_t a) { return mring_algo_gen(a) ? registry[a]->name : "?"; }

int mring_algo_parse(const char *s, mring_algo_t *a)
{
    for (int i = 0; i < nalgos; i++)
        if (!strcmp(s, registry[i]->name)) {
            *a = i;
            return 0;
        }
    return -1;
}

const char *mring_algo_list(void)
{
    if (!list_all[0])
        build_lists();
    return list_all;
}

const char *mring_algo_list_per_dim(void)
{
    mring_algo_list();
    return list_per_dim;
}

const char *mring_algo_list_dim_algo(void)
{
    mring_algo_list();
    return list_dim_algo;
}

const char *mring_algo_list_embed(void)
{
    mring_algo_list();
    return list_embed;
}

static const char *const rings_rule_help[] = {
    [MRING_RINGS_ONE] = "1 only",
    [MRING_RINGS_UNIFORM] = "R",
    [MRING_RINGS_PER_DIM] = "R, or one per dimension R1,...,Rk",
};

/* Append "  label  text\n" lines, the label padded to the flag column (20 characters). */
static size_t line(char *buf, size_t len, size_t used, const char *label, const char *text)
{
    if (used < len)
        used += (size_t)snprintf(buf + used, len - used, "  %-18s%s\n", label, text);
    return used;
}

char *mring_algo_help(char *buf, size_t len)
{
    char text[256];
    size_t used = 0;
    buf[0] = '\0';
    snprintf(text, sizeof text, "algorithm (default %s):", registry[0]->name);
    used = line(buf, len, used, "--algo A", text);
    for (int a = 0; a < nalgos; a++) {
        snprintf(text, sizeof text, "  %-13s %s", registry[a]->name, registry[a]->summary);
        used = line(buf, len, used, "", text);
    }
    used = line(buf, len, used, "--rings R", "rings (streams) per dimension, default 1; ring j runs forward for even j,");
    used = line(buf, len, used, "", "backward for odd j; each algorithm takes:");
    for (int a = 0; a < nalgos; a++) {
        snprintf(text, sizeof text, "  %-13s %s", registry[a]->name, rings_rule_help[registry[a]->rings]);
        used = line(buf, len, used, "", text);
    }
    used = line(buf, len, used, "--dim-algo LIST", "ring (default), rabenseifner (recursive halving/doubling) or rd");
    used = line(buf, len, used, "", "(recursive doubling), once or per dimension (e.g. ring,rabenseifner,ring);");
    used = line(buf, len, used, "", "it means, for");
    for (int a = 0; a < nalgos; a++)
        if (registry[a]->dim_algo_help) {
            snprintf(text, sizeof text, "  %-13s %s", registry[a]->name, registry[a]->dim_algo_help);
            used = line(buf, len, used, "", text);
        }
    return buf;
}

int mring_algo_candidates(const mring_topo_t *topo, int natural, mring_cand_sink_t *s)
{
    for (int a = 0; a < nalgos; a++) {
        mring_config_t c;
        if (registry[a]->candidates) {
            if (registry[a]->candidates(topo, natural, s))
                return -1;
        } else if (natural) {
            mring_config_default(&c, topo);
            c.algo = a;
            if (s->add(s, &c))
                return -1;
        }
    }
    return 0;
}

int mring_generate(const mring_config_t *c, mring_call_t k, int rank, mring_rank_sched_t *out)
{
    return registry[c->algo]->generate(c, k, rank, out);
}
