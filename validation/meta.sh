# validation/meta.sh - sourced by the scripts that read or rewrite a run's DIR/meta: KEY=VALUE lines that
# validation/run writes and validation/pairs, install and repredict bring up to date.  Uses the global dir
# (the run's directory).

# meta KEY: KEY's value in $dir/meta (the last where KEY is there twice; empty where it is not there)
meta() { sed -n "s/^$1=//p" "$dir/meta" | tail -n 1; }

# meta_replace TO KEY=VALUE...: $dir/meta without any line of those KEYs, then the given lines, into the
# file TO (the other lines keep their order)
meta_replace() {
    local to=$1 kv keys=
    shift
    for kv in "$@"; do keys+=" ${kv%%=*}"; done
    { awk -v keys="$keys" 'BEGIN { n = split(keys, k, " "); for (i = 1; i <= n; i++) drop[k[i]] = 1 }
        { key = $0; sub(/=.*/, "", key) } !(key in drop)' "$dir/meta"
      printf '%s\n' "$@"; } >"$to"
}
