# validation/testbed-options.sh - sourced by validation/testbed: the values its commands take (positive
# integers, tc rates) and up's options, checked: one line naming the bad value and exit 2 (die).

is_posint() { [[ $1 =~ ^[0-9]{1,9}$ ]] && [ "$((10#$1))" -gt 0 ]; }

# to_bps RATE: bits per second of a tc rate (bit kbit mbit gbit tbit, kibit.., bps kbps.., kibps..,
# a bare number = bit/s); fails on anything else, on zero and above 100 Gbit/s
to_bps() {
    [[ ${1,,} =~ ^([0-9]+(\.[0-9]+)?)([kmgt]i?)?(bit|bps)?$ ]] || return 1
    local num=${BASH_REMATCH[1]} pre=${BASH_REMATCH[3]} unit=${BASH_REMATCH[4]}
    [ -n "$unit" ] || [ -z "$pre" ] || return 1 # "1g" is not a tc rate
    awk -v n="$num" -v p="$pre" -v u="$unit" 'BEGIN {
        m = 1
        if (p == "k") m = 1e3; else if (p == "m") m = 1e6; else if (p == "g") m = 1e9; else if (p == "t") m = 1e12
        else if (p == "ki") m = 1024; else if (p == "mi") m = 1024^2; else if (p == "gi") m = 1024^3
        else if (p == "ti") m = 1024^4
        if (u == "bps") m *= 8
        r = n * m
        if (r < 1 || r > 1e11) exit 1
        printf "%.0f\n", r
    }'
}

# rate_word BPS: a rate as a tc word (the state's intra_rate / uplink_rate when defaulted)
rate_word() {
    awk -v b="$1" 'BEGIN { if (b % 1e9 == 0) printf "%dgbit\n", b / 1e9; else if (b % 1e6 == 0) printf "%dmbit\n", b / 1e6
                           else printf "%.0fbit\n", b }'
}

# up's options, checked (globals: nodes rpn rate intra uplink racks mtu cc queues pair_turn loopback and
# the *_bps)
parse_up() {
    nodes='' rpn='' rate='' intra='' racks='' uplink='' mtu=9000 cc=cubic queues='' queues_given=0 pair_turn='' loopback=0
    peak=1.25
    while [ $# -gt 0 ]; do
        case $1 in
        -h | --help) usage up; exit 0 ;;
        --nodes | --ranks-per-node | --rate | --intra-rate | --racks | --uplink-rate | --mtu | --cc | --queues | \
            --pair-turn | --peak)
            [ $# -ge 2 ] || die 2 "up: $1 needs a value"
            case $1 in
            --nodes) nodes=$2 ;;
            --ranks-per-node) rpn=$2 ;;
            --rate) rate=$2 ;;
            --intra-rate) intra=$2 ;;
            --racks) racks=$2 ;;
            --uplink-rate) uplink=$2 ;;
            --mtu) mtu=$2 ;;
            --cc) cc=$2 ;;
            --queues) queues=$2 queues_given=1 ;;
            --pair-turn) pair_turn=$2 ;;
            --peak) peak=$2 ;;
            esac
            shift 2
            ;;
        --nodes=* | --ranks-per-node=* | --rate=* | --intra-rate=* | --racks=* | --uplink-rate=* | --mtu=* | --cc=* | \
            --queues=* | --pair-turn=* | --peak=*)
            set -- "${1%%=*}" "${1#*=}" "${@:2}"
            ;;
        --loopback) loopback=1; shift ;;
        *) die 2 "up: unknown argument '$1' (see validation/testbed up --help)" ;;
        esac
    done
    [ -n "$nodes" ] || die 2 "up: --nodes N is required"
    [ -n "$rpn" ] || die 2 "up: --ranks-per-node R is required"
    [ -n "$rate" ] || die 2 "up: --rate RATE is required (e.g. 1gbit)"
    is_posint "$nodes" || die 2 "up: --nodes '$nodes' is not a positive integer"
    is_posint "$rpn" || die 2 "up: --ranks-per-node '$rpn' is not a positive integer"
    nodes=$((10#$nodes)) rpn=$((10#$rpn))
    [ "$((nodes * rpn))" -le $max_ranks ] ||
        die 2 "up: --nodes x --ranks-per-node = $((nodes * rpn)) ranks is more than $max_ranks (one namespace each)"
    rate_bps=$(to_bps "$rate") || die 2 "up: --rate '$rate' is not a tc rate up to 100gbit (e.g. 1gbit, 500mbit, 100mbps)"
    if [ -n "$intra" ]; then
        intra_bps=$(to_bps "$intra") || die 2 "up: --intra-rate '$intra' is not a tc rate up to 100gbit (e.g. 4gbit)"
    else
        intra_bps=$(awk -v b="$rate_bps" 'BEGIN { printf "%.0f\n", 4 * b }')
        intra=$(rate_word "$intra_bps")
    fi
    parse_racks
    if ! is_posint "$mtu" || [ "$((10#$mtu))" -lt 576 ] || [ "$((10#$mtu))" -gt 65535 ]; then
        die 2 "up: --mtu '$mtu' is not an MTU in 576..65535"
    fi
    mtu=$((10#$mtu))
    if [ $queues_given = 0 ]; then # the default: a FIFO per pair where the filters stay few, else one per link
        queues=pair
        [ "$((nodes * rpn))" -le $pairs_max_ranks ] || queues=fifo
    fi
    case $queues in
    fifo) ;;
    pair) [ "$((nodes * rpn))" -le $pairs_max_ranks ] ||
        die 2 "up: --queues pair takes at most $pairs_max_ranks ranks (a filter per pair of ranks on each link), not $((nodes * rpn))" ;;
    *) die 2 "up: --queues '$queues' is not fifo or pair" ;;
    esac
    parse_pair_turn
    local factor='^[12](\.[0-9]{1,3})?$'
    [[ $peak =~ $factor ]] && awk -v f="$peak" 'BEGIN { exit !(f > 1 && f <= 2) }' ||
        die 2 "up: --peak '$peak' is not a factor above 1 and at most 2 (e.g. 1.25, 1.01)"
    peak=$(awk -v f="$peak" 'BEGIN { printf "%g\n", f }')
    [[ $cc =~ ^[a-z0-9_]+$ ]] || die 2 "up: --cc '$cc' is not a congestion control name (e.g. cubic, bbr, reno)"
    local avail
    avail=$(cat /proc/sys/net/ipv4/tcp_available_congestion_control 2>/dev/null || true)
    [ -z "$avail" ] || [[ " $avail " == *" $cc "* ]] ||
        die 2 "up: --cc '$cc' is not available on this kernel (it has: $avail)"
}

# --pair-turn, after --queues: frames a pair sends in its turn (default 2; empty with FIFOs)
parse_pair_turn() {
    if [ "$queues" = fifo ]; then
        [ -z "$pair_turn" ] || [ $queues_given = 1 ] || # fifo by default: there are too many ranks for pairs
            die 2 "up: --pair-turn '$pair_turn' needs pair queues, which take at most $pairs_max_ranks ranks, not $((nodes * rpn))"
        [ -z "$pair_turn" ] || die 2 "up: --pair-turn '$pair_turn' needs --queues pair (there are no pairs' turns with fifo)"
        return 0
    fi
    pair_turn=${pair_turn:-2}
    if ! is_posint "$pair_turn" || [ "$((10#$pair_turn))" -gt 1024 ]; then
        die 2 "up: --pair-turn '$pair_turn' is not a number of frames in 1..1024"
    fi
    pair_turn=$((10#$pair_turn))
}

# --racks and --uplink-rate, after --nodes and --rate
parse_racks() {
    if [ -z "$racks" ]; then
        [ -z "$uplink" ] || die 2 "up: --uplink-rate '$uplink' needs --racks K (2 or more)"
        racks=1 uplink='' uplink_bps=''
        return 0
    fi
    is_posint "$racks" || die 2 "up: --racks '$racks' is not a positive integer"
    racks=$((10#$racks))
    [ "$((nodes % racks))" = 0 ] || die 2 "up: --racks '$racks' does not divide --nodes $nodes"
    if [ "$racks" = 1 ]; then
        [ -z "$uplink" ] || die 2 "up: --uplink-rate '$uplink' needs --racks K (2 or more), not 1"
        uplink='' uplink_bps=''
    elif [ -n "$uplink" ]; then
        uplink_bps=$(to_bps "$uplink") || die 2 "up: --uplink-rate '$uplink' is not a tc rate up to 100gbit (e.g. 2gbit)"
    else
        uplink_bps=$(awk -v b="$rate_bps" -v k="$((nodes / racks))" 'BEGIN { printf "%.0f\n", k * b }')
        uplink=$(rate_word "$uplink_bps")
    fi
}

# the testbed's parameters in one word list, to tell an identical up from a conflicting one
asked_words() {
    echo "nodes=$nodes ranks_per_node=$rpn rate_bps=$rate_bps intra_bps=$intra_bps racks=$racks" \
        "uplink_bps=$uplink_bps mtu=$mtu cc=$cc queues=$queues pair_turn=$pair_turn peak=$peak${1:+ $1}"
}
