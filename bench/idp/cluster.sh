#!/usr/bin/env bash
# PostgreSQL beside SQLite, one run (issue 12): the write- and sign-bound scenarios of
# bench/idp/run.sh against
#
#   sqlite-1    one release `portico serve` on SQLite (the embedded default)
#   postgres-1  one node on PostgreSQL
#   postgres-3  three nodes on PostgreSQL behind nginx (deploy/ as it is, through
#               tests/support/portico_cluster.py, as `make cluster` runs them)
#   postgres-3-standby
#               the same three nodes on a primary with a synchronous standby attached
#               (tests/support/portico_replication.py, as `make cluster` runs it:
#               synchronous_commit=on, synchronous_standby_names, fsync off like the others);
#               besides the nodes' and the backends' CPU it counts the replication's (the
#               primary's walsender and every process of the standby) and the write
#               transactions per request, each of which waits one round trip for the standby
#
# each on a freshly seeded database (portico-bench-seed, SCALE users and refresh families and
# the single-use codes and tokens the scenarios spend), with wrk over loopback: client
# credentials, refresh rotation, code redemption (RS256 and ES256 ID tokens), userinfo,
# sign-ins (POST /login, against the Argon2id ceiling); then `pgbench` with a one-row UPDATE
# transaction on the same server as the ceiling of write-bound grants, and the peak RSS of
# every node. Everything shares the machine's cores: nodes, nginx, PostgreSQL and wrk.
#
#   bench/idp/cluster.sh                 SCALE=1000, DURATION=5s
#   SCALE=1000000 bench/idp/cluster.sh   a million users and families (seeding takes long)
#   CONFIGS=postgres-1 SCENARIOS=refresh-rotation bench/idp/cluster.sh
#                                        only those configurations and scenarios (and pgbench)
#   PORTICO_BIN=a PORTICO_BIN_B=b ...    each configuration with binary a, then with b (named
#                                        CONFIG and CONFIG-b), side by side on one server;
#                                        SEED_BIN_B seeds b's databases (b's schema may be newer)
#   PERF_DIR=dir ...                     also records the nodes with `perf record -g` during
#                                        each scenario, one file per configuration and scenario
#
# Runs itself under scripts/with-postgres (a throwaway server, stopped and removed at the end;
# it runs with fsync off, as the tests' server does, and so does pgbench's ceiling).
# Figures go to bench/out/idp-cluster-SCALE/summary.txt.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
if [[ -z "${PORTICO_TEST_POSTGRES_URL:-}" ]]; then exec scripts/with-postgres "$0" "$@"; fi
here="$root/bench/idp"

scale="${SCALE:-1000}"
duration="${DURATION:-5s}"
wrk_threads="${THREADS:-2}"
connections="${CONNECTIONS:-32}"
login_connections="${LOGIN_CONNECTIONS:-16}"
codes_per_second="${CODES_PER_SECOND:-8000}"
refresh_per_second="${REFRESH_PER_SECOND:-16000}"
dpop_per_second="${DPOP_PER_SECOND:-16000}"
scratch="${SCRATCH:-.build}"
out_dir="${OUT_DIR:-$root/bench/out/idp-cluster-$scale}"
all_configs="sqlite-1 postgres-1 postgres-3 postgres-3-standby"
all_scenarios="client-credentials refresh-rotation refresh-rotation-dpop code-redemption-rs256 code-redemption-es256 userinfo userinfo-dpop sign-in"
read -r -a configs <<<"${CONFIGS:-$all_configs}"
read -r -a scenarios <<<"${SCENARIOS:-$all_scenarios}"
for item in "${configs[@]}"; do [[ " $all_configs " == *" $item "* ]] || { echo "bench/idp/cluster: unknown configuration $item (one of: $all_configs)" >&2; exit 2; }; done
for item in "${scenarios[@]}"; do [[ " $all_scenarios " == *" $item "* ]] || { echo "bench/idp/cluster: unknown scenario $item (one of: $all_scenarios)" >&2; exit 2; }; done
wants() { [[ " ${scenarios[*]} " == *" $1 "* ]]; }
cores="$(nproc)"
if wants refresh-rotation-dpop || wants userinfo-dpop; then venv="$(scripts/python-env)"; fi
seconds="$(awk -v d="$duration" 'BEGIN { n = d + 0; if (d ~ /m$/) n *= 60; print int(n) }')"

for tool in wrk curl python3 pgbench nginx; do
    command -v "$tool" >/dev/null || { echo "bench/idp/cluster: $tool is not installed" >&2; exit 1; }
done

if [[ -z "${PORTICO_BIN:-}" || -z "${SEED_BIN:-}" ]]; then
    swift build -c release --product portico --scratch-path "$scratch" >&2
    swift build -c release --product portico-bench-seed --scratch-path "$scratch" >&2
fi
portico="$(cd "$root" && realpath "${PORTICO_BIN:-$scratch/release/portico}")"
seed="$(realpath "${SEED_BIN:-$scratch/release/portico-bench-seed}")"
portico_b="${PORTICO_BIN_B:+$(realpath "$PORTICO_BIN_B")}"
seed_a="$seed"
seed_b="$(realpath "${SEED_BIN_B:-$seed}")"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/portico-bench-cluster.XXXXXX")"
chmod 0755 "$tmp"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$out_dir"
rm -f "$out_dir"/*.txt

server_url="${PORTICO_TEST_POSTGRES_URL%/*}"
psql_bin="$PORTICO_TEST_POSTGRES_BINDIR/psql"
create_database() {
    "$psql_bin" -X -q -v ON_ERROR_STOP=1 "$server_url/postgres" -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" >/dev/null
}

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for() {
    for _ in $(seq 1 400); do
        if curl -fsS -o /dev/null "$1" 2>/dev/null; then return 0; fi
        sleep 0.05
    done
    echo "bench/idp/cluster: $1 did not come up" >&2
    exit 1
}

# wrk's output -> figures (as in run.sh).
to_ms() {
    awk -v v="$1" 'BEGIN {
        if (v ~ /us$/) { sub(/us$/, "", v); printf "%.2f", v / 1000 }
        else if (v ~ /ms$/) { sub(/ms$/, "", v); printf "%.2f", v }
        else if (v ~ /s$/) { sub(/s$/, "", v); printf "%.2f", v * 1000 }
        else { printf "%s", v } }'
}
p99() { to_ms "$(awk '$1 == "99%" { print $2 }' "$1")"; }
ok_rate() {
    local file="$1" ok ms
    if [[ "$file" == *sign-in* ]]; then
        ok="$(awk '$1 == "SIGNED_IN" { print $2 }' "$file" | grep . || echo 0)"
    else
        ok=$(($(awk '/ requests in / { print $1 }' "$file") - $(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$file" | grep . || echo 0)))
    fi
    ms="$(to_ms "$(awk '/ requests in / { v = $4; sub(/,$/, "", v); print v }' "$file")")"
    awk -v ok="$ok" -v ms="$ms" 'BEGIN { printf "%.1f", ok / (ms / 1000) }'
}
errors() {
    local file="$1"
    if [[ "$file" == *sign-in* ]]; then awk '$1 == "FAILED" { print $2 }' "$file" | grep . || echo 0
    else awk '/Non-2xx or 3xx responses:/ { print $NF }' "$file" | grep . || echo 0; fi
}

# CPU time (clock ticks, user + system) the processes $@ have used; those gone count 0.
cpu_ticks() {
    local total=0 pid
    for pid in "$@"; do
        [[ -r "/proc/$pid/stat" ]] || continue
        total=$((total + $(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0)))
    done
    echo "$total"
}
# The PostgreSQL backends serving database URL $1 (none for SQLite).
backends() {
    [[ "$1" == postgres* ]] || return 0
    local name="${1##*/}"
    pgrep -f "^postgres: .* ${name%%\?*} " || true
}
# With the standby attached: the replication's processes (the primary's walsender, the standby's
# postmaster and all its children: walreceiver, startup, checkpointer ...); none otherwise.
replication() {
    [[ -n "${REPLICATED_STANDBY_PID:-}" ]] || return 0
    pgrep -f "^postgres: walsender" || true
    echo "$REPLICATED_STANDBY_PID"
    pgrep -P "$REPLICATED_STANDBY_PID" || true
}
# The next transaction id of the database at URL $1 (with the standby attached; 0 otherwise):
# its growth over a run is the transactions that wrote, each of which waits for the standby.
next_xid() {
    [[ -n "${REPLICATED_STANDBY_PID:-}" ]] || { echo 0; return; }
    "$psql_bin" -X -At "$1" -c "SELECT txid_snapshot_xmax(txid_current_snapshot())"
}
# CPU microseconds per successful request of one run, from its .cpu file: field $2 (1 = the
# nodes, 2 = PostgreSQL's backends).
cpu_per_request() {
    local file="$1" field="$2" ticks ok
    [[ -f "${file%.txt}.cpu" ]] || { echo "-"; return; }
    ticks="$(awk -v f="$field" '{ print $f }' "${file%.txt}.cpu")"
    ok=$(($(awk '/ requests in / { print $1 }' "$file") - $(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$file" | grep . || echo 0)))
    awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" -v ok="$ok" 'BEGIN { printf "%.0f", (ok > 0) ? t * 1e6 / hz / ok : 0 }'
}

# One configuration: seed, start, prepare, load. $1 = name, $2 = database URL, $3 = how to serve,
# $4 = the portico binary.
run_config() {
    local name="$1" database="$2" mode="$3" portico="$4" seed_dir="$tmp/$1-seed" base key_file node_pids=() info
    local codes=0 es256_codes=0 refresh_tokens=0
    if wants code-redemption-rs256; then codes=$((codes_per_second * seconds)); fi
    if wants code-redemption-es256; then es256_codes=$((codes_per_second * seconds)); fi
    local bearer_refresh=0 dpop_refresh=0 dpop_codes=0
    if wants refresh-rotation; then bearer_refresh=$((refresh_per_second * seconds)); fi
    if wants refresh-rotation-dpop; then dpop_refresh=$((refresh_per_second * seconds)); fi
    if wants userinfo-dpop; then dpop_codes=50; fi
    refresh_tokens=$((bearer_refresh + dpop_refresh))
    echo "== $name: seeding $scale users and $scale refresh families..." >&2
    local started=$SECONDS
    "$seed" --database "$database" --out "$seed_dir" --users "$scale" --families "$scale" \
        --codes "$codes" --spare-codes $((300 + dpop_codes)) \
        --refresh-tokens "$refresh_tokens" --openid-refresh-tokens 10 \
        --es256-codes "$es256_codes" --sso-codes 10 >&2
    echo "$name seeding: $((SECONDS - started)) s" >"$out_dir/$name-seed-time.txt"
    # The DPoP scenarios spend tokens and codes of their own: the seed's last ones.
    if [[ -f "$seed_dir/refresh.txt" ]]; then
        tail -n +$((bearer_refresh + 1)) "$seed_dir/refresh.txt" >"$seed_dir/refresh-dpop.txt"
        head -n "$bearer_refresh" "$seed_dir/refresh.txt" >"$seed_dir/refresh-bearer.txt"
    fi
    tail -n "$dpop_codes" "$seed_dir/spare-codes.txt" >"$seed_dir/spare-codes-dpop.txt"
    head -n 300 "$seed_dir/spare-codes.txt" >"$seed_dir/spare-codes-bearer.txt"
    mv "$seed_dir/spare-codes-bearer.txt" "$seed_dir/spare-codes.txt"
    case "$mode" in
        single)
            local port
            port="$(free_port)"
            key_file="$tmp/$name.key"
            local extra=()
            if [[ "$database" == postgres* ]]; then
                "$portico" migrate --database "$database" --key-file "$key_file" >/dev/null
                extra=(--key-file "$key_file")
            fi
            "$portico" serve --port "$port" --quiet --database "$database" "${extra[@]}" \
                >"$out_dir/$name.stdout" 2>"$out_dir/$name.stderr" &
            node_pids=("$!")
            pids+=("$!")
            base="http://127.0.0.1:$port"
            ;;
        cluster)
            info="$tmp/$name.info"
            python3 tests/support/portico_cluster.py serve "$portico" "$database" "$info" \
                >"$out_dir/$name.cluster.log" 2>&1 &
            local cluster_pid="$!"
            pids+=("$cluster_pid")
            for _ in $(seq 1 600); do [[ -f "$info" ]] && break; sleep 0.1; done
            [[ -f "$info" ]] || { echo "bench/idp/cluster: the cluster did not start" >&2; cat "$out_dir/$name.cluster.log" >&2; exit 1; }
            # shellcheck disable=SC1090
            . "$info"
            base="$CLUSTER_URL"
            read -r -a node_pids <<<"$CLUSTER_NODE_PIDS"
            ;;
    esac
    wait_for "$base/healthz"

    python3 "$here/prepare.py" tokens "$base" "$seed_dir" "$tmp/$name-access.txt"
    python3 "$here/prepare.py" login "$base" "$seed_dir" "$tmp/$name-login.env"
    (
        set -a
        # shellcheck disable=SC1090,SC1091
        . "$seed_dir/seed.env"
        # shellcheck disable=SC1090
        . "$tmp/$name-login.env"
        set +a
        export BENCH_IDP_DIR="$here"
        export AUTHORIZATION="Basic $(printf '%s:%s' "$CLIENT_ID" "$CLIENT_SECRET" | base64 -w0)"
        authorization_es256="Basic $(printf '%s:%s' "$CLIENT_ID_ES256" "$CLIENT_SECRET_ES256" | base64 -w0)"
        redirect="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$REDIRECT_URI")"
        load=(-t"$wrk_threads" -c"$connections" -d"$duration" --latency)
        one() {
            wants "$1" || return 0
            echo "  $name: $1" >&2
            shift_name="$1"
            shift
            local node_before pg_before repl_before xid_before
            node_before="$(cpu_ticks "${node_pids[@]}")"
            pg_before="$(cpu_ticks $(backends "$database"))"
            repl_before="$(cpu_ticks $(replication))"
            xid_before="$(next_xid "$database")"
            # PERF_DIR=dir: the nodes' on-CPU call graphs during each scenario, for `perf report`.
            local perf_pid=""
            if [[ -n "${PERF_DIR:-}" ]]; then
                mkdir -p "$PERF_DIR"
                perf record -q -F 499 -g -p "$(IFS=,; echo "${node_pids[*]}")" \
                    -o "$PERF_DIR/$name-$shift_name.data" 2>/dev/null &
                perf_pid="$!"
            fi
            wrk "$@" >"$out_dir/$name-$shift_name.txt"
            if [[ -n "$perf_pid" ]]; then kill -INT "$perf_pid" 2>/dev/null || true; wait "$perf_pid" 2>/dev/null || true; fi
            echo "$(($(cpu_ticks "${node_pids[@]}") - node_before)) $(($(cpu_ticks $(backends "$database")) - pg_before))" \
                "$(($(cpu_ticks $(replication)) - repl_before)) $(($(next_xid "$database") - xid_before))" \
                >"$out_dir/$name-$shift_name.cpu"
        }
        PATH_=/oauth/token BODY="grant_type=client_credentials&scope=$PRODUCT_SCOPE" \
            one client-credentials "${load[@]}" -s "$here/post.lua" "$base"
        ITEMS_FILE="$seed_dir/refresh-bearer.txt" BODY="grant_type=refresh_token&refresh_token={}" \
            one refresh-rotation "${load[@]}" -s "$here/once.lua" "$base" -- "$wrk_threads"
        # DPoP (issue 27): the same grant with a proof each, signed just before the run (the
        # server takes proofs within 120 s of their iat); every proof's jti is a replay-cache row.
        if wants refresh-rotation-dpop; then
            "$venv/bin/python" "$here/dpop_proofs.py" refresh "$base" "$seed_dir/refresh-dpop.txt" "$tmp/$name-refresh-dpop.txt"
            ITEMS_FILE="$tmp/$name-refresh-dpop.txt" PATH_=/oauth/token BODY="grant_type=refresh_token&refresh_token={}" \
                one refresh-rotation-dpop "${load[@]}" -s "$here/dpop.lua" "$base" -- "$wrk_threads"
        fi
        ITEMS_FILE="$seed_dir/codes.txt" \
            BODY="grant_type=authorization_code&code={}&redirect_uri=$redirect&code_verifier=$CODE_VERIFIER" \
            one code-redemption-rs256 "${load[@]}" -s "$here/once.lua" "$base" -- "$wrk_threads"
        ITEMS_FILE="$seed_dir/codes-es256.txt" AUTHORIZATION="$authorization_es256" \
            BODY="grant_type=authorization_code&code={}&redirect_uri=$redirect&code_verifier=$CODE_VERIFIER" \
            one code-redemption-es256 "${load[@]}" -s "$here/once.lua" "$base" -- "$wrk_threads"
        ITEMS_FILE="$tmp/$name-access.txt" BEARER=1 PATH_=/oauth/userinfo \
            one userinfo "${load[@]}" -s "$here/cycle.lua" "$base" -- "$wrk_threads"
        if wants userinfo-dpop; then
            "$venv/bin/python" "$here/dpop_proofs.py" userinfo "$base" "$seed_dir" $((dpop_per_second * seconds)) \
                "$tmp/$name-userinfo-dpop.txt"
            ITEMS_FILE="$tmp/$name-userinfo-dpop.txt" METHOD=GET PATH_=/oauth/userinfo DPOP_TOKEN=1 \
                one userinfo-dpop "${load[@]}" -s "$here/dpop.lua" "$base" -- "$wrk_threads"
        fi
        one sign-in -t"$wrk_threads" -c"$login_connections" -d"$duration" --latency --timeout 30s \
            -s "$here/login.lua" "$base" -- "$wrk_threads"
    )
    local rss=()
    for pid in "${node_pids[@]}"; do
        rss+=("$(awk '/^VmHWM:/ { printf "%.1f", $2 / 1024 }' "/proc/$pid/status")")
    done
    echo "${rss[*]}" >"$out_dir/$name-rss.txt"
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    pids=()
}

# Every selected configuration, with the second binary right after the first when there is one.
run_selected() {
    local suffix="$1" binary="$2"
    seed="$3"
    for config in "${configs[@]}"; do
        case "$config" in
            sqlite-1)
                rm -rf "$tmp/sqlite"
                mkdir -p "$tmp/sqlite"
                run_config "sqlite-1$suffix" "sqlite:$tmp/sqlite/portico.db" single "$binary"
                ;;
            postgres-1)
                create_database bench_single
                run_config "postgres-1$suffix" "$server_url/bench_single" single "$binary"
                ;;
            postgres-3)
                create_database bench_cluster
                run_config "postgres-3$suffix" "$server_url/bench_cluster" cluster "$binary"
                ;;
            postgres-3-standby)
                local info="$tmp/replicated$suffix.info"
                python3 tests/support/portico_replication.py serve "$info" >"$out_dir/replicated$suffix.log" 2>&1 &
                local replicated_pid="$!"
                for _ in $(seq 1 1200); do [[ -f "$info" ]] && break; sleep 0.1; done
                [[ -f "$info" ]] || { echo "bench/idp/cluster: the replicated PostgreSQL did not start" >&2; cat "$out_dir/replicated$suffix.log" >&2; exit 1; }
                # shellcheck disable=SC1090
                . "$info"
                run_config "postgres-3-standby$suffix" "$REPLICATED_URL" cluster "$binary"
                # One round trip to the standby, in time: one client's one-row UPDATE commits
                # waiting for the standby, then on the same server with synchronous_commit=local,
                # in turns, 5 times 2 s each (the summary takes each one's median latency).
                pgbench -q -i -s 1 "$REPLICATED_URL" >/dev/null 2>&1
                printf '\\set aid random(1, 100000)\nUPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;\n' \
                    >"$tmp/update-standby.sql"
                : >"$out_dir/pgbench-standby$suffix-sync.txt"
                : >"$out_dir/pgbench-standby$suffix-local.txt"
                for _ in 1 2 3 4 5; do
                    pgbench -n -c 1 -T 2 -f "$tmp/update-standby.sql" "$REPLICATED_URL" >>"$out_dir/pgbench-standby$suffix-sync.txt" 2>&1
                    PGOPTIONS="-c synchronous_commit=local" pgbench -n -c 1 -T 2 -f "$tmp/update-standby.sql" "$REPLICATED_URL" \
                        >>"$out_dir/pgbench-standby$suffix-local.txt" 2>&1
                done
                kill -TERM "$replicated_pid" 2>/dev/null || true
                wait "$replicated_pid" 2>/dev/null || true
                unset REPLICATED_STANDBY_PID
                ;;
        esac
    done
}
reported=("${configs[@]}")
run_selected "" "$portico" "$seed_a"
if [[ -n "$portico_b" ]]; then
    run_selected -b "$portico_b" "$seed_b"
    for config in "${configs[@]}"; do reported+=("$config-b"); done
fi

# The write ceiling: one-row UPDATE transactions on the same server.
echo "== pgbench: one-row UPDATE" >&2
create_database bench_pgbench
pgbench -q -i -s 1 "$server_url/bench_pgbench" >/dev/null 2>&1
printf '\\set aid random(1, 100000)\nUPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;\n' \
    >"$tmp/update.sql"
pgbench -n -c "$connections" -j "$wrk_threads" -T "$seconds" -f "$tmp/update.sql" "$server_url/bench_pgbench" \
    >"$out_dir/pgbench.txt" 2>&1
pgbench_tps="$(awk -F'= ' '/^tps/ { split($2, a, " "); printf "%.1f", a[1]; exit }' "$out_dir/pgbench.txt")"

hash_ms="$("$seed" --time-hashes 9 | sed -n 's/^HASH_MS=//p')"
ceiling="$(awk -v c="$cores" -v ms="$hash_ms" 'BEGIN { printf "%.1f", c * 1000 / ms }')"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }
verdict() { awk -v a="$1" -v b="$2" 'BEGIN { print (a >= b) ? "met" : "MISSED" }'; }
rate() { ok_rate "$out_dir/$1-$2.txt"; }
has() { [[ -f "$out_dir/$1-$2.txt" ]]; }
{
    echo "Portico on PostgreSQL beside SQLite, SCALE=$scale, $cores cores shared by nodes, nginx, PostgreSQL"
    echo "(fsync, synchronous_commit and full_page_writes off, for pgbench too) and wrk; wrk -t$wrk_threads -c$connections -d$duration (sign-ins -c$login_connections); $(date -u '+%Y-%m-%d %H:%M UTC')"
    if [[ -n "$portico_b" ]]; then echo "CONFIG: $portico; CONFIG-b: $portico_b"; fi
    echo "load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    printf "%-24s" "ok req/s (p99 ms)"
    printf " %16s" "${reported[@]}"
    printf "\n"
    for scenario in "${scenarios[@]}"; do
        printf "%-24s" "$scenario"
        for config in "${reported[@]}"; do
            file="$out_dir/$config-$scenario.txt"
            cell="$(ok_rate "$file") ($(p99 "$file"))"
            [[ "$(errors "$file")" == 0 ]] || cell+=" E$(errors "$file")"
            printf " %16s" "$cell"
        done
        printf "\n"
    done
    echo
    echo "CPU per ok request, us: nodes / PostgreSQL backends (user + system; wrk and nginx not counted)"
    printf "%-24s" ""
    printf " %16s" "${reported[@]}"
    printf "\n"
    for scenario in "${scenarios[@]}"; do
        printf "%-24s" "$scenario"
        for config in "${reported[@]}"; do
            file="$out_dir/$config-$scenario.txt"
            printf " %16s" "$(cpu_per_request "$file" 1) / $(cpu_per_request "$file" 2)"
        done
        printf "\n"
    done
    standby=()
    for config in "${reported[@]}"; do [[ "$config" == postgres-3-standby* ]] && standby+=("$config"); done
    if [[ ${#standby[@]} -gt 0 ]]; then
        echo
        echo "With the synchronous standby attached, per ok request: replication CPU us (the primary's walsender"
        echo "and the standby's processes) / write transactions, each one round trip to the standby before its answer"
        printf "%-24s" ""
        printf " %16s" "${standby[@]}"
        printf "\n"
        for scenario in "${scenarios[@]}"; do
            printf "%-24s" "$scenario"
            for config in "${standby[@]}"; do
                file="$out_dir/$config-$scenario.txt"
                if [[ -f "${file%.txt}.cpu" ]]; then
                    ok=$(($(awk '/ requests in / { print $1 }' "$file") - $(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$file" | grep . || echo 0)))
                    printf " %16s" "$(cpu_per_request "$file" 3) / $(awk -v x="$(awk '{ print $4 }' "${file%.txt}.cpu")" -v ok="$ok" 'BEGIN { printf "%.2f", (ok > 0) ? x / ok : 0 }')"
                else
                    printf " %16s" "-"
                fi
            done
            printf "\n"
        done
        for config in "${standby[@]}"; do
            sync_ms="$(awk '/^latency average/ { print $4 }' "$out_dir/pgbench-${config#postgres-3-}-sync.txt" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')"
            local_ms="$(awk '/^latency average/ { print $4 }' "$out_dir/pgbench-${config#postgres-3-}-local.txt" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')"
            echo "$config: one commit, one client (pgbench one-row UPDATE, median of 5 x 2 s): ${sync_ms} ms waiting for the standby," \
                "${local_ms} ms with synchronous_commit=local: $(awk -v a="$sync_ms" -v b="$local_ms" 'BEGIN { printf "%.0f", (a - b) * 1000 }') us per round trip"
        done
    fi
    echo
    echo "pgbench one-row UPDATE ceiling: $pgbench_tps tps (-c$connections -j$wrk_threads -T$seconds)"
    echo "Argon2id ceiling: $cores x 1000 / $hash_ms ms = $ceiling sign-ins/s"
    for config in "${reported[@]}"; do
        echo "peak RSS per node, $config: $(cat "$out_dir/$config-rss.txt") MB; $(cat "$out_dir/$config-seed-time.txt")"
    done
    echo
    echo "Targets:"
    for config in "${reported[@]}"; do
        if has "$config" userinfo-dpop && has "$config" userinfo; then
            value="$(ratio "$(rate "$config" userinfo-dpop)" "$(rate "$config" userinfo)")"
            echo "  $config userinfo with DPoP = $value x with a bearer token (>= 0.5: $(verdict "$value" 0.5))"
        fi
        if has "$config" refresh-rotation-dpop && has "$config" refresh-rotation; then
            value="$(ratio "$(rate "$config" refresh-rotation-dpop)" "$(rate "$config" refresh-rotation)")"
            echo "  $config refresh rotation with DPoP = $value x without (>= 0.8: $(verdict "$value" 0.8))"
            if [[ "$config" == postgres-* ]]; then
                with="$(cpu_per_request "$out_dir/$config-refresh-rotation-dpop.txt" 2)"
                without="$(cpu_per_request "$out_dir/$config-refresh-rotation.txt" 2)"
                echo "  $config PostgreSQL CPU per refresh: $with us with DPoP's replay check, $without us without" \
                    "= $(ratio "$with" "$without") x (< 2: $(awk -v a="$with" -v b="$without" 'BEGIN { print (b > 0 && a < 2 * b) ? "met" : "MISSED" }'))"
            fi
        fi
    done
    for config in "${reported[@]}"; do
        [[ "$config" == postgres-* ]] || continue
        sqlite="sqlite-1${config#postgres-[0-9]}"
        if has "$config" refresh-rotation; then
            refresh="$(rate "$config" refresh-rotation)"
            echo "  $config refresh rotation $refresh/s = $(ratio "$refresh" "$pgbench_tps") x pgbench (>= 0.5: $(verdict "$(ratio "$refresh" "$pgbench_tps")" 0.5));" \
                "$(ratio "$refresh" "$cores") per core vs Keycloak's 120 per vCPU"
        fi
        for scenario in client-credentials userinfo; do
            has "$config" "$scenario" && has "$sqlite" "$scenario" || continue
            value="$(ratio "$(rate "$config" "$scenario")" "$(rate "$sqlite" "$scenario")")"
            echo "  $config $scenario = $value x SQLite (>= 0.9: $(verdict "$value" 0.9))"
        done
        if has "$config" sign-in; then
            value="$(ratio "$(rate "$config" sign-in)" "$ceiling")"
            echo "  $config sign-ins = $value x Argon2id ceiling (>= 0.8: $(verdict "$value" 0.8))"
        fi
        max_rss="$(tr ' ' '\n' <"$out_dir/$config-rss.txt" | sort -g | tail -1)"
        echo "  $config RSS per node <= 150 MB: $(awk -v r="$max_rss" 'BEGIN { print (r <= 150) ? "met" : "MISSED" }')"
    done
} | tee "$out_dir/summary.txt"
