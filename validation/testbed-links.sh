# validation/testbed-links.sh - sourced by validation/testbed: how `up` builds the emulated cluster's
# fabric: the namespaces, the switches (bridges), the veth links between them and their shaping.
# Functions set reason and return 1 on failure; made_ns records every namespace made (validation/testbed
# rolls them back).  Uses validation/testbed's globals (fabric, spine, ifname, cc, peak, queues,
# pair_turn; build_netns sets nranks, which shape uses) and pair_queues (validation/testbed-pairs.sh).
#
# Shaping, both directions of every link: the egress of BOTH ends of each veth pair is shaped: mrtb0
# (rank -> switch) and mrtb-p<r> (switch -> rank) to the intra rate; mrtb-u<n> (node -> cluster)
# and mrtb-d<n> (cluster -> node) to --rate; mrtb-ku<k> and mrtb-kd<k> to the uplink rate.  A veth
# pair is a wire: every frame that enters the node through its NIC is exactly a frame that left the
# peer end, so shaping the peer's egress is shaping the NIC's ingress.  We do that rather than an
# ingress qdisc with a mirred redirect to an ifb device because it is the same queue at the same
# place with one hop less per packet (CPU is what this testbed must not spend), and it queues
# instead of policing.  Each shaped egress (shape below):
#   tbf rate RATE burst 4 frames peakrate PEAK*RATE mtu 2 frames (a frame: MTU + 216 B; PEAK: --peak,
#     default 1.25)
#     htb (priorities only): TCP segments without payload first, then a byte FIFO of RATE*100ms
#       (--queues fifo, the default above 16 ranks), or one byte FIFO per pair of ranks crossing the
#       link, served round robin --pair-turn frames at a time (--queues pair, the default up to 16
#       ranks: validation/testbed-pairs.sh says why and what it measured)
# and every veth's gso_max_size is 2 x MTU - 1, so TCP hands the qdiscs one frame per packet.
# A token bucket lets a message through unshaped up to the bucket after an idle moment; a NIC does
# not.  Until 2026-12-04 the buckets were 4 ms of RATE behind a peak bucket of max(0.5 ms, 72 KiB)
# at 1.05*RATE (one 64 KiB GSO packet had to fit): 72-125 KiB passed at once, so the intra-node
# steps of a multiring at 64-256 KiB were free (2x2 at 500mbit, multiring at 256 KiB: 4.33 ms, the
# inter-node steps alone; simulated 5.41) and chunking could gain nothing (4.25 ms).  A small peak
# bucket needs small packets: tbf cutting 64 KiB GSO packets itself costs the 2 cores so much that a
# ring at 64 MiB fell to 0.85 of the NIC bound.  With one frame per packet, a peak bucket of 2 frames
# at 1.25*RATE (it absorbs a timer that wakes 0.2 x 2 frames / RATE late: 59 us at 500mbit) and a
# main bucket of 1 ms (messages after an idle moment go at most 25% faster until it drains), the
# same runs (mring-bench, 100 calls at 256 KiB, 3 at 64 MiB): ring 64 MiB 0.982 of the bound (0.994
# before), multiring 256 KiB 5.18 ms (simulated 5.41), with 4 chunks 4.33 ms.  MTU 9000 (--mtu,
# jumbo frames as on HPC Ethernet) makes TCP's goodput 99.3% of the shaped rate.
# The main bucket is 4 frames since 2026-12-04 21:00 (it was max(1 ms, 4 frames): the same at 250mbit,
# 1.7 x at 500mbit, 3.4 x at 1gbit): after an idle moment a link ran at 1.25 x RATE until 1 ms of RATE
# had drained, about 4 ms (2x2's intra-node pairs at 1gbit, all at once, in validation/calibrate: size /
# time / rate 1.11-1.25 at 256 KiB-1 MiB at 18:05 and 19:42; 0.94-0.98 with 4 frames at 21:02). 2x2x2 at
# 250mbit (ports 1gbit, uplinks 500mbit), 16 MiB, 12 calls of each in two rounds, the order swapped: the
# plain multiring 1031-1236 ms (mean 1137) with 1 ms, 969-1135 (1022) with 4 frames (simulated: 987);
# with 4 chunks (6 calls each, second round) 912-1030 (970) and 888-1019 (922) (simulated: 884); the
# ring 948-1056 and 945-968 (simulated: 987). validation/testbed-check's ring at 64 MiB, 4 frames: 2x2
# 0.979, 2x4 0.972, 2x2x2 0.976 of the bound (2x2x2 with 1 ms, beside it: 0.975); the price is at
# 500mbit: 2x2 with 1gbit ports 0.964-0.968, with 1 ms 0.974-0.979 (2 runs each, alternated).
# Priority: in a ring every link carries data one way and, for the stream the other way, its ACKs.
# In one FIFO those wait behind up to 100 ms of the other stream's data, which starves TCP.  Measured
# at 250mbit (mring-bench --algo ring, 64 MiB, busbw / rate, 3 runs each): 4 nodes x 1 rank
# 0.90-0.93 with one FIFO, 0.96-0.98 with packets under 512 bytes first (the filter until 2026-12-03);
# 2 x 2: 0.935-0.945 and 0.977-0.978.
# Only segments WITHOUT payload (pure ACKs, SYNs, FINs) go first: a small data segment must never
# overtake its own connection's queued data.  Until 2026-12-03 every IPv4 packet under 512 bytes went
# first, and UCX's TCP transport (receive segment 64 KiB) sends a 64 KiB message as a full segment
# plus a tail of 45 bytes (tcpdump); the tail passed the queued data, TCP's loss detection (RACK, SACK)
# took the reordering for losses, and the senders retransmitted and cut their windows.  2x4 at
# 250mbit, multiring --rings 2 --chunks 4 at 4 MiB (64 KiB messages between nodes), 7 calls: 5431
# segments retransmitted (3230 DSACKs: spurious), 242-327 ms against 209.5 simulated; with payload-less
# segments first, 56 calls: 212 retransmitted, 208-214 ms; the ring's busbw at 64 MiB 0.984-0.988 of
# the NIC bound (validation/testbed-check).  (This kernel has no prio, sfq or fq_codel qdisc, so
# htb, whose classes are at 10 x RATE, is the strict-priority scheduler; tbf does the shaping.)

# tbf_args BPS MTU PEAK: the tbf parameters for a rate, MTU and peak factor (see the top of this file):
# peak bucket 2 frames of MTU + 216 bytes refilled at PEAK x rate; main bucket 4 frames; queue 100 ms
tbf_args() {
    awk -v b="$1" -v m="$2" -v f="$3" 'BEGIN {
        pk = 2 * (m + 216); burst = 2 * pk
        printf "rate %.0fbit burst %.0fb peakrate %.0fbit mtu %.0fb latency 100ms\n", b, burst, b * f, pk
    }'
}

# step CMD ARGS...: run it; on failure set reason to the command and its first line of stderr
step() {
    local out
    if ! out=$("$@" 2>&1 </dev/null); then
        out=${out%%$'\n'*}
        reason="'$*' failed${out:+: $out}"
        return 1
    fi
}


# The TCP congestion control.  A namespace starts with the host's default (BBR on some machines, cubic
# on most), which changes what a pipelined schedule measures: on 2x2x2 at 250mbit, 1 MiB, 2 chunks took
# 60.2-70.8 ms under BBR and 55.2-56.2 ms under cubic, the plain multiring 55.4-58.0 ms under both (2026-12-03).  So
# up sets one explicitly.  allow_cc: let the namespaces choose $cc (a namespace other than the host's
# may only set one of the host's tcp_allowed_congestion_control); host_allowed keeps the list it
# replaced, for restore_cc.
cc_list=/proc/sys/net/ipv4/tcp_allowed_congestion_control
allow_cc() {
    local list
    host_allowed=''
    list=$(cat "$cc_list" 2>/dev/null) || return 0
    [[ " $list " != *" $cc "* ]] || return 0
    { echo "$list $cc" >"$cc_list"; } 2>/dev/null && host_allowed=$list
    return 0
}

# restore_cc LIST: put the host's allowed list back (nothing when LIST is empty)
restore_cc() {
    [ -z "$1" ] || { echo "$1" >"$cc_list"; } 2>/dev/null || true
}

# new_ns NAME: a namespace with lo up and no IPv6 (no router solicitations or MLD on shaped links)
new_ns() {
    step ip netns add "$1" || return 1
    made_ns+=("$1")
    step ip -n "$1" link set lo up || return 1
    ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 \
        >/dev/null 2>&1 || true
}

# bridge NAME: a switch in the fabric namespace.  Bridge netfilter off: the fabric's firewall is empty,
# but calling it would still cost CPU per packet (best effort: older kernels lack the option)
bridge() {
    step ip -n "$fabric" link add "$1" type bridge || return 1
    ip -n "$fabric" link set "$1" type bridge nf_call_iptables 0 nf_call_ip6tables 0 nf_call_arptables 0 \
        >/dev/null 2>&1 || true
    step ip -n "$fabric" link set "$1" up || return 1
}

# shape NS DEV BPS MTU LO HI DIR: DEV's egress in namespace NS shaped to BPS bit/s: tbf (tbf_args), and
# under it a strict-priority scheduler (htb, used for its priorities only: both classes at 10 x BPS)
# that sends TCP segments without payload (ACKs, SYNs, FINs) before everything else; everything else
# waits in a byte FIFO of 100 ms at BPS (see "Priority" at the top: data never overtakes its own
# connection), or with --queues pair in its pair's FIFO (pair_queues: ranks [LO, HI) are on DEV's
# side, DIR out: DEV carries their data away from them, in: towards them)
shape() {
    local ns=$1 dev=$2 bps=$3 mtu=$4 lo=$5 hi=$6 dir=$7 fifo fast
    fifo=$(awk -v b="$3" 'BEGIN { f = b / 8 * 0.1; if (f < 262144) f = 262144; printf "%.0f\n", f }')
    fast=$(awk -v b="$3" 'BEGIN { printf "%.0fbit\n", 10 * b }')
    # one frame per packet (see the top of this file): below 2 frames TCP cannot build a GSO packet
    step ip -n "$ns" link set dev "$dev" gso_max_size $((2 * mtu - 1)) || return 1
    # shellcheck disable=SC2046 # tbf_args is a list of words
    step tc -n "$ns" qdisc add dev "$dev" root handle 1: tbf $(tbf_args "$bps" "$mtu" "$peak") || return 1
    step tc -n "$ns" qdisc add dev "$dev" parent 1:1 handle 2: htb default 2 || return 1
    step tc -n "$ns" class add dev "$dev" parent 2: classid 2:1 htb rate "$fast" burst 64k prio 0 quantum 65536 || return 1
    step tc -n "$ns" class add dev "$dev" parent 2: classid 2:2 htb rate "$fast" burst 64k prio 1 quantum 65536 || return 1
    step tc -n "$ns" qdisc add dev "$dev" parent 2:2 handle 3: bfifo limit "$fifo" || return 1
    # TCP segments without payload: an IPv4 header of 20 bytes (byte 0 is 0x45), protocol 6 (byte 9),
    # and a total length (bytes 2-3) of 20 + the TCP header's length, 4 x its data offset (the high
    # nibble of TCP byte 12, byte 32 of the packet), for each data offset from 5 to 15
    local doff
    for doff in 5 6 7 8 9 10 11 12 13 14 15; do
        step tc -n "$ns" filter add dev "$dev" parent 2: protocol ip prio 1 u32 \
            match u8 0x45 0xff at 0 match u8 6 0xff at 9 match u16 $((20 + 4 * doff)) 0xffff at 2 \
            match u8 $((doff << 4)) 0xf0 at 32 flowid 2:1 || return 1
    done
    # the pairs' turn: --pair-turn frames (default 2, the tbf's peak bucket: tbf_args)
    [ "$queues" = fifo ] || pair_queues "$ns" "$dev" "$fast" "$((pair_turn * (mtu + 216)))" "$lo" "$hi" "$dir" "$nranks"
}

# trunk A B MASTER_A MASTER_B MTU BPS LO HI: a veth pair between two switches of the fabric, A on
# MASTER_A and B on MASTER_B, shaped to BPS in both directions; ranks [LO, HI) are on A's side
trunk() {
    local a=$1 b=$2 ma=$3 mb=$4 mtu=$5 bps=$6 lo=$7 hi=$8
    step ip -n "$fabric" link add "$a" mtu "$mtu" type veth peer name "$b" mtu "$mtu" || return 1
    step ip -n "$fabric" link set "$a" master "$ma" up || return 1
    step ip -n "$fabric" link set "$b" master "$mb" up || return 1
    shape "$fabric" "$a" "$bps" "$mtu" "$lo" "$hi" out || return 1
    shape "$fabric" "$b" "$bps" "$mtu" "$lo" "$hi" in || return 1
}

# rank_addr_to VAR R: rank r's address into VAR, without a fork (10.77.0.1 for rank 0; a /16 holds them
# all); rank_addr R prints it
rank_addr_to() { printf -v "$1" '10.77.%d.%d' $((($2 + 1) / 256)) $((($2 + 1) % 256)); }
rank_addr() {
    local a
    rank_addr_to a "$1"
    echo "$a"
}

# rank_port R NODE MTU BPS: namespace mrtb-r<R>, its mrtb0 on node switch mrtb-b<NODE> through
# mrtb-p<R>, shaped to BPS in both directions
rank_port() {
    local r=$1 node=$2 mtu=$3 bps=$4 ns=mrtb-r$1 port=mrtb-p$1
    new_ns "$ns" || return 1
    ip netns exec "$ns" sysctl -qw "net.ipv4.tcp_congestion_control=$cc" >/dev/null 2>&1 || true
    step ip -n "$fabric" link add "$port" mtu "$mtu" type veth peer name "$ifname" mtu "$mtu" netns "$ns" || return 1
    step ip -n "$fabric" link set "$port" master "mrtb-b$node" up || return 1
    step ip -n "$ns" addr add "$(rank_addr "$r")/16" dev "$ifname" || return 1
    step ip -n "$ns" link set "$ifname" up || return 1
    shape "$ns" "$ifname" "$bps" "$mtu" "$r" "$((r + 1))" out || return 1
    shape "$fabric" "$port" "$bps" "$mtu" "$r" "$((r + 1))" in || return 1
}

# reachable P: can rank 0 reach ranks 1..P-1?  A TCP connect to a closed port is refused at once when
# it can
reachable() {
    local i probe addr
    for ((i = 1; i < $1; i++)); do
        addr=$(rank_addr "$i")
        if probe=$(ip netns exec mrtb-r0 timeout 3 bash -c "exec 3<>/dev/tcp/$addr/9" 2>&1) ||
            [[ $probe == *refused* ]]; then
            continue
        fi
        reason="mrtb-r0 cannot reach rank $i ($addr) across the fabric"
        return 1
    done
}

# build_netns N R K MTU INTRA-BPS NIC-BPS UPLINK-BPS: the namespaces, switches, links and shaping
# (nranks: N x R, for shape); 1 with reason set on failure
build_netns() {
    local n=$1 rpn=$2 racks=$3 mtu=$4 intra=$5 nic=$6 uplink=$7 i k r top per_rack=$(($2 * $1 / $3))
    nranks=$((n * rpn))
    new_ns "$fabric" || return 1
    bridge "$spine" || return 1
    for ((k = 0; racks > 1 && k < racks; k++)); do
        bridge "mrtb-k$k" || return 1
        trunk "mrtb-ku$k" "mrtb-kd$k" "mrtb-k$k" "$spine" "$mtu" "$uplink" $((k * per_rack)) $(((k + 1) * per_rack)) ||
            return 1
    done
    for ((i = 0; i < n; i++)); do
        top=$spine
        [ "$racks" -le 1 ] || top=mrtb-k$((i / (n / racks)))
        bridge "mrtb-b$i" || return 1
        trunk "mrtb-u$i" "mrtb-d$i" "mrtb-b$i" "$top" "$mtu" "$nic" $((i * rpn)) $(((i + 1) * rpn)) || return 1
        for ((r = i * rpn; r < (i + 1) * rpn; r++)); do
            rank_port "$r" "$i" "$mtu" "$intra" || return 1
        done
    done
    reachable "$nranks"
}
