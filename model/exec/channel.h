/*
 * channel.h - in-order message matching between posted sends and receives,
 * for the in-process back ends (cost walker, loopback, verifier).
 *
 * A channel is (source rank, destination rank, tag).  Messages on a channel
 * match in posting order, as MPI's non-overtaking rule and SimGrid's mailboxes
 * guarantee: the k-th send posted on a channel matches the k-th receive.
 */
#ifndef MRING_CHANNEL_H
#define MRING_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

typedef struct mring_chan_table mring_chan_table_t;

mring_chan_table_t *mring_chan_new(void);
void mring_chan_free(mring_chan_table_t *t);

/*
 * Post a send (is_send = 1) or receive on channel (src, dst, tag) carrying the
 * caller's item.  If the oldest unmatched post on the channel is of the other
 * kind it is removed and returned (the match); otherwise item is queued and
 * NULL is returned.  Returns NULL with *oom = 1 when out of memory.
 */
void *mring_chan_post(mring_chan_table_t *t, int src, int dst, uint32_t tag, int is_send, void *item, int *oom);

/* Number of posts still unmatched. */
int64_t mring_chan_pending(const mring_chan_table_t *t);

/* Call fn(src, dst, tag, is_send, item, ctx) for each unmatched post (for error reports). */
void mring_chan_foreach(const mring_chan_table_t *t,
                        void (*fn)(int src, int dst, uint32_t tag, int is_send, void *item, void *ctx), void *ctx);

#endif
