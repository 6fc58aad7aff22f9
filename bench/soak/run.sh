#!/usr/bin/env bash
# Soak and overload benchmark (issue 18): a release `portico serve` on SQLite, loopback.
#
#   1. capacity: the mixed load (bench/soak/mixed.lua: client_credentials, refresh rotation,
#      userinfo, a sign-in every 50 requests) with wrk -c CONNECTIONS for CAPACITY_SECONDS;
#   2. overload: the same mix with twice the connections for SOAK_SECONDS (60 s), while
#      probe.py times /healthz on fresh connections every 50 ms and samples the server's RSS:
#      zero 5xx but 503 with Retry-After, /healthz p99 < 100 ms, RSS at the end within 15 % of
#      RSS after 10 s, successful requests/s within 10 % of capacity;
#   3. slow clients: userinfo alone, with and without SLOW_CLIENTS connections (slow.py) that
#      each send a byte every SLOW_INTERVAL seconds.
#
# wrk is closed-loop (wrk2, which holds a fixed rate, is not in Debian): "2x" is twice the
# connections that measured capacity, i.e. twice the offered concurrency. The server caps
# connections per client address (128), so the probe and the slow clients come from
# 127.0.0.2-127.0.0.9 and wrk stays under the cap.
#
# Environment: CONNECTIONS (default 60), THREADS (2), CAPACITY_SECONDS (15), SOAK_SECONDS (60),
#   SLOW_CLIENTS (1000), SLOW_INTERVAL (3), SCRATCH (.build), PORTICO_BIN / SEED_BIN, PORT (18190).
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
here="$root/bench/soak"
idp="$root/bench/idp"
connections="${CONNECTIONS:-60}"
threads="${THREADS:-2}"
capacity_seconds="${CAPACITY_SECONDS:-15}"
soak_seconds="${SOAK_SECONDS:-60}"
slow_clients="${SLOW_CLIENTS:-1000}"
slow_interval="${SLOW_INTERVAL:-3}"
scratch="${SCRATCH:-.build}"
port="${PORT:-18190}"
out_dir="$root/bench/out/soak"
mkdir -p "$out_dir"
rm -f "$out_dir"/*.txt

for tool in wrk curl python3; do
    command -v "$tool" >/dev/null || { echo "bench/soak: $tool is not installed" >&2; exit 1; }
done
[[ $((2 * connections)) -lt 128 ]] || { echo "bench/soak: 2 x CONNECTIONS must stay under the per-client cap of 128" >&2; exit 1; }

tmp="$(mktemp -d "${TMPDIR:-/tmp}/portico-bench-soak.XXXXXX")"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ -z "${PORTICO_BIN:-}" || -z "${SEED_BIN:-}" ]]; then
    swift build -c release --product portico --scratch-path "$scratch" >&2
    swift build -c release --product portico-bench-seed --scratch-path "$scratch" >&2
fi
portico="${PORTICO_BIN:-$scratch/release/portico}"
seed="${SEED_BIN:-$scratch/release/portico-bench-seed}"

# Refresh tokens are single-use: enough for a third of the requests at 8,000/s.
refresh_tokens=$((3000 * (capacity_seconds + soak_seconds)))
echo "seeding (1000 users, $refresh_tokens refresh tokens)..." >&2
"$seed" --database "sqlite:$tmp/portico.db" --out "$tmp/seed" --users 1000 --families 1000 \
    --codes 0 --spare-codes 1000 --refresh-tokens "$refresh_tokens" --openid-refresh-tokens 0 \
    --es256-codes 0 --sso-codes 0 >&2
set -a
# shellcheck disable=SC1091
. "$tmp/seed/seed.env"
set +a

"$portico" serve --port "$port" --quiet --database "sqlite:$tmp/portico.db" \
    >"$out_dir/portico.stdout" 2>"$out_dir/portico.stderr" &
portico_pid="$!"
pids+=("$portico_pid")
base="http://127.0.0.1:$port"
for _ in $(seq 1 200); do curl -fsS -o /dev/null "$base/healthz" 2>/dev/null && break; sleep 0.05; done

python3 "$idp/prepare.py" tokens "$base" "$tmp/seed" "$tmp/access.txt"
python3 "$idp/prepare.py" login "$base" "$tmp/seed" "$tmp/login.env"
set -a
# shellcheck disable=SC1091
. "$tmp/login.env"
set +a
export BENCH_IDP_DIR="$idp" ACCESS_FILE="$tmp/access.txt"
export AUTHORIZATION="Basic $(printf '%s:%s' "$CLIENT_ID" "$CLIENT_SECRET" | base64 -w0)"
# Each phase takes its own share of the refresh tokens.
awk 'NR % 4 == 1' "$tmp/seed/refresh.txt" >"$tmp/refresh-capacity.txt"
awk 'NR % 4 != 1' "$tmp/seed/refresh.txt" >"$tmp/refresh-soak.txt"

count() { awk -v k="$2" '$1 == k { print $2 }' "$out_dir/$1.txt" | grep . || echo 0; }
elapsed_s() {
    awk '/ requests in / { v = $4; sub(/,$/, "", v);
        if (v ~ /ms$/) { sub(/ms$/, "", v); v /= 1000 } else if (v ~ /m$/) { sub(/m$/, "", v); v *= 60 } else { sub(/s$/, "", v) }
        print v }' "$out_dir/$1.txt"
}
rate() { awk -v ok="$(count "$1" OK)" -v s="$(elapsed_s "$1")" 'BEGIN { printf "%.0f", ok / s }'; }
p99() { awk '$1 == "99%" { print $2 }' "$out_dir/$1.txt"; }
socket_errors() {
    awk '/Socket errors:/ { n = 0; for (i = 3; i <= NF; i++) if ($i ~ /^[0-9]+,?$/) n += $i + 0; print n }' \
        "$out_dir/$1.txt" | grep . || echo 0
}

echo "capacity: ${capacity_seconds}s, -c$connections..." >&2
REFRESH_FILE="$tmp/refresh-capacity.txt" wrk -t"$threads" -c"$connections" -d"${capacity_seconds}s" --latency \
    -s "$here/mixed.lua" "$base" -- "$threads" >"$out_dir/capacity.txt"
capacity="$(rate capacity)"

echo "overload: ${soak_seconds}s, -c$((2 * connections)), /healthz probed..." >&2
python3 "$here/probe.py" 127.0.0.1 "$port" "$portico_pid" "$soak_seconds" >"$out_dir/probe.txt" &
probe_pid="$!"
REFRESH_FILE="$tmp/refresh-soak.txt" wrk -t"$threads" -c"$((2 * connections))" -d"${soak_seconds}s" --latency \
    --timeout 10s -s "$here/mixed.lua" "$base" -- "$threads" >"$out_dir/soak.txt"
wait "$probe_pid"
probe() { awk -v k="$1" '$1 == k { print $2 }' "$out_dir/probe.txt"; }
soak_rate="$(rate soak)"

echo "slow clients: userinfo with and without $slow_clients slow connections..." >&2
export ITEMS_FILE="$tmp/access.txt" BEARER=1 PATH_=/oauth/userinfo
wrk -t"$threads" -c32 -d10s --latency -s "$idp/cycle.lua" "$base" -- "$threads" >"$out_dir/userinfo-alone.txt"
python3 "$here/slow.py" 127.0.0.1 "$port" "$slow_clients" "$slow_interval" >"$out_dir/slow.txt" &
slow_pid="$!"
pids+=("$slow_pid")
for _ in $(seq 1 300); do grep -q SLOW_OPEN "$out_dir/slow.txt" 2>/dev/null && break; sleep 0.1; done
sleep 2
connections_during="$(curl -fsS "$base/healthz" -o /dev/null -w '%{http_code}')"
wrk -t"$threads" -c32 -d10s --latency -s "$idp/cycle.lua" "$base" -- "$threads" >"$out_dir/userinfo-slow.txt"
kill -TERM "$slow_pid"
wait "$slow_pid" || true
ok_rate_plain() {
    awk -v n="$(awk '/ requests in / { print $1 }' "$out_dir/$1.txt")" -v s="$(elapsed_s "$1")" \
        -v bad="$(awk '/Non-2xx/ { print $NF }' "$out_dir/$1.txt" | grep . || echo 0)" 'BEGIN { printf "%.0f", (n - bad) / s }'
}

verdict() { awk -v c="$1" 'BEGIN { print c ? "met" : "MISSED" }'; }
{
    echo "Portico soak, SQLite, loopback, $(nproc) cores shared by server and load, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "mixed load: client_credentials, refresh rotation, userinfo (1/3 each), a sign-in every 50 requests"
    echo
    echo "capacity (-c$connections, ${capacity_seconds}s): $capacity ok req/s, p99 $(p99 capacity)," \
        "5xx $(count capacity BAD_5XX), 503+Retry-After $(count capacity SHED_503), 4xx $(count capacity CLIENT_4XX)," \
        "socket errors $(socket_errors capacity)"
    echo "overload (-c$((2 * connections)), ${soak_seconds}s): $soak_rate ok req/s, p99 $(p99 soak)," \
        "503+Retry-After $(count soak SHED_503), 4xx $(count soak CLIENT_4XX), socket errors $(socket_errors soak)"
    echo "  5xx other than 503 with Retry-After: $(count soak BAD_5XX) (target 0): $(verdict "$(( $(count soak BAD_5XX) == 0 ))")"
    served="$(awk -v a="$soak_rate" -v b="$capacity" 'BEGIN { printf "%.2f", a / b }')"
    echo "  rate served / capacity: $served (target within 10 %): $(verdict "$(awk -v r="$served" 'BEGIN { print (r >= 0.9 && r <= 1.1) }')")"
    echo "  /healthz during overload: $(probe HEALTHZ_SAMPLES) probes, $(probe HEALTHZ_FAILURES) failed," \
        "p50 $(probe HEALTHZ_P50_MS) ms, p99 $(probe HEALTHZ_P99_MS) ms, max $(probe HEALTHZ_MAX_MS) ms" \
        "(target p99 < 100 ms): $(verdict "$(awk -v p="$(probe HEALTHZ_P99_MS)" 'BEGIN { print (p < 100) }')")"
    echo "  RSS after 10 s $(awk -v k="$(probe RSS_10S_KB)" 'BEGIN { printf "%.1f", k / 1024 }') MB, at the end" \
        "$(awk -v k="$(probe RSS_END_KB)" 'BEGIN { printf "%.1f", k / 1024 }') MB: $(probe RSS_GROWTH) % (target within 15 %):" \
        "$(verdict "$(awk -v g="$(probe RSS_GROWTH)" 'BEGIN { print (g <= 15 && g >= -15) }')")"
    echo
    echo "slow clients ($(awk '$1 == "SLOW_OPEN" { print $2 }' "$out_dir/slow.txt") of $slow_clients open, a byte every ${slow_interval}s;" \
        "cut off and reopened $(awk '$1 == "SLOW_CUT" { print $2 }' "$out_dir/slow.txt") times; /healthz during: $connections_during):"
    echo "  userinfo -c32 alone:             $(ok_rate_plain userinfo-alone) ok req/s, p99 $(p99 userinfo-alone)"
    echo "  userinfo -c32 with slow clients: $(ok_rate_plain userinfo-slow) ok req/s, p99 $(p99 userinfo-slow)"
} | tee "$out_dir/summary.txt"
