/* channel.c - in-order send/receive matching on (src, dst, tag) channels (see channel.h). */
#include "channel.h"

#include <stdlib.h>

typedef struct node {
    void *item;
    struct node *next;
} node_t;

typedef struct slot {
    uint64_t key; /* 0 = empty; keys are stored + 1 */
    int is_send;  /* kind of the queued posts */
    node_t *head, *tail;
} slot_t;

struct mring_chan_table {
    slot_t *slots;
    size_t cap, used;
    int64_t pending;
    node_t *free_nodes;
};

static uint64_t make_key(int src, int dst, uint32_t tag)
{
    return (((uint64_t)(uint16_t)src << 48) | ((uint64_t)(uint16_t)dst << 32) | tag) + 1;
}

static size_t hash(uint64_t k, size_t cap)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k & (cap - 1);
}

mring_chan_table_t *mring_chan_new(void)
{
    mring_chan_table_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->cap = 1024;
    t->slots = calloc(t->cap, sizeof *t->slots);
    if (!t->slots) {
        free(t);
        return NULL;
    }
    return t;
}

void mring_chan_free(mring_chan_table_t *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->cap; i++)
        for (node_t *n = t->slots[i].head, *next; n; n = next) {
            next = n->next;
            free(n);
        }
    for (node_t *n = t->free_nodes, *next; n; n = next) {
        next = n->next;
        free(n);
    }
    free(t->slots);
    free(t);
}

static slot_t *find(mring_chan_table_t *t, uint64_t key)
{
    for (size_t i = hash(key, t->cap);; i = (i + 1) & (t->cap - 1))
        if (t->slots[i].key == key || t->slots[i].key == 0)
            return &t->slots[i];
}

static int grow(mring_chan_table_t *t)
{
    mring_chan_table_t bigger = *t;
    bigger.cap = t->cap * 2;
    bigger.slots = calloc(bigger.cap, sizeof *bigger.slots);
    if (!bigger.slots)
        return -1;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].key)
            *find(&bigger, t->slots[i].key) = t->slots[i];
    free(t->slots);
    t->slots = bigger.slots;
    t->cap = bigger.cap;
    return 0;
}

void *mring_chan_post(mring_chan_table_t *t, int src, int dst, uint32_t tag, int is_send, void *item, int *oom)
{
    uint64_t key = make_key(src, dst, tag);
    slot_t *s;
    node_t *n;
    *oom = 0;
    if (2 * (t->used + 1) > t->cap && grow(t)) {
        *oom = 1;
        return NULL;
    }
    s = find(t, key);
    if (s->key && s->head && s->is_send != is_send) {
        n = s->head;
        s->head = n->next;
        if (!s->head)
            s->tail = NULL;
        void *matched = n->item;
        n->next = t->free_nodes;
        t->free_nodes = n;
        t->pending--;
        return matched;
    }
    if (t->free_nodes) {
        n = t->free_nodes;
        t->free_nodes = n->next;
    } else if (!(n = malloc(sizeof *n))) {
        *oom = 1;
        return NULL;
    }
    n->item = item;
    n->next = NULL;
    if (!s->key) {
        s->key = key;
        t->used++;
    }
    s->is_send = is_send;
    if (s->tail)
        s->tail->next = n;
    else
        s->head = n;
    s->tail = n;
    t->pending++;
    return NULL;
}

int64_t mring_chan_pending(const mring_chan_table_t *t) { return t->pending; }

void mring_chan_foreach(const mring_chan_table_t *t,
                        void (*fn)(int src, int dst, uint32_t tag, int is_send, void *item, void *ctx), void *ctx)
{
    for (size_t i = 0; i < t->cap; i++) {
        const slot_t *s = &t->slots[i];
        if (!s->key)
            continue;
        uint64_t k = s->key - 1;
        for (node_t *n = s->head; n; n = n->next)
            fn((int)(k >> 48), (int)((k >> 32) & 0xffff), (uint32_t)k, s->is_send, n->item, ctx);
    }
}
