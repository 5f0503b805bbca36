# validation/testbed-pairs.sh - sourced by validation/testbed: one queue per pair of ranks on a shaped link
# (up --queues pair).
#
# Why.  With one FIFO per link, TCP connections share a link in proportion to what each has queued, and
# cubic keeps queueing until the FIFO overflows.  On 2x4 at 250mbit a NIC carries 4 connections when
# the multiring runs 2 rings; each may hold up to 4 MiB in its send buffer, the FIFO holds 100 ms (3.1
# MB), and the losses end in retransmission timeouts (2 rings with 4 chunks at 64 MiB: 3.42-6.98 s a
# call for 3.34 simulated, 24-31 timeouts a job).  A deep FIFO removed the losses but slowed the
# multirings at 1-4 MiB, and a small send buffer the plain multiring (validation/README.md).
# An InfiniBand link, which the simulator's platform describes, loses nothing (credit-based flow
# control) and its switches arbitrate between the flows it carries; SimGrid shares a link among its
# flows max-min fairly.  So with --queues pair, data on a shaped link waits in one byte FIFO per ordered
# (source rank, destination rank) pair that can cross the link, each large enough for a connection's
# whole send buffer (so it does not drop), and htb serves the pairs' FIFOs round robin, two frames at a
# time (deficit round robin among classes of one priority, quantum 2 frames, the tbf's peak bucket;
# --pair-turn),
# after the payload-less segments of class 2:1 and at the rate the tbf above them lets through.
#
# Measured (2x4 at 250mbit, 2026-12-05).  Side by side, one job each
# (`mring-bench -b 1M -e 64M -f 4 -n 3 -w 1`, 12:00-12:09): 2 rings with 4 chunks at 64 MiB 3611 and
# 3820 ms a call, no drop, no timeout (FIFOs: 3920 and 3959 ms, 10 timeouts, 1630 drops); 2 rings 4087
# and 4317 ms (4368 and 4036, 9 timeouts); 4 chunks 3688 and 3592 (3600 and 3507).  A whole
# `validation/run --rounds 3` on it (the same classes, FIFOs and filters added by hand to a testbed
# that was up; measured 12:10-13:26, not installed): the chunked multirings' measured
# speed-ups over the plain ones against the predictions of the run on FIFOs agree in sign at 15 of 16
# and within 10% at 14 (14 and 12 on FIFOs): the 2-ring 4-chunk rows at 16 and 64 MiB now agree, 4
# chunks and 2 rings with 4 chunks at 256 KiB do not; but from 256 KiB the multirings of one ring ran
# 2-12% slower than in the FIFO run, 7 hours earlier (MAPE against the same predictions: plain 11.5% for
# 4.5, 4 chunks 7.3% for 1.7; the ring 1.6% for 1.1), those of 2 rings 6-22% slower up to 4 MiB and
# 4-23% faster at 16-64 MiB, the best at 64 MiB 89.6% of the NIC bound (93.6%), and the run's own
# calibration was wrong on it: NIC fitted at 17.9 MB/s for 31.25 (30.9 on FIFOs), because the
# ping-pongs of the 2 pairs that cross a NIC at once stay in step when the link serves them round
# robin, each getting half, where a FIFO serves one message after the other and the pairs fall out of
# step.  mring-calibrate now measures a shared NIC by a bulk test (ping-pong 19.2 MB/s, bulk 30.7 on
# pair queues; 30.86 and 31.11 on FIFOs).  A second whole run on pair queues with that calibration
# (15:09-16:20, NIC 31.18 MB/s; SMPI phase stopped, not installed): chunked against plain, 15 predicted
# gains, 14 in sign and 13 within 10% (FIFO run: 16, 14, 12), the misses at 256 KiB only (4 chunks 1.176
# for 1.039, 2 rings with 4 chunks 0.978 for 1.063), 2 rings with 4 chunks at 64 MiB 1.052 of its
# prediction (FIFO run 1.399), the best multiring at 64 MiB 91.7% of the NIC bound (93.6%); but MAPE
# from 256 KiB within 5% for 2 of 10 configurations (the ring 3.5%, 4 chunks 4.8%) against the FIFO
# run's 4 (ring 1.1%, plain multiring 4.5%, 4 chunks 1.7%, hier 1.8%): its one-ring algorithms'
# medians ran 5-14% slower than the FIFO run's, 10 hours apart.  Side by
# side that slowdown did not show (16:24-16:33, 3 jobs per arm alternated, `-b 256K -e 16M -f 4 -n 5
# -w 1`, median pair/FIFO per size 256K..16M): plain multiring 1.015, 1.035, 1.028, 0.984;
# rabenseifner 1.007, 0.999, 0.955, 0.901; ring 1.041, 1.000, 0.997, 0.993.  A second side by side
# with validation/run's own two jobs (2026-12-06 02:54-03:08, `-b 4K -e 1M -f 4 -n 20 -w 5` and `-b 4M
# -e 16M -f 4 -n 5 -w 2`, 3 jobs per arm alternated) did show it: plain multiring 1.100, 1.081, 1.046,
# 1.052; 4 chunks 1.049, 1.046, 1.054, 0.997; ring 1.008, 0.980, 0.997, 0.989.  Round robin costs the
# plain multiring 5-10% (4 chunks 0-5%) where two flows cross a NIC; 64 frames a turn instead of 2 removed it at 1-4 MiB
# in one side by side (plain multiring x1.008 and x1.005 of FIFO, 2 frames x1.060 and x1.024; 256 KiB
# x1.06 either way; 03:45-03:54), and on 2x2x2 (06:14-06:25) 64 frames made the plain multiring x0.90-0.98
# of 2 frames at 256 KiB-16 MiB; but a full run on 2x2x2 with 64 frames (04:45-06:11, on a noisier
# machine: the ring lost too) missed the target by 8 rows (9 of 17 within 10%), so the turn stays 2
# frames and `up --pair-turn FRAMES` is there to try others (validation/README.md).  Rerun on pair queues and installed (2x2
# 18:26-18:58, 2x2x2 18:58-20:31): 2x2 met the target (chunked against plain 17 of 17 in sign and within
# 10%; FIFOs 17 of 18, 16); 2x2x2 did not (16 predicted gains, 15 in sign, 12 within 10%) on a
# calibration disturbed by another job (its ring of exchanges 1.6-2.9 x slower from 1 B to 16 KiB, the
# allreduces not): side by side the queues calibrate alike (21:52-23:27, 3 jobs per arm alternated on
# each shape: median ring step below 4 KiB 58.0 and 58.4 us on 2x2, 145 and 147 on 2x4, 200 and 181 on
# 2x2x2, FIFO and pair).  2x2x2 rerun on a quiet machine (21:57-23:23): 17 of 17 in sign, 15 within 10%
# (FIFOs 17, 16, 16); 2x4 (2026-12-06 01:20-02:54) 15 of 16 in sign and within 10% (FIFOs 16, 14,
# 12), its one-ring multirings 8.0-9.6% fast from 256 KiB (FIFOs 1.7-6.8%: the 5-10% above).  Over the
# three shapes pair queues give 49 of 50 in sign and 47 within 10% (FIFOs 47 of 51, 44); they drop nothing and share a link fairly as the platform's InfiniBand does, so
# they are the default up to pairs_max_ranks ranks (validation/README.md).
#
# Cost.  Each pair is a u32 filter matched in turn per packet (this kernel has no sfq, fq_codel or drr
# to hash flows), so pair queues are for testbeds of up to pairs_max_ranks ranks.

pairs_max_ranks=16
# a pair's FIFO: twice the largest send buffer TCP grows to here (net.ipv4.tcp_wmem's maximum, 4 MiB)
pair_fifo=8388608

# pair_queues NS DEV FAST QUANTUM LO HI DIR NRANKS: on DEV's shaped egress in NS (shape's htb 2:), one
# class (FAST bit/s, QUANTUM bytes a turn), FIFO and filter per pair (s, d) that crosses DEV: DIR out: s
# in [LO, HI) and d outside; DIR in: the reverse.  One tc -batch; 1 with reason set on failure
pair_queues() {
    local ns=$1 dev=$2 fast=$3 quantum=$4 lo=$5 hi=$6 out=0 nranks=$8 s d c=16 x cmds='' addr=()
    [ "$7" != out ] || out=1
    for ((s = 0; s < nranks; s++)); do rank_addr_to "addr[$s]" "$s"; done
    for ((s = 0; s < nranks; s++)); do
        for ((d = 0; d < nranks; d++)); do
            (( out ? (s >= lo && s < hi && (d < lo || d >= hi)) : (d >= lo && d < hi && (s < lo || s >= hi)) )) ||
                continue
            printf -v x %x "$c"
            cmds+="class add dev $dev parent 2: classid 2:$x htb rate $fast burst 64k prio 1 quantum $quantum
qdisc add dev $dev parent 2:$x handle $x: bfifo limit $pair_fifo
filter add dev $dev parent 2: protocol ip prio 2 u32 match ip src ${addr[s]}/32 match ip dst ${addr[d]}/32 flowid 2:$x
"
            c=$((c + 1))
        done
    done
    [ -n "$cmds" ] || return 0
    local err
    if ! err=$(tc -n "$ns" -batch - 2>&1 <<<"$cmds"); then
        reason="'tc -n $ns -batch -' (pair queues of $dev) failed: ${err%%$'\n'*}"
        return 1
    fi
}
