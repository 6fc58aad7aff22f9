#!/usr/bin/env bash
# HTTP benchmark: Portico's GET /healthz against a minimal C libmicrohttpd server
# (bench/baseline/baseline.c) in the same threading mode, with wrk, in one run.
#
#   bench/http/run.sh
#
# Environment:
#   SCRATCH      SwiftPM scratch path for the release build (default .build)
#   PORTICO_BIN  server binary to run instead of building `portico` (must accept
#                `serve --port P --quiet --database sqlite:PATH`)
#   DURATION     wrk duration (default 10s); THREADS / CONNECTIONS: wrk -t / -c (2 / 64)
#   ROUNDS       alternate Portico and C this many times and keep each one's best run
#                (default 1); on a shared machine more rounds make the ratio less noisy
#   PORTICO_PORT / BASELINE_PORT  ports to use (default 18080 / 18081)
#   METRICS      1 also runs a second Portico with `--metrics` (on METRICS_PORT, default
#                18082) in every round and prints it beside the first, to show what
#                per-request counting costs; the run then also checks that its /metrics counted
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

scratch="${SCRATCH:-.build}"
duration="${DURATION:-10s}"
wrk_threads="${THREADS:-2}"
connections="${CONNECTIONS:-64}"
rounds="${ROUNDS:-1}"
portico_port="${PORTICO_PORT:-18080}"
baseline_port="${BASELINE_PORT:-18081}"
metrics="${METRICS:-0}"
metrics_port="${METRICS_PORT:-18082}"
out_dir="$root/bench/out"
mkdir -p "$out_dir"

command -v wrk >/dev/null || { echo "wrk is not installed" >&2; exit 1; }
command -v curl >/dev/null || { echo "curl is not installed" >&2; exit 1; }

# The server opens (and creates) its database: keep it out of the work tree.
data_dir="$(mktemp -d "${TMPDIR:-/tmp}/portico-bench-http.XXXXXX")"

pids=()
cleanup() {
    for pid in "${pids[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$data_dir"
}
trap cleanup EXIT INT TERM

# The C baseline.
cc -O2 -Wall -o bench/baseline/mhd-baseline bench/baseline/baseline.c \
    $(pkg-config --cflags --libs libmicrohttpd)

# Portico, release build.
if [[ -n "${PORTICO_BIN:-}" ]]; then
    portico="$PORTICO_BIN"
else
    swift build -c release --product portico --scratch-path "$scratch" >&2
    portico="$scratch/release/portico"
fi

wait_for() {
    local url="$1"
    for _ in $(seq 1 200); do
        if curl -fsS -o /dev/null "$url" 2>/dev/null; then return 0; fi
        sleep 0.05
    done
    echo "server at $url did not come up" >&2
    exit 1
}

"$portico" serve --port "$portico_port" --quiet --database "sqlite:$data_dir/portico.db" \
    >"$out_dir/portico.stdout" 2>"$out_dir/portico.stderr" &
pids+=("$!")
bench/baseline/mhd-baseline "$baseline_port" >"$out_dir/baseline.stdout" 2>"$out_dir/baseline.stderr" &
pids+=("$!")
if [[ "$metrics" == "1" ]]; then
    mkdir -p "$data_dir/metrics"
    "$portico" serve --port "$metrics_port" --quiet --metrics --database "sqlite:$data_dir/metrics/portico.db" \
        >"$out_dir/portico-metrics.stdout" 2>"$out_dir/portico-metrics.stderr" &
    pids+=("$!")
    wait_for "http://127.0.0.1:$metrics_port/healthz"
fi
wait_for "http://127.0.0.1:$portico_port/healthz"
wait_for "http://127.0.0.1:$baseline_port/healthz"

# Same bytes from both (apart from the Date header).
portico_head="$(curl -fsS -D - -o /dev/null "http://127.0.0.1:$portico_port/healthz" | grep -vi '^date:' | tr -d '\r')"
baseline_head="$(curl -fsS -D - -o /dev/null "http://127.0.0.1:$baseline_port/healthz" | grep -vi '^date:' | tr -d '\r')"
if [[ "$portico_head" != "$baseline_head" ]]; then
    echo "warning: the two servers answer with different headers:" >&2
    diff <(echo "$portico_head") <(echo "$baseline_head") >&2 || true
fi

run_wrk() {
    local name="$1" port="$2" round="$3"
    # Short warm-up, then the measured run.
    wrk -t"$wrk_threads" -c"$connections" -d2s "http://127.0.0.1:$port/healthz" >/dev/null
    wrk -t"$wrk_threads" -c"$connections" -d"$duration" --latency "http://127.0.0.1:$port/healthz" \
        >"$out_dir/wrk-$name-$round.txt"
}

# wrk prints latencies as 1.23ms / 456.00us / 1.02s; normalise to milliseconds.
to_ms() {
    awk -v v="$1" 'BEGIN {
        if (v ~ /us$/) { sub(/us$/, "", v); printf "%.3f", v / 1000 }
        else if (v ~ /ms$/) { sub(/ms$/, "", v); printf "%.3f", v }
        else if (v ~ /s$/) { sub(/s$/, "", v); printf "%.3f", v * 1000 }
        else { printf "%s", v }
    }'
}

requests_per_second() { awk '/^Requests\/sec:/ { print $2 }' "$1"; }
p99() { to_ms "$(awk '$1 == "99%" { print $2 }' "$1")"; }
errors() { awk '/Non-2xx|Socket errors/ { print }' "$1"; }

# Keeps the round with the most requests/s as bench/out/wrk-NAME.txt.
keep_best() {
    local name="$1" best="" best_rps=0 file rps
    for file in "$out_dir/wrk-$name-"*.txt; do
        rps="$(requests_per_second "$file")"
        if awk -v a="$rps" -v b="$best_rps" 'BEGIN { exit !(a > b) }'; then
            best="$file"
            best_rps="$rps"
        fi
    done
    cp "$best" "$out_dir/wrk-$name.txt"
}

rm -f "$out_dir"/wrk-*.txt
for round in $(seq 1 "$rounds"); do
    run_wrk portico "$portico_port" "$round"
    run_wrk baseline "$baseline_port" "$round"
    if [[ "$metrics" == "1" ]]; then run_wrk metrics "$metrics_port" "$round"; fi
done
keep_best portico
keep_best baseline
if [[ "$metrics" == "1" ]]; then keep_best metrics; fi

portico_rps="$(requests_per_second "$out_dir/wrk-portico.txt")"
baseline_rps="$(requests_per_second "$out_dir/wrk-baseline.txt")"
portico_p99="$(p99 "$out_dir/wrk-portico.txt")"
baseline_p99="$(p99 "$out_dir/wrk-baseline.txt")"
ratio="$(awk -v a="$portico_rps" -v b="$baseline_rps" 'BEGIN { printf "%.2f", a / b }')"

echo "wrk -t$wrk_threads -c$connections -d$duration --latency GET /healthz (best of $rounds round(s))"
printf "%-10s %12s req/s   p99 %8s ms\n" portico "$portico_rps" "$portico_p99"
printf "%-10s %12s req/s   p99 %8s ms\n" c-mhd "$baseline_rps" "$baseline_p99"
echo "ratio portico/c: $ratio (target >= 0.80)"
names=(portico baseline)
if [[ "$metrics" == "1" ]]; then
    metrics_rps="$(requests_per_second "$out_dir/wrk-metrics.txt")"
    metrics_p99="$(p99 "$out_dir/wrk-metrics.txt")"
    printf "%-10s %12s req/s   p99 %8s ms   (portico serve --metrics)\n" +metrics "$metrics_rps" "$metrics_p99"
    echo "ratio metrics-on/off: $(awk -v a="$metrics_rps" -v b="$portico_rps" 'BEGIN { printf "%.3f", a / b }')"
    curl -fsS "http://127.0.0.1:$metrics_port/metrics" \
        | grep -F 'portico_http_requests_total{route="/healthz",method="GET",status="200"}' >&2 \
        || echo "warning: /metrics did not count the /healthz requests" >&2
    names+=(metrics)
fi
for name in "${names[@]}"; do
    if [[ -n "$(errors "$out_dir/wrk-$name.txt")" ]]; then
        echo "$name: $(errors "$out_dir/wrk-$name.txt" | tr '\n' ' ')" >&2
    fi
done
