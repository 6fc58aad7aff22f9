#!/usr/bin/env bash
# Overload through the proxy (issue 31): the served fraction under a flood from one address.
#
# Three `portico serve` nodes on PostgreSQL behind nginx (deploy/ as it is, through
# tests/support/portico_cluster.py, as bench/idp/cluster.sh runs them). Per run, with wrk and
# tests/cluster/proxy_flood.lua (client-credentials grants, POST /oauth/token, from 127.0.0.1):
#
#   capacity  CAPACITY_CONNECTIONS (32) connections through nginx: the answers per second the
#             cluster serves when nobody floods it
#   flood     FLOOD_CONNECTIONS (512, 4x the per-client cap of 128) connections through nginx
#   direct    CAPACITY_CONNECTIONS, then FLOOD_CONNECTIONS connections straight to a fourth
#             node on the same database that trusts no proxy (the connections past the cap of
#             128 wait, their requests held up to 1 s and then answered 503 with Retry-After):
#             its own capacity and fraction, wrk's read errors and the 503s; DIRECT=0 skips it
#
# each for DURATION (10s), RUNS (3) times, and prints the answers served per second, the flood's
# served fraction (flood / capacity, the issue's bar is >= 0.8), every answer's kind (a 502 or
# a 5xx other than 503 is a failure; 503s must carry Retry-After) and the nodes' RSS before and
# after. Everything shares the machine's cores (wrk, nginx, PostgreSQL and the nodes), and on
# a shared build machine other work too: read the figures as one run's, not as a capacity.
#
#   bench/idp/proxy-flood.sh
#   PORTICO_BIN=path/to/portico RUNS=5 DURATION=30s bench/idp/proxy-flood.sh
#
# Runs itself under scripts/with-postgres. Figures go to bench/out/proxy-flood/summary.txt.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
if [[ -z "${PORTICO_TEST_POSTGRES_URL:-}" ]]; then exec scripts/with-postgres "$0" "$@"; fi

runs="${RUNS:-3}"
duration="${DURATION:-10s}"
capacity_connections="${CAPACITY_CONNECTIONS:-32}"
flood_connections="${FLOOD_CONNECTIONS:-512}"
direct="${DIRECT:-1}"
scratch="${SCRATCH:-.build}"
out_dir="${OUT_DIR:-$root/bench/out/proxy-flood}"
script="$root/tests/cluster/proxy_flood.lua"

for tool in wrk curl python3 nginx; do
    command -v "$tool" >/dev/null || { echo "bench/idp/proxy-flood: $tool is not installed" >&2; exit 1; }
done
if [[ -z "${PORTICO_BIN:-}" ]]; then
    swift build -c release --product portico --scratch-path "$scratch" >&2
fi
portico="$(realpath "${PORTICO_BIN:-$scratch/release/portico}")"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/portico-bench-flood.XXXXXX")"
chmod 0755 "$tmp"
cluster_pid=""
direct_pid=""
cleanup() {
    if [[ -n "$direct_pid" ]]; then kill -TERM "$direct_pid" 2>/dev/null || true; wait "$direct_pid" 2>/dev/null || true; fi
    if [[ -n "$cluster_pid" ]]; then kill -TERM "$cluster_pid" 2>/dev/null || true; wait "$cluster_pid" 2>/dev/null || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$out_dir"
rm -f "$out_dir"/*.txt

database="${PORTICO_TEST_POSTGRES_URL%/*}/portico_flood"
"$PORTICO_TEST_POSTGRES_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 "${PORTICO_TEST_POSTGRES_URL%/*}/postgres" \
    -c "DROP DATABASE IF EXISTS portico_flood" -c "CREATE DATABASE portico_flood" >/dev/null

python3 tests/support/portico_cluster.py serve "$portico" "$database" "$tmp/info" >"$out_dir/cluster.log" 2>&1 &
cluster_pid="$!"
for _ in $(seq 1 600); do [[ -f "$tmp/info" ]] && break; sleep 0.1; done
[[ -f "$tmp/info" ]] || { echo "bench/idp/proxy-flood: the cluster did not start" >&2; cat "$out_dir/cluster.log" >&2; exit 1; }
# shellcheck disable=SC1091
. "$tmp/info"
read -r -a node_pids <<<"$CLUSTER_NODE_PIDS"
# The direct case needs a node that does not trust 127.0.0.1 as its proxy (wrk connects from
# there, and the cluster's nodes exempt it): a fourth node on the same database, without
# --trusted-proxy, so the per-client cap counts wrk's connections.
node_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
node_url="http://127.0.0.1:$node_port"
if [[ "$direct" == 1 ]]; then
    "$portico" serve --port "$node_port" --quiet --database "$database" --key-file "$CLUSTER_KEY_FILE" \
        --issuer "$node_url" >"$out_dir/direct-node.log" 2>&1 &
    direct_pid="$!"
    for _ in $(seq 1 300); do curl -fsS -o /dev/null "$node_url/healthz" 2>/dev/null && break; sleep 0.1; done
fi

client="$("$portico" client add --database "$database" --name Flood --grant client_credentials --json)"
read -r client_id client_secret < <(python3 -c 'import json, sys; c = json.loads(sys.argv[1]); print(c["client_id"], c["client_secret"])' "$client")
export FLOOD_AUTH="Basic $(printf '%s:%s' "$client_id" "$client_secret" | base64 -w0)"

rss() { for pid in "${node_pids[@]}"; do awk '/^VmRSS:/ { printf "%d ", $2 / 1024 }' "/proc/$pid/status"; done; }
value() { awk -v n="$2" '$1 == n { print $2 }' "$1"; }
# One wrk run: $1 = label, $2 = connections, $3 = URL; prints "ok/s" and keeps the counts.
load() {
    local label="$1" connections="$2" url="$3" file="$out_dir/$1.counts"
    FLOOD_OUT="$file" wrk -t2 -c"$connections" -d"$duration" --timeout 30s -s "$script" "$url" >"$out_dir/$label.txt"
    awk -v ok="$(value "$file" ok)" -v us="$(value "$file" duration_us)" 'BEGIN { printf "%.0f", ok / (us / 1e6) }'
}

{
    echo "bench/idp/proxy-flood: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, binary $portico"
    echo "client credentials (POST /oauth/token) from one address; $duration per load; capacity $capacity_connections connections, flood $flood_connections"
    printf '%-4s %10s %10s %7s %6s %6s %7s %6s %9s %10s %10s %8s %6s %18s\n' run "capacity/s" "flood/s" fraction 502 503 "503-RA" "o5xx" "read-err" "direct c/f/s" "d-fraction" "d-r-err" "d-503" "RSS MiB before→after"
} | tee "$out_dir/summary.txt"
FLOOD_OUT=/dev/null wrk -t2 -c"$capacity_connections" -d3s -s "$script" "$CLUSTER_URL" >/dev/null  # warm-up
for run in $(seq 1 "$runs"); do
    before="$(rss)"
    capacity="$(load "capacity-$run" "$capacity_connections" "$CLUSTER_URL")"
    flood="$(load "flood-$run" "$flood_connections" "$CLUSTER_URL")"
    counts="$out_dir/flood-$run.counts"
    direct_rate="-" direct_fraction="-" direct_errors="-" direct_503="-"
    if [[ "$direct" == 1 ]]; then
        direct_capacity="$(load "direct-capacity-$run" "$capacity_connections" "$node_url")"
        direct_rate="$(load "direct-$run" "$flood_connections" "$node_url")"
        direct_errors="$(value "$out_dir/direct-$run.counts" read_errors)"
        direct_503="$(value "$out_dir/direct-$run.counts" s503)"
        direct_rate="$direct_capacity/$direct_rate"
        direct_fraction="$(awk -v d="${direct_rate#*/}" -v c="$direct_capacity" 'BEGIN { printf "%.2f", (c > 0) ? d / c : 0 }')"
    fi
    sleep 1
    after="$(rss)"
    printf '%-4s %10s %10s %7s %6s %6s %7s %6s %9s %10s %10s %8s %6s %18s\n' "$run" "$capacity" "$flood" \
        "$(awk -v f="$flood" -v c="$capacity" 'BEGIN { printf "%.2f", (c > 0) ? f / c : 0 }')" \
        "$(value "$counts" s502)" "$(value "$counts" s503)" "$(($(value "$counts" s503) - $(value "$counts" s503_bare)))" \
        "$(value "$counts" s5xx_other)" "$(value "$counts" read_errors)" "$direct_rate" "$direct_fraction" "$direct_errors" \
        "$direct_503" "${before% }→${after% }" | tee -a "$out_dir/summary.txt"
done
echo "load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out_dir/summary.txt"
