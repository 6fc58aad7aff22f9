#!/usr/bin/env bash
# Soak and overload benchmark (issue 18): a release `portico serve` on SQLite, loopback.
#
#   1. capacity: the mixed load (bench/soak/mixed.lua: client_credentials, refresh rotation,
#      userinfo, a sign-in every 50 requests) offered at a fixed rate (mixed.lua's RATE: each
#      wrk connection waits for its slot in a timetable, so the rate offered does not fall when
#      the server slows down), STEP_SECONDS per step, from START_RATE up by a quarter each
#      step, then two halving steps between the last pass and the first failure. A step passes
#      when it gets no 503 and no other 5xx, serves >= 95 % of what it offered, and its p99 is
#      under P99_BOUND_MS. Capacity is the rate served (2xx/3xx answers per second) at the best
#      passing step;
#   2. overload: the same mix offered at twice that rate for SOAK_SECONDS (60 s), while
#      probe.py times /healthz on fresh connections every 50 ms and samples the server's RSS:
#      zero 5xx but 503 with Retry-After, /healthz p99 < 100 ms, RSS at the end within 15 % of
#      RSS after 10 s, and the rate served (2xx/3xx answers per second; 503s, 4xx, missed
#      slots not counted) within 10 % of capacity or above it;
#   3. slow clients: userinfo alone, then with SLOW_CLIENTS connections (slow.py) that each send
#      a byte every SLOW_INTERVAL seconds, all from one address (the per-client cap of 128
#      lets 128 in), then spread over SLOW_SOURCES loopback addresses (all of them in).
#
# wrk cannot bind a source address, so all its connections come from 127.0.0.1 and stay under
# the server's per-client cap (128): CONNECTIONS (120) bounds how many requests can be in
# flight; a slot that finds every connection busy is counted as missed, not sent late.
#
# Environment: CONNECTIONS (120), THREADS (2), START_RATE (400), STEP_SECONDS (10),
#   P99_BOUND_MS (500), CAPACITY (skip the search and use this), SOAK_SECONDS (60),
#   SLOW_CLIENTS (1000), SLOW_INTERVAL (3), SLOW_SOURCES (125), SCRATCH (.build),
#   PORTICO_BIN / SEED_BIN, PORT (18290).
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
here="$root/bench/soak"
idp="$root/bench/idp"
connections="${CONNECTIONS:-120}"
threads="${THREADS:-2}"
start_rate="${START_RATE:-400}"
step_seconds="${STEP_SECONDS:-10}"
p99_bound_ms="${P99_BOUND_MS:-500}"
soak_seconds="${SOAK_SECONDS:-60}"
slow_clients="${SLOW_CLIENTS:-1000}"
slow_interval="${SLOW_INTERVAL:-3}"
slow_sources="${SLOW_SOURCES:-125}"
scratch="${SCRATCH:-.build}"
port="${PORT:-18290}"
out_dir="$root/bench/out/soak"
mkdir -p "$out_dir"
rm -f "$out_dir"/*.txt

for tool in wrk curl python3; do
    command -v "$tool" >/dev/null || { echo "bench/soak: $tool is not installed" >&2; exit 1; }
done
[[ "$connections" -lt 128 ]] || { echo "bench/soak: CONNECTIONS must stay under the per-client cap of 128" >&2; exit 1; }

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

# Refresh tokens are single-use: a third of the requests at up to 4,500/s for the soak and
# the capacity steps (a thread that runs out sends userinfo instead).
refresh_tokens=$((1500 * (60 + soak_seconds)))
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
# Another server on the port would answer the health check with the wrong database.
kill -0 "$portico_pid" 2>/dev/null || { echo "bench/soak: portico did not start:" "$(tail -1 "$out_dir/portico.stderr")" >&2; exit 1; }

python3 "$idp/prepare.py" tokens "$base" "$tmp/seed" "$tmp/access.txt"
python3 "$idp/prepare.py" login "$base" "$tmp/seed" "$tmp/login.env"
set -a
# shellcheck disable=SC1091
. "$tmp/login.env"
set +a
export BENCH_IDP_DIR="$idp" ACCESS_FILE="$tmp/access.txt"
export AUTHORIZATION="Basic $(printf '%s:%s' "$CLIENT_ID" "$CLIENT_SECRET" | base64 -w0)"
# Each phase takes its own slice of the refresh tokens (single-use): a third of what it offers.
refresh_cursor=1
refresh_slice() {
    local first="$refresh_cursor" count=$(($1 * $2 / 3 + 100))
    refresh_cursor=$((first + count))
    sed -n "${first},$((first + count - 1))p" "$tmp/seed/refresh.txt" >"$tmp/refresh-slice.txt"
}

count() { awk -v k="$2" '$1 == k { print $2 }' "$out_dir/$1.txt" | grep . || echo 0; }
elapsed_s() {
    awk '/ requests in / { v = $4; sub(/,$/, "", v);
        if (v ~ /ms$/) { sub(/ms$/, "", v); v /= 1000 } else if (v ~ /m$/) { sub(/m$/, "", v); v *= 60 } else { sub(/s$/, "", v) }
        print v }' "$out_dir/$1.txt"
}
# 2xx and 3xx answers per second: what was served; 503s, other errors and missed slots are not.
rate() { awk -v ok="$(count "$1" OK)" -v s="$(elapsed_s "$1")" 'BEGIN { printf "%.0f", ok / s }'; }
sent_rate() { awk -v n="$(count "$1" SENT)" -v s="$(elapsed_s "$1")" 'BEGIN { printf "%.0f", n / s }'; }
p99() { awk '$1 == "99%" { print $2 }' "$out_dir/$1.txt"; }
p99_ms() {
    p99 "$1" | awk '{ v = $1; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) }
        else if (v ~ /m$/) { sub(/m$/, "", v); v *= 60000 } else { sub(/s$/, "", v); v *= 1000 } printf "%.1f", v }'
}
socket_errors() {
    awk '/Socket errors:/ { n = 0; for (i = 3; i <= NF; i++) if ($i ~ /^[0-9]+,?$/) n += $i + 0; print n }' \
        "$out_dir/$1.txt" | grep . || echo 0
}
# Waits (at most 30 s) until the server holds no connection from 127.0.0.1 any more. wrk
# closes its connections when a step ends, but the server keeps those whose requests are still
# being answered (a suspended sign-in cannot see its client leave); the next step's 120 would then
# meet the per-client cap (128), and wrk reconnects each refused connection at once, tens of
# thousands of times a second, which took the cores for the next steps and the soak (socket
# errors by the hundred thousand, the soak serving 0.67 of capacity).
settle() {
    for _ in $(seq 1 300); do
        [[ "$(ss -Htn state established "( sport = :$port and dst 127.0.0.1 )" | wc -l)" -eq 0 ]] && return
        sleep 0.1
    done
    echo "bench/soak: connections of the previous step still open after 30 s" >&2
}
# mixed NAME RATE SECONDS REFRESH_FILE: the mixed load offered at RATE requests/s.
mixed() {
    settle
    RATE="$2" REFRESH_FILE="$4" wrk -t"$threads" -c"$connections" -d"${3}s" --latency --timeout 10s \
        -s "$here/mixed.lua" "$base" -- "$threads" >"$out_dir/$1.txt"
}
line() {
    echo "$1: offered $2/s, sent $(sent_rate "$1")/s, served $(rate "$1") ok/s, p99 $(p99 "$1")," \
        "503+Retry-After $(count "$1" SHED_503), other 5xx $(count "$1" BAD_5XX), 4xx $(count "$1" CLIENT_4XX)," \
        "missed slots $(count "$1" MISSED), socket errors $(socket_errors "$1")"
}
passes() {
    awk -v shed="$(count "$1" SHED_503)" -v bad="$(count "$1" BAD_5XX)" -v served="$(rate "$1")" -v offered="$2" \
        -v p99="$(p99_ms "$1")" -v bound="$p99_bound_ms" \
        'BEGIN { exit !(shed == 0 && bad == 0 && served >= 0.95 * offered && p99 < bound) }'
}

steps=()
if [[ -n "${CAPACITY:-}" ]]; then
    capacity="$CAPACITY"
    echo "capacity given: $capacity ok/s" >&2
else
    echo "capacity: stepping up from $start_rate/s, ${step_seconds}s a step..." >&2
    offered="$start_rate" best=0 best_offered=0 failed=0
    while true; do
        name="step-$offered"
        refresh_slice "$offered" "$step_seconds"
        mixed "$name" "$offered" "$step_seconds" "$tmp/refresh-slice.txt"
        steps+=("$(line "$name" "$offered")")
        echo "  ${steps[-1]}" >&2
        if passes "$name" "$offered"; then
            best="$(rate "$name")" best_offered="$offered"
            offered=$((offered * 5 / 4))
        else
            failed="$offered"
            break
        fi
    done
    for _ in 1 2; do
        offered=$(((best_offered + failed) / 2))
        [[ $((failed - best_offered)) -gt $((best_offered / 20)) ]] || break
        name="step-$offered"
        refresh_slice "$offered" "$step_seconds"
        mixed "$name" "$offered" "$step_seconds" "$tmp/refresh-slice.txt"
        steps+=("$(line "$name" "$offered")")
        echo "  ${steps[-1]}" >&2
        if passes "$name" "$offered"; then best="$(rate "$name")" best_offered="$offered"; else failed="$offered"; fi
    done
    capacity="$best"
fi
[[ "$capacity" -gt 0 ]] || { echo "bench/soak: no step passed; lower START_RATE" >&2; exit 1; }
overload=$((2 * capacity))

echo "overload: ${soak_seconds}s at $overload/s (2 x $capacity), /healthz probed..." >&2
settle
python3 "$here/probe.py" 127.0.0.1 "$port" "$portico_pid" "$soak_seconds" >"$out_dir/probe.txt" &
probe_pid="$!"
refresh_slice "$overload" "$soak_seconds"
mixed soak "$overload" "$soak_seconds" "$tmp/refresh-slice.txt"
wait "$probe_pid"
probe() { awk -v k="$1" '$1 == k { print $2 }' "$out_dir/probe.txt"; }
soak_rate="$(rate soak)"

echo "slow clients: userinfo with and without $slow_clients slow connections..." >&2
export ITEMS_FILE="$tmp/access.txt" BEARER=1 PATH_=/oauth/userinfo
userinfo() { wrk -t"$threads" -c32 -d10s --latency -s "$idp/cycle.lua" "$base" -- "$threads" >"$out_dir/$1.txt"; }
# slow_phase NAME SOURCES: userinfo while slow.py holds SLOW_CLIENTS connections from SOURCES addresses.
slow_phase() {
    python3 "$here/slow.py" 127.0.0.1 "$port" "$slow_clients" "$slow_interval" "$2" >"$out_dir/$1-slow.txt" &
    local slow_pid="$!"
    pids+=("$slow_pid")
    for _ in $(seq 1 300); do grep -q SLOW_OPEN "$out_dir/$1-slow.txt" 2>/dev/null && break; sleep 0.1; done
    sleep 2
    curl -sS -m 5 "$base/healthz" -o /dev/null -w '%{http_code}' >"$out_dir/$1-healthz.txt" || true
    userinfo "$1"
    kill -TERM "$slow_pid"
    wait "$slow_pid" || true
}
userinfo userinfo-alone
slow_phase userinfo-one-address 1
slow_phase userinfo-many-addresses "$slow_sources"
ok_rate_plain() {
    awk -v n="$(awk '/ requests in / { print $1 }' "$out_dir/$1.txt")" -v s="$(elapsed_s "$1")" \
        -v bad="$(awk '/Non-2xx/ { print $NF }' "$out_dir/$1.txt" | grep . || echo 0)" 'BEGIN { printf "%.0f", (n - bad) / s }'
}
slow() { awk -v k="$2" '$1 == k { print $2 }' "$out_dir/$1-slow.txt"; }

verdict() { awk -v c="$1" 'BEGIN { print c ? "met" : "MISSED" }'; }
{
    echo "Portico soak, SQLite, loopback, $(nproc) cores shared by server and load, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "mixed load: client_credentials, refresh rotation, userinfo (1/3 each), a sign-in every 50 requests;" \
        "fixed offered rate, $connections connections"
    echo
    if [[ ${#steps[@]} -gt 0 ]]; then
        echo "capacity search (${step_seconds}s steps; pass: no 503, no 5xx, served >= 95 % offered, p99 < ${p99_bound_ms} ms):"
        for step in "${steps[@]}"; do echo "  $step"; done
    fi
    echo "capacity: $capacity ok/s"
    echo "overload (${soak_seconds}s): $(line soak "$overload")"
    echo "  5xx other than 503 with Retry-After: $(count soak BAD_5XX) (target 0): $(verdict "$(( $(count soak BAD_5XX) == 0 ))")"
    served="$(awk -v a="$soak_rate" -v b="$capacity" 'BEGIN { printf "%.2f", a / b }')"
    echo "  rate served / capacity: $soak_rate / $capacity = $served (target >= 0.90): $(verdict "$(awk -v r="$served" 'BEGIN { print (r >= 0.9) }')")"
    echo "  /healthz during overload: $(probe HEALTHZ_SAMPLES) probes, $(probe HEALTHZ_FAILURES) failed," \
        "p50 $(probe HEALTHZ_P50_MS) ms, p99 $(probe HEALTHZ_P99_MS) ms, max $(probe HEALTHZ_MAX_MS) ms" \
        "(target p99 < 100 ms): $(verdict "$(awk -v p="$(probe HEALTHZ_P99_MS)" 'BEGIN { print (p < 100) }')")"
    echo "  epoll threads (answer /healthz) ran $(probe EPOLL_RUN_MS_PER_S) ms/s and waited for a core" \
        "$(probe EPOLL_WAIT_MS_PER_S) ms/s; the server's other threads ran $(probe OTHER_RUN_MS_PER_S) ms/s," \
        "waited $(probe OTHER_WAIT_MS_PER_S) ms/s; load average at the end $(probe LOAD_AVERAGE)"
    echo "  RSS after 10 s $(awk -v k="$(probe RSS_10S_KB)" 'BEGIN { printf "%.1f", k / 1024 }') MB, at the end" \
        "$(awk -v k="$(probe RSS_END_KB)" 'BEGIN { printf "%.1f", k / 1024 }') MB (lowest of 10-15 s and of the last 5 s;" \
        "peak $(awk -v k="$(probe RSS_PEAK_KB)" 'BEGIN { printf "%.1f", k / 1024 }') MB): $(probe RSS_GROWTH) % (target within 15 %):" \
        "$(verdict "$(awk -v g="$(probe RSS_GROWTH)" 'BEGIN { print (g <= 15 && g >= -15) }')")"
    echo "RESULT capacity=$capacity offered=$overload served=$soak_rate ratio=$served shed503=$(count soak SHED_503)" \
        "bad5xx=$(count soak BAD_5XX) healthz_p50_ms=$(probe HEALTHZ_P50_MS) healthz_p99_ms=$(probe HEALTHZ_P99_MS) healthz_max_ms=$(probe HEALTHZ_MAX_MS) epoll_wait_ms_per_s=$(probe EPOLL_WAIT_MS_PER_S) load=$(probe LOAD_AVERAGE) rss_10s_kb=$(probe RSS_10S_KB) rss_end_kb=$(probe RSS_END_KB)"
    echo
    echo "slow clients ($slow_clients connections, a byte every ${slow_interval}s; per-client cap 128); userinfo -c32 for 10 s:"
    echo "  alone:                             $(ok_rate_plain userinfo-alone) ok req/s, p99 $(p99 userinfo-alone)"
    for phase in one-address:1 many-addresses:"$slow_sources"; do
        name="userinfo-${phase%%:*}"
        printf '  from %-3s address(es): %4s held open, cut %s times, /healthz %s: %s ok req/s, p99 %s\n' "${phase##*:}" \
            "$(slow "$name" SLOW_OPEN)" "$(slow "$name" SLOW_CUT)" "$(cat "$out_dir/$name-healthz.txt")" \
            "$(ok_rate_plain "$name")" "$(p99 "$name")"
    done
} | tee "$out_dir/summary.txt"
