# validation/testbed-watchdog.sh - sourced by validation/testbed: exec's finalize watchdog.

#
# MPICH 4.0.2 (ch4:ucx) with UCX 1.13 on TCP alone deadlocks in MPI_Finalize in a fair share of runs
# (a third to a half of 4-rank jobs on a busy 2-core machine, even for MPI_Init + MPI_Barrier +
# MPI_Finalize): every rank closes its UCX endpoints and progresses until its own closes complete,
# then blocks in a PMI barrier; one rank's close still needs an answer from a peer that is already
# blocked in that barrier and no longer progresses, so it spins for ever while the others wait for
# it (see openucx/ucx#8738).  The watchdog looks for that state: some rank blocked reading its PMI
# socket and some other rank, holding TCP connections, not, for GRACE seconds.  It then closes that
# rank's established TCP connections (ss -K): its pending close fails, which MPI_Finalize ignores,
# and the job ends normally.  A rank genuinely stuck in the program's own communication gets an
# error instead, so a real hang still fails.  MRING_TESTBED_FINALIZE_GRACE=0 turns it off; a program
# whose other ranks go on communicating for longer than GRACE after one entered MPI_Finalize (legal
# MPI, not what mring's programs do) needs a larger GRACE.

# proc_table: "pid ppid" of every process
proc_table() {
    local f line ppid
    for f in /proc/[0-9]*/stat; do
        { IFS= read -r line <"$f"; } 2>/dev/null || continue
        # after the command name, which may hold spaces and parentheses: state ppid ...
        read -r _ ppid _ <<<"${line##*) }"
        f=${f#/proc/}
        printf '%s %s\n' "${f%/stat}" "$ppid"
    done
}

# descendants PID: every process below PID
descendants() {
    local -A kids=()
    local pid ppid queue=("$1") p
    while read -r pid ppid; do
        kids[$ppid]+=" $pid"
    done < <(proc_table)
    while [ ${#queue[@]} -gt 0 ]; do
        p=${queue[0]}
        queue=("${queue[@]:1}")
        for pid in ${kids[$p]:-}; do
            echo "$pid"
            queue+=("$pid")
        done
    done
}

# env_of PID NAME: the value of NAME in PID's environment (empty when absent or gone)
env_of() {
    local kv
    { while IFS= read -r -d '' kv; do
        if [ "${kv%%=*}" = "$2" ]; then
            printf '%s\n' "${kv#*=}"
            return 0
        fi
    done </proc/"$1"/environ; } 2>/dev/null || true
}

# tcp_conns PID: "local peer" of PID's established TCP connections, seen from its namespace
tcp_conns() {
    nsenter -t "$1" -n ss -tnpH state established 2>/dev/null |
        awk -v p="pid=$1," 'index($0, p) { print $3, $4 }' || true
}

# pmi_scan MP: fill pmi_fd (pid -> its PMI socket's fd) with every process below MP that has PMI_FD in
# its environment: the ranks, and any wrapper between them and mpiexec
pmi_scan() {
    local pid fd
    pmi_fd=()
    for pid in $(descendants "$1"); do
        fd=$(env_of "$pid" PMI_FD)
        [ -z "$fd" ] || pmi_fd[$pid]=$fd
    done
}

# pmi_classify: from pmi_fd, blocked (the ranks of the processes blocked reading their PMI socket) and
# others (the other pids).  Returns 1 when the list is stale: a process gone, or one waiting for a child
# (a wrapper, whose child may be a rank not in the list).  Syscall numbers are x86-64's: read 0, wait4 61.
pmi_classify() {
    local pid sc l stale=0
    blocked=()
    others=()
    for pid in "${!pmi_fd[@]}"; do
        if ! { IFS=' ' read -r sc l _ </proc/"$pid"/syscall; } 2>/dev/null; then
            stale=1
        elif [ "$sc" = 0 ] && [[ $l =~ ^0x[0-9a-f]+$ ]] && [ "$((l))" = "${pmi_fd[$pid]}" ]; then
            blocked+=("$(env_of "$pid" PMI_RANK)")
        else
            [ "$sc" != 61 ] || stale=1
            others+=("$pid")
        fi
    done
    return $stale
}

# The ranks' CPUs are what the testbed must not take.  A scan of /proc (pmi_scan: tens of ms of CPU on
# the 2-core machine) every second slowed the blocks of calls it fell on: 256 KiB ring on 2x4, blocks
# of 10 calls 15.3-22.0 ms a call, slow ones every ~2 s, against 14.9-19.2 with the watchdog off and
# 14.9-19.0 with this one (2026-12-05).  So the scan runs every 0.1 s until NP processes are found (for
# at most 5 s), which is over before the ranks leave MPI_Init, then only while fewer are found or the
# list is stale (a rank under a wrapper that waits for it keeps the list stale: a scan a second);
# otherwise a second costs one read of /proc/PID/syscall per process and, only once some rank blocks in its PMI
# read (the ranks are in MPI_Finalize), an ss per other process.  The state is judged once a second.
finalize_watchdog() {
    local mp=$1 grace=$2 np=$3 stall=0 pid blocked spinning others conns l r
    local -A pmi_fd=()
    local fast=50 scanned # fast: tenths of a second left to scan every 0.1 s while the ranks start
    while kill -0 "$mp" 2>/dev/null; do
        scanned=0
        if [ ${#pmi_fd[@]} -lt "$np" ] && [ "$fast" -gt 0 ]; then
            sleep 0.1
            fast=$((fast - 1))
            pmi_scan "$mp"
            scanned=1
            [ $((fast % 10)) = 0 ] || continue # the state is judged once a second
        else
            sleep 1
            [ ${#pmi_fd[@]} -ge "$np" ] || { pmi_scan "$mp"; scanned=1; }
        fi
        spinning=()
        # a stale list is scanned again, unless it was scanned in this tick already (one scan a tick)
        pmi_classify || { [ "$scanned" = 0 ] && pmi_scan "$mp" && pmi_classify; } || true
        for pid in "${others[@]}"; do
            [ ${#blocked[@]} -gt 0 ] || break
            [ -z "$(tcp_conns "$pid")" ] || spinning+=("$pid")
        done
        if [ ${#blocked[@]} -eq 0 ] || [ ${#spinning[@]} -eq 0 ]; then
            stall=0
            continue
        fi
        stall=$((stall + 1))
        [ "$stall" -ge "$grace" ] || continue
        for pid in "${spinning[@]}"; do
            echo "$prog: exec: rank(s) ${blocked[*]} wait in MPI_Finalize while rank $(env_of "$pid" PMI_RANK) spins for ${grace}s (the MPICH 4.0.2 + UCX TCP finalize deadlock); closing its TCP connections" >&2
            conns=$(tcp_conns "$pid")
            while read -r l r; do
                [ -n "$l" ] || continue
                nsenter -t "$pid" -n ss -K -tnH state established src "$l" dst "$r" >/dev/null 2>&1 || true
            done <<<"$conns"
            if [ -n "$conns" ] && grep -qxF -f <(printf '%s\n' "$conns") <(tcp_conns "$pid"); then
                # ss -K did nothing (a kernel without CONFIG_INET_DIAG_DESTROY): end the job rather than hang
                echo "$prog: exec: could not close its connections (ss -K); killing rank $(env_of "$pid" PMI_RANK)" >&2
                kill -KILL "$pid" 2>/dev/null || true
            fi
        done
        stall=0
    done
}
