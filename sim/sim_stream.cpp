// sim_stream.cpp - the SimGrid transport of the interpreter, without actors (sim_stream.h).
//
// A rank stream is an interpreter (interp.h) that the engine drives: its ops become activities started
// by the engine itself (maestro: before the run, in completion callbacks and in sim_run.c's start-time
// timers), and the completions of its activities (Activity::on_completion, SimGrid's way to run
// activities without actors) carry it on, once every completion of the current instant is in (see
// touch()), in issue order.  The semantics are those a stream actor had, blocking where it blocked:
//   - a send pays o on the sender's host (an execution its streams share) and then offers its message
//     on the channel (collective, sender, receiver, stream); the k-th message offered on a channel
//     meets the k-th receive posted on it (a mailbox's FIFO matching), and only then does the transfer
//     start: Comm::sendto between the two hosts, the platform's route and its factors;
//   - a receive completes o after its transfer has ended (an execution on the receiver's host);
//   - a reduction or copy is an execution of its bytes on the rank's host;
//   - sends to a peer go out in issue order on a connection: the stream's own (conn=stream), at most
//     MRING_SEND_WINDOW of them on the wire, or the pair of ranks' (conn=pair), which every stream of the
//     rank shares and which carries one stream's messages at a time (see pump()).
// While a stream pays o or reduces it is busy: the interpreter issues and reaps nothing for it.
#include <simgrid/forward.h> // before the C headers: it includes C++ templates when compiled as C++

extern "C" {
#include "sim_stream.h"
}

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Host.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <unordered_map>
#include <vector>

namespace sg4 = simgrid::s4u;

struct req {
    const mring_op_t *op;
    stream_ctx_t *s;
    double start;
    bool is_send, started, offered, waiting, arrived, paying, done;
    struct Conn *conn; // a send: the connection it goes out on
    req_t *peer;       // a send on the wire: the receive it meets
};

// The sends of one connection not yet finished, in issue order (see pump()).
struct Conn {
    std::deque<req_t *> sends;
};

namespace {

enum class Kind { TRANSFER, SEND_O, RECV_O, COMPUTE, INSTANT_END, CONN_WAIT };

// What an activity of ours stands for (its data).
struct Event {
    Kind kind;
    stream_ctx_t *s;
    req_t *r;             // TRANSFER, SEND_O, RECV_O
    const mring_op_t *op; // COMPUTE
    double start;         // COMPUTE
    sg4::ActivityPtr act; // keeps it alive until it has completed
    struct Conn *conn = nullptr; // CONN_WAIT
};

struct ChannelKey {
    int id, src, dst, stream;
    bool operator==(const ChannelKey &o) const
    {
        return id == o.id && src == o.src && dst == o.dst && stream == o.stream;
    }
};
struct ChannelHash {
    size_t operator()(const ChannelKey &k) const
    {
        uint64_t h = (uint64_t)(uint32_t)k.id * 0x9E3779B97F4A7C15ULL;
        h ^= ((uint64_t)(uint32_t)k.src << 32 | (uint32_t)k.dst) + 0x7F4A7C159E3779B9ULL + (h << 6) + (h >> 2);
        return (size_t)(h ^ ((uint64_t)(uint32_t)k.stream << 17));
    }
};
struct Channel {
    std::deque<req_t *> sends, recvs; // offered and posted, not yet met
};

std::unordered_map<ChannelKey, Channel, ChannelHash> channels;
std::unordered_map<ChannelKey, Conn, ChannelHash> conns; // stable references: a req keeps its Conn *
std::vector<sg4::ActivityPtr> finished; // completed activities, released at the next completion
std::vector<stream_ctx_t *> dirty;      // streams with a completion this instant, not yet carried on
bool instant_end_posted;                // the marker of this instant's end is running
bool hooked;

void record(stream_ctx_t *s, const mring_op_t *op, double start, double end)
{
    run_t *run = s->run;
    mring_sim_result_t *res = run->res;
    int ph = op->phase, d = op->dim < 0 ? 0 : op->dim;
    if (!res) /* concurrent collectives: only their end times are kept */
        return;
    start -= run->t0;
    end -= run->t0;
    if (!res->phase_seen[ph][d] || start < res->phase_start[ph][d])
        res->phase_start[ph][d] = start;
    if (!res->phase_seen[ph][d] || end > res->phase_end[ph][d])
        res->phase_end[ph][d] = end;
    res->phase_seen[ph][d] = 1;
    if (!run->trace || run->oom)
        return;
    if (res->nevents == run->capevents) {
        int64_t cap = run->capevents ? 2 * run->capevents : 4096;
        auto *ev = static_cast<mring_trace_event_t *>(realloc(res->events, (size_t)cap * sizeof(mring_trace_event_t)));
        if (!ev) {
            run->oom = 1;
            return;
        }
        res->events = ev;
        run->capevents = cap;
    }
    res->events[res->nevents++] = mring_trace_event_t{s->rank, s->stream, op, start, end};
}

void launch(sg4::ActivityPtr a, Event *e)
{
    e->act = a;
    a->set_data(e);
    a->start();
}

// An execution of `flops` on the stream's host; the stream is busy until it completes.
void execute(stream_ctx_t *s, double flops, Event *e)
{
    s->busy = 1;
    launch(sg4::Exec::init()->set_host(s->run->hosts[s->rank])->set_flops_amount(flops), e);
}

double o_flops(const stream_ctx_t *s) { return s->run->o * s->run->hosts[s->rank]->get_speed(); }

// Start transfers on a channel while a message and a receive wait there.
void meet(Channel &ch)
{
    while (!ch.sends.empty() && !ch.recvs.empty()) {
        req_t *snd = ch.sends.front(), *rcv = ch.recvs.front();
        ch.sends.pop_front();
        ch.recvs.pop_front();
        snd->peer = rcv;
        const stream_ctx_t *s = snd->s;
        auto bytes = (uint64_t)snd->op->count * (uint64_t)s->coll->k.elsize;
        launch(sg4::Comm::sendto_init(s->run->hosts[s->rank], s->run->hosts[snd->op->peer])->set_payload_size(bytes),
               new Event{Kind::TRANSFER, snd->s, snd, nullptr, 0, nullptr});
    }
}

void offer(req_t *r)
{
    const stream_ctx_t *s = r->s;
    Channel &ch = channels[ChannelKey{s->id, s->rank, r->op->peer, s->stream}];
    r->offered = true;
    ch.sends.push_back(r);
    meet(ch);
    if (s->run->conn_pair && !r->peer) { /* its receive may still be posted this instant: look again after it */
        auto *e = new Event{Kind::CONN_WAIT, nullptr, nullptr, nullptr, 0, nullptr};
        e->conn = r->conn;
        launch(sg4::Exec::init()->set_host(s->run->hosts[s->rank])->set_flops_amount(0), e);
    }
}

// Put a send on its way: the sender's o, then the offer.
void start_send(req_t *r)
{
    r->started = true;
    if (r->s->run->o > 0)
        execute(r->s, o_flops(r->s), new Event{Kind::SEND_O, r->s, r, nullptr, 0, nullptr});
    else
        offer(r);
}

// Whether started send q holds its connection: a message that has waited for its receive past the instant
// it was offered does not (it has sent no data; an MPI rendezvous waits for the receiver without blocking
// the socket), so no stream of a pair's connection waits on another stream's receive.
bool holds(const req_t *q) { return !(q->waiting && !q->peer); }

// Start the sends of connection c that may go now, in issue order: a send goes when every earlier one has
// gone and the sends that hold the connection are its own stream's, fewer than MRING_SEND_WINDOW (a
// stream's own connection: the window overlaps one piece's latency with the previous piece's transfer; a
// pair's connection: the other streams' messages wait, as bytes on one TCP socket do).
void pump(Conn &c)
{
    const stream_ctx_t *owner = nullptr;
    int on_wire = 0;
    for (req_t *q : c.sends) {
        if (!q->started) {
            if (on_wire && (q->s != owner || on_wire >= MRING_SEND_WINDOW))
                return;
            start_send(q);
        }
        if (holds(q)) {
            owner = q->s;
            on_wire++;
        }
    }
}

// r's transfer has ended and its stream has seen it: a receive pays the receiver's o (done when it has); a
// send leaves its connection, and the connection's next sends may start (the stream's progress starts them,
// as a progress engine does).
void complete(stream_ctx_t *s, req_t *r)
{
    if (!r->is_send) {
        if (s->run->o > 0 && !r->paying) {
            r->paying = true;
            execute(s, o_flops(s), new Event{Kind::RECV_O, s, r, nullptr, 0, nullptr});
        } else if (s->run->o <= 0) {
            r->done = true;
        }
        return;
    }
    r->done = true;
    std::deque<req_t *> &q = r->conn->sends;
    for (auto it = q.begin(); it != q.end(); ++it)
        if (*it == r) {
            q.erase(it);
            break;
        }
    pump(*r->conn);
}

// Sends go out on connections in issue order (pump()).  Without the window, SimGrid would share the
// bandwidth among all posted pieces of a pipelined step and deliver them all at its end, which is no
// pipeline at all; with a window of 1 every piece would pay the whole route latency in turn.  2 overlaps
// one piece's latency with the previous piece's transfer (measured on a crossbar: a 64 MiB chain in 1 MiB
// pieces within 10% of the model's pipelined walk, test_sim.c).

int t_comm(void *ctx, const mring_op_t *op, void **out, bool is_send)
{
    auto *s = static_cast<stream_ctx_t *>(ctx);
    auto *r = static_cast<req_t *>(calloc(1, sizeof(req_t)));
    if (!r)
        return -1;
    r->op = op;
    r->s = s;
    r->start = sg4::Engine::get_clock();
    r->is_send = is_send;
    *out = r;
    if (!is_send) {
        r->started = true;
        Channel &ch = channels[ChannelKey{s->id, op->peer, s->rank, s->stream}];
        ch.recvs.push_back(r);
        meet(ch);
        return 0;
    }
    // conn=pair: one connection per pair of ranks, whatever the collective and stream
    ChannelKey key = s->run->conn_pair ? ChannelKey{-1, s->rank, op->peer, -1}
                                       : ChannelKey{s->id, s->rank, op->peer, s->stream};
    r->conn = &conns[key];
    r->conn->sends.push_back(r);
    pump(*r->conn);
    return 0;
}

int t_isend(void *ctx, int, const mring_op_t *op, void **req) { return t_comm(ctx, op, req, true); }
int t_irecv(void *ctx, int, const mring_op_t *op, void **req) { return t_comm(ctx, op, req, false); }

// A reduction moves 3 bytes per byte of result, a copy 2: the host's speed is bytes of result per second.
int t_compute(stream_ctx_t *s, const mring_op_t *op, double factor, void **req)
{
    double flops = factor * (double)op->count * (double)s->coll->k.elsize, now = sg4::Engine::get_clock();
    *req = nullptr;
    if (flops > 0)
        execute(s, flops, new Event{Kind::COMPUTE, s, nullptr, op, now, nullptr});
    else
        record(s, op, now, now);
    return 0;
}

int t_reduce(void *ctx, int, const mring_op_t *op, void **req)
{
    return t_compute(static_cast<stream_ctx_t *>(ctx), op, 1.0, req);
}

int t_copy(void *ctx, int, const mring_op_t *op, void **req)
{
    return t_compute(static_cast<stream_ctx_t *>(ctx), op, 2.0 / 3.0, req);
}

int t_test(void *ctx, void *vreq, int *done)
{
    auto *s = static_cast<stream_ctx_t *>(ctx);
    auto *r = static_cast<req_t *>(vreq);
    if (!r->done && r->arrived)
        complete(s, r);
    *done = r->done;
    if (r->done) {
        record(s, r->op, r->start, sg4::Engine::get_clock());
        free(r);
    }
    return 0;
}

int t_busy(void *ctx) { return static_cast<stream_ctx_t *>(ctx)->busy; }

// Carry stream s on as far as it goes now.
void carry_on(stream_ctx_t *s)
{
    int rc;
    if (s->busy || s->done || s->failed || !s->started)
        return;
    while ((rc = mring_interp_progress(&s->it)) == MRING_INTERP_PROGRESS && !s->busy)
        ;
    if (rc == MRING_INTERP_ERROR) {
        s->failed = 1;
    } else if (rc == MRING_INTERP_DONE && !s->busy) {
        s->done = 1;
        s->end = sg4::Engine::get_clock();
        if (s->run->on_done)
            s->run->on_done(s);
    }
}

// The end of this instant: SimGrid completes every activity that ends at the current time before it
// moves on, so an execution of 0 flops started now completes after all of them.  Only then do the
// streams those completions concern move, each seeing all of them at once, as an actor woken at this
// time would (a stream whose receive and send end together reduces after noticing both).
void touch(stream_ctx_t *s)
{
    if (!s->dirty) {
        s->dirty = 1;
        dirty.push_back(s);
    }
    if (!instant_end_posted) {
        instant_end_posted = true;
        launch(sg4::Exec::init()->set_host(s->run->hosts[0])->set_flops_amount(0),
               new Event{Kind::INSTANT_END, nullptr, nullptr, nullptr, 0, nullptr});
    }
}

void end_instant()
{
    std::vector<stream_ctx_t *> now;
    instant_end_posted = false;
    now.swap(dirty);
    if (!now.empty() && now[0]->run->conn_pair) /* streams post to shared connections in the executor's order */
        std::sort(now.begin(), now.end(), [](const stream_ctx_t *a, const stream_ctx_t *b) {
            return a->rank != b->rank ? a->rank < b->rank : a->id != b->id ? a->id < b->id : a->stream < b->stream;
        });
    for (stream_ctx_t *s : now) {
        s->dirty = 0;
        carry_on(s);
    }
}

void on_completion(const sg4::Activity &a)
{
    auto *e = a.get_data<Event>();
    if (!e)
        return;
    finished.clear(); // the activities of earlier completions: the engine is done with them
    finished.push_back(std::move(e->act));
    stream_ctx_t *s = e->s;
    switch (e->kind) {
    case Kind::TRANSFER: {
        req_t *rcv = e->r->peer;
        e->r->arrived = rcv->arrived = true;
        touch(s);
        touch(rcv->s);
        break;
    }
    case Kind::SEND_O:
        s->busy = 0;
        offer(e->r);
        touch(s);
        break;
    case Kind::CONN_WAIT: /* the instant of an offer is over: sends still unmatched let the next ones go */
        for (req_t *q : e->conn->sends)
            q->waiting = q->offered && !q->peer;
        pump(*e->conn);
        break;
    case Kind::RECV_O:
        s->busy = 0;
        e->r->done = true;
        touch(s);
        break;
    case Kind::COMPUTE:
        record(s, e->op, e->start, sg4::Engine::get_clock());
        s->busy = 0;
        touch(s);
        break;
    case Kind::INSTANT_END:
        end_instant();
        break;
    }
    delete e;
}

} // namespace

extern "C" int mring_sim_stream_start(stream_ctx_t *s)
{
    if (!hooked) {
        sg4::Activity::on_completion_cb(on_completion);
        hooked = true;
    }
    s->tp = mring_transport_t{s, t_isend, t_irecv, t_reduce, t_copy, t_test, nullptr, t_busy};
    if (mring_interp_init(&s->it, &s->view, &s->tp, s->run->inplace)) {
        s->failed = 1;
        return -1;
    }
    s->started = 1;
    carry_on(s);
    return 0;
}

extern "C" void mring_sim_at(double date, void (*fn)(void *arg), void *arg)
{
    simgrid::kernel::timer::Timer::set(date, [fn, arg]() { fn(arg); });
}

extern "C" void mring_sim_stream_cleanup(void)
{
    channels.clear();
    conns.clear();
    finished.clear();
    dirty.clear();
    instant_end_posted = false;
}
