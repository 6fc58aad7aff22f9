#!/usr/bin/env bash
# Identity-provider benchmark (issue 4): a release build of `portico serve` on SQLite, loaded
# with wrk over loopback, one scenario at a time, printing requests/s and p99 for each:
#
#   discovery and JWKS (against the C libmicrohttpd baseline of bench/http, same run, and
#   against bench/baseline/baseline.c serving the very same bytes),
#   client_credentials, refresh_token rotation (pre-minted tokens, each used once; scope
#   profile, so an access token and a refresh token; and again with openid, which adds an
#   RS256 ID token), authorization_code redemption with openid (pre-minted codes, RS256 ID
#   token; the RS256 ceiling cores x `openssl speed rsa2048` signs/s is printed beside it, and
#   the same ceiling measured with the server's own signing code, portico-bench-seed --time-rs256),
#   userinfo with a JWT access token, introspection, sign-ins through POST /login
#   (against the Argon2id ceiling cores x 1000 / ms-per-hash), discovery p99 during a
#   storm of sign-ins, and the server's peak RSS.
#
#   bench/idp/run.sh                    SCALE=1000: 1,000 users and refresh families
#   SCALE=1000000 bench/idp/run.sh      a million of each (seeding takes a few minutes)
#
# The database is seeded before the server starts, through the store, by
# portico-bench-seed (bench/idp/seed): the people share one precomputed Argon2id hash, and
# the codes and refresh tokens that the load scripts use once each are minted there and
# written one per line to files that the wrk threads split among themselves. Everything
# lives in a temporary directory that is removed at the end; the raw wrk outputs and the
# summary stay in bench/out/idp-SCALE/.
#
# Environment:
#   SCALE          users and background refresh-token families to seed (default 1000)
#   DURATION       wrk duration per scenario (default 10s)
#   THREADS / CONNECTIONS   wrk -t / -c (default 2 / 64)
#   ROUNDS         run every scenario this many times, interleaved, and keep each one's best
#                  round (default 1); on a shared machine more rounds make figures less noisy
#   LOGIN_CONNECTIONS       wrk -c for the sign-in scenarios (default 16)
#   SCRATCH        SwiftPM scratch path for the release build (default .build)
#   PORTICO_BIN / SEED_BIN  binaries to use instead of building them
#   CODES_PER_SECOND / REFRESH_PER_SECOND   pre-minted items per second of DURATION
#                  (default 8000 / 16000; codes also size the openid refresh tokens); a
#                  thread that runs out stops early and the summary says the rate is low
#   PORTICO_PORT / BASELINE_PORT / STATIC_PORT  ports (default 18090 / 18091 / 18092)
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
here="$root/bench/idp"

scale="${SCALE:-1000}"
duration="${DURATION:-10s}"
wrk_threads="${THREADS:-2}"
connections="${CONNECTIONS:-64}"
rounds="${ROUNDS:-1}"
login_connections="${LOGIN_CONNECTIONS:-16}"
scratch="${SCRATCH:-.build}"
port="${PORTICO_PORT:-18090}"
baseline_port="${BASELINE_PORT:-18091}"
static_port="${STATIC_PORT:-18092}"
codes_per_second="${CODES_PER_SECOND:-8000}"
refresh_per_second="${REFRESH_PER_SECOND:-16000}"
out_dir="$root/bench/out/idp-$scale"
cores="$(nproc)"

for tool in wrk curl python3 cc pkg-config; do
    command -v "$tool" >/dev/null || { echo "bench/idp: $tool is not installed" >&2; exit 1; }
done
[[ "$scale" =~ ^[0-9]+$ && "$scale" -ge 1 ]] || { echo "bench/idp: SCALE must be a positive number" >&2; exit 1; }
[[ "$rounds" =~ ^[0-9]+$ && "$rounds" -ge 1 ]] || { echo "bench/idp: ROUNDS must be a positive number" >&2; exit 1; }

seconds="$(awk -v d="$duration" 'BEGIN { n = d + 0; if (d ~ /m$/) n *= 60; if (d ~ /h$/) n *= 3600; print int(n) }')"
[[ "$seconds" -ge 3 ]] || { echo "bench/idp: DURATION must be at least 3s" >&2; exit 1; }

tmp="$(mktemp -d "${TMPDIR:-/tmp}/portico-bench-idp.XXXXXX")"
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

# The C baseline (bench/baseline/baseline.c), built into the temporary directory; it serves
# /healthz alone or, given documents, the same bytes Portico serves.
cc -O2 -Wall -o "$tmp/mhd-baseline" bench/baseline/baseline.c $(pkg-config --cflags --libs libmicrohttpd)

# Release builds.
if [[ -z "${PORTICO_BIN:-}" || -z "${SEED_BIN:-}" ]]; then
    swift build -c release --product portico --scratch-path "$scratch" >&2
    swift build -c release --product portico-bench-seed --scratch-path "$scratch" >&2
fi
portico="${PORTICO_BIN:-$scratch/release/portico}"
seed="${SEED_BIN:-$scratch/release/portico-bench-seed}"

# Seed before the server opens the database.
echo "seeding $scale users and $scale refresh families (plus pre-minted codes and tokens)..." >&2
"$seed" --database "sqlite:$tmp/portico.db" --out "$tmp/seed" --users "$scale" --families "$scale" \
    --codes $((codes_per_second * seconds * rounds)) --spare-codes 1000 \
    --refresh-tokens $((refresh_per_second * seconds * rounds)) \
    --openid-refresh-tokens $((codes_per_second * seconds * rounds)) \
    --es256-codes $((codes_per_second * seconds * rounds)) --sso-codes 1000
set -a
# shellcheck disable=SC1091
. "$tmp/seed/seed.env"
set +a
seed_hash_ms="$HASH_MS"

"$portico" serve --port "$port" --quiet --database "sqlite:$tmp/portico.db" \
    >"$out_dir/portico.stdout" 2>"$out_dir/portico.stderr" &
portico_pid="$!"
pids+=("$portico_pid")
"$tmp/mhd-baseline" "$baseline_port" >/dev/null 2>"$out_dir/baseline.stderr" &
pids+=("$!")

wait_for() {
    for _ in $(seq 1 200); do
        if curl -fsS -o /dev/null "$1" 2>/dev/null; then return 0; fi
        sleep 0.05
    done
    echo "bench/idp: the server at $1 did not come up" >&2
    exit 1
}
base="http://127.0.0.1:$port"
wait_for "$base/healthz"
wait_for "http://127.0.0.1:$baseline_port/healthz"

# The C server for the same bytes as Portico's discovery and JWKS documents.
cache_control() { curl -fsS -D - -o "$2" "$base$1" | tr -d '\r' | awk -F': ' 'tolower($1) == "cache-control" { print $2 }'; }
discovery_cache="$(cache_control /.well-known/openid-configuration "$tmp/discovery.json")"
jwks_cache="$(cache_control /oauth/jwks "$tmp/jwks.json")"
"$tmp/mhd-baseline" "$static_port" /.well-known/openid-configuration "$tmp/discovery.json" "$discovery_cache" \
    /oauth/jwks "$tmp/jwks.json" "$jwks_cache" >/dev/null 2>"$out_dir/baseline-documents.stderr" &
pids+=("$!")
wait_for "http://127.0.0.1:$static_port/oauth/jwks"

# Pre-steps over HTTP: access tokens for userinfo and introspection, and the sign-in form.
python3 "$here/prepare.py" tokens "$base" "$tmp/seed" "$tmp/access.txt"
python3 "$here/prepare.py" login "$base" "$tmp/seed" "$tmp/login.env"
python3 "$here/prepare.py" sso "$base" "$tmp/seed" "$tmp/sso.txt"
set -a
# shellcheck disable=SC1091
. "$tmp/login.env"
set +a
export BENCH_IDP_DIR="$here"
export AUTHORIZATION="Basic $(printf '%s:%s' "$CLIENT_ID" "$CLIENT_SECRET" | base64 -w0)"
AUTHORIZATION_ES256="Basic $(printf '%s:%s' "$CLIENT_ID_ES256" "$CLIENT_SECRET_ES256" | base64 -w0)"
AUTHORIZATION_SSO="Basic $(printf '%s:%s' "$SSO_SECOND_ID" "$SSO_SECRET" | base64 -w0)"
exchange="urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange"
token_type="urn%3Aietf%3Aparams%3Aoauth%3Atoken-type"
issuer_encoded="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$base")"
redirect_encoded="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$REDIRECT_URI")"

# ---- reading wrk's output ---------------------------------------------------------------

# wrk prints latencies as 1.23ms / 456.00us / 1.02s / 1.00m; normalise to milliseconds.
to_ms() {
    awk -v v="$1" 'BEGIN {
        if (v ~ /us$/) { sub(/us$/, "", v); printf "%.2f", v / 1000 }
        else if (v ~ /ms$/) { sub(/ms$/, "", v); printf "%.2f", v }
        else if (v ~ /m$/) { sub(/m$/, "", v); printf "%.2f", v * 60000 }
        else if (v ~ /s$/) { sub(/s$/, "", v); printf "%.2f", v * 1000 }
        else { printf "%s", v }
    }'
}
p99() { to_ms "$(awk '$1 == "99%" { print $2 }' "$out_dir/$1.txt")"; }
elapsed() { to_ms "$(awk '/ requests in / { v = $4; sub(/,$/, "", v); print v }' "$out_dir/$1.txt")"; }
requests() { awk '/ requests in / { print $1 }' "$out_dir/$1.txt"; }
non2xx() { awk '/Non-2xx or 3xx responses:/ { print $NF }' "$out_dir/$1.txt" | grep . || echo 0; }
socket_errors() {
    awk '/Socket errors:/ { n = 0; for (i = 3; i <= NF; i++) if ($i ~ /^[0-9]+,?$/) n += $i + 0; print n }' \
        "$out_dir/$1.txt" | grep . || echo 0
}
lua_count() { awk -v k="$2" '$1 == k { print $2 }' "$out_dir/$1.txt" | grep . || echo 0; }
# Successful responses per second over the time wrk measured (every request for the
# scenarios where success is a 2xx; redirects for the sign-ins).
ok_rate() {
    local name="$1" ok
    if [[ "$name" == sign-in* || "$name" == storm-sign-in* ]]; then
        ok="$(lua_count "$name" SIGNED_IN)"
    else
        ok=$(($(requests "$name") - $(non2xx "$name")))
    fi
    awk -v ok="$ok" -v ms="$(elapsed "$name")" 'BEGIN { printf "%.1f", ok / (ms / 1000) }'
}
errors() {
    local name="$1" bad
    if [[ "$name" == sign-in* || "$name" == storm-sign-in* ]]; then
        bad="$(lua_count "$name" FAILED)"
    else
        bad="$(non2xx "$name")"
    fi
    echo $((bad + $(socket_errors "$name")))
}
at_least() { awk -v a="$1" -v b="$2" 'BEGIN { print (a >= b) ? "met" : "MISSED" }'; }
at_most() { awk -v a="$1" -v b="$2" 'BEGIN { print (a <= b) ? "met" : "MISSED" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }

# ---- the scenarios ----------------------------------------------------------------------

# run NAME ROUND WARMUP_SECONDS WRK_ARGS... -- writes bench/out/idp-SCALE/NAME-rROUND.txt
run() {
    local name="$1" round="$2" warmup="$3"
    shift 3
    echo "  round $round/$rounds: $name" >&2
    if [[ "$warmup" -gt 0 ]]; then wrk -d"${warmup}s" "$@" >/dev/null; fi
    wrk -d"$duration" --latency "$@" >"$out_dir/$name-r$round.txt"
}
load=(-t"$wrk_threads" -c"$connections")
login_load=(-t"$wrk_threads" -c"$login_connections" --timeout 30s -s "$here/login.lua" "$base" -- "$wrk_threads")

# Each round uses its own share of the single-use codes and tokens.
for file in codes codes-es256 refresh refresh-openid; do
    for round in $(seq 1 "$rounds"); do
        awk -v n="$rounds" -v r="$round" '(NR - 1) % n == r - 1' "$tmp/seed/$file.txt" >"$tmp/seed/$file.r$round.txt"
    done
done

# Argon2id is timed around every sign-in run, on the machine as it is then (a shared machine
# drifts by tens of percent); the ceiling uses the median of these medians.
time_hash() { "$seed" --time-hashes 9 | sed -n 's/^HASH_MS=//p'; }
hash_samples=("$seed_hash_ms")
rsa_samples=()
own_rsa_samples=()
rsa_wall_samples=()

scenarios() {
    local round="$1"
    run portico-healthz "$round" 2 "${load[@]}" "$base/healthz"
    run discovery "$round" 2 "${load[@]}" "$base/.well-known/openid-configuration"
    run jwks "$round" 2 "${load[@]}" "$base/oauth/jwks"
    run c-baseline "$round" 2 "${load[@]}" "http://127.0.0.1:$baseline_port/healthz"
    run c-discovery "$round" 2 "${load[@]}" "http://127.0.0.1:$static_port/.well-known/openid-configuration"
    run c-jwks "$round" 2 "${load[@]}" "http://127.0.0.1:$static_port/oauth/jwks"

    PATH_=/oauth/token BODY="grant_type=client_credentials&scope=$PRODUCT_SCOPE" \
        run client-credentials "$round" 2 "${load[@]}" -s "$here/post.lua" "$base"

    ITEMS_FILE="$tmp/access.txt" BEARER=1 PATH_=/oauth/userinfo \
        run userinfo "$round" 2 "${load[@]}" -s "$here/cycle.lua" "$base" -- "$wrk_threads"

    ITEMS_FILE="$tmp/access.txt" METHOD=POST PATH_=/oauth/introspect BODY="token={}" \
        run introspection "$round" 2 "${load[@]}" -s "$here/cycle.lua" "$base" -- "$wrk_threads"

    # Narrowing (RFC 8693): the bench client trades its access token for one with scope
    # profile (ES256 verify + ES256 sign, no store write). Native SSO: the group's second app
    # trades the first app's ID token and device secret for its own tokens (RS256 verify, a
    # device-secret lookup, a new refresh family, ES256 access + RS256 ID token signed).
    ITEMS_FILE="$tmp/access.txt" METHOD=POST PATH_=/oauth/token \
        BODY="grant_type=$exchange&subject_token={}&subject_token_type=$token_type%3Aaccess_token&scope=profile" \
        run narrowing-exchange "$round" 2 "${load[@]}" -s "$here/cycle.lua" "$base" -- "$wrk_threads"

    ITEMS_FILE="$tmp/sso.txt" METHOD=POST PATH_=/oauth/token AUTHORIZATION="$AUTHORIZATION_SSO" \
        BODY="grant_type=$exchange&{}&subject_token_type=$token_type%3Aid_token&actor_token_type=urn%3Aopenid%3Aparams%3Atoken-type%3Adevice-secret&audience=$issuer_encoded" \
        run native-sso-exchange "$round" 2 "${load[@]}" -s "$here/cycle.lua" "$base" -- "$wrk_threads"
    # What RSA-2048 signing the machine delivered just then, by the clock and on every core: on a
    # shared machine far below the CPU-time ceiling below, which other processes do not lower.
    rsa_wall_samples+=("$(openssl speed -elapsed -seconds 2 -multi "$cores" rsa2048 2>/dev/null |
        awk '/^rsa 2048 bits/ { print $(NF - 1) }')")

    ITEMS_FILE="$tmp/seed/codes.r$round.txt" \
        BODY="grant_type=authorization_code&code={}&redirect_uri=$redirect_encoded&code_verifier=$CODE_VERIFIER" \
        run code-redemption "$round" 0 "${load[@]}" -s "$here/once.lua" "$base" -- "$wrk_threads"

    ITEMS_FILE="$tmp/seed/codes-es256.r$round.txt" AUTHORIZATION="$AUTHORIZATION_ES256" \
        BODY="grant_type=authorization_code&code={}&redirect_uri=$redirect_encoded&code_verifier=$CODE_VERIFIER" \
        run code-redemption-es256 "$round" 0 "${load[@]}" -s "$here/once.lua" "$base" -- "$wrk_threads"

    ITEMS_FILE="$tmp/seed/refresh.r$round.txt" BODY="grant_type=refresh_token&refresh_token={}" \
        run refresh-rotation "$round" 0 "${load[@]}" -s "$here/once.lua" "$base" -- "$wrk_threads"

    ITEMS_FILE="$tmp/seed/refresh-openid.r$round.txt" BODY="grant_type=refresh_token&refresh_token={}" \
        run refresh-rotation-openid "$round" 0 "${load[@]}" -s "$here/once.lua" "$base" -- "$wrk_threads"

    # What one core signs with RSA-2048 (RS256), for the ceiling of the ID-token scenarios.
    rsa_samples+=("$(openssl speed -seconds 2 rsa2048 2>/dev/null | awk '/^rsa 2048 bits/ { print $(NF - 1) }')")
    # The same with the server's own signing code (JWS.sign of an ID token, one shared key) on
    # every core at once, also by CPU time: the ceiling the token endpoint's path can reach.
    own_rsa_samples+=("$("$seed" --time-rs256 2 | sed -n 's/^RS256_SIGNS_PER_CORE=//p')")

    hash_samples+=("$(time_hash)")
    run sign-in "$round" 0 "${login_load[@]}"
    hash_samples+=("$(time_hash)")

    # The storm: sign-ins as above and, inside that window, discovery from one wrk thread.
    echo "  round $round/$rounds: sign-in storm + discovery" >&2
    wrk -d"$duration" --latency "${login_load[@]}" >"$out_dir/storm-sign-in-r$round.txt" &
    local storm_pid="$!"
    sleep 1
    wrk -t1 -c4 -d"$((seconds - 2))s" --latency "$base/.well-known/openid-configuration" \
        >"$out_dir/storm-discovery-r$round.txt"
    wait "$storm_pid"
}

echo "running $rounds round(s) of the scenarios (${duration} each)..." >&2
for round in $(seq 1 "$rounds"); do scenarios "$round"; done

peak_kb="$(awk '/^VmHWM:/ { print $2 }' "/proc/$portico_pid/status")"
rss_kb="$(awk '/^VmRSS:/ { print $2 }' "/proc/$portico_pid/status")"

# Keeps each scenario's best round as NAME.txt: the most successful requests per second; for
# the storm, the round with the lowest discovery p99 (and its sign-ins).
best_round() {
    local name="$1" best=1 best_value="" value
    for round in $(seq 1 "$rounds"); do
        if [[ "$name" == storm-discovery ]]; then value="-$(p99 "$name-r$round")"; else value="$(ok_rate "$name-r$round")"; fi
        if [[ -z "$best_value" ]] || awk -v a="$value" -v b="$best_value" 'BEGIN { exit !(a > b) }'; then
            best="$round"
            best_value="$value"
        fi
    done
    echo "$best"
}
for name in portico-healthz discovery jwks c-baseline c-discovery c-jwks client-credentials userinfo introspection \
    code-redemption code-redemption-es256 refresh-rotation refresh-rotation-openid narrowing-exchange \
    native-sso-exchange sign-in; do
    cp "$out_dir/$name-r$(best_round "$name").txt" "$out_dir/$name.txt"
done
storm_round="$(best_round storm-discovery)"
cp "$out_dir/storm-discovery-r$storm_round.txt" "$out_dir/storm-discovery.txt"
cp "$out_dir/storm-sign-in-r$storm_round.txt" "$out_dir/storm-sign-in.txt"

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
hash_ms="$(median "${hash_samples[@]}")"
rsa_signs="$(printf '%s\n' "${rsa_samples[@]}" | sort -g | tail -1)"
own_rsa_signs="$(printf '%s\n' "${own_rsa_samples[@]}" | sort -g | tail -1)"

# ---- figures ----------------------------------------------------------------------------

c_rate="$(ok_rate c-baseline)"
ceiling="$(awk -v c="$cores" -v ms="$hash_ms" 'BEGIN { printf "%.1f", c * 1000 / ms }')"
fastest_ms="$(printf '%s\n' "${hash_samples[@]}" | sort -g | head -1)"
fastest_ceiling="$(awk -v c="$cores" -v ms="$fastest_ms" 'BEGIN { printf "%.1f", c * 1000 / ms }')"
rsa_ceiling="$(awk -v c="$cores" -v r="${rsa_signs:-0}" 'BEGIN { printf "%.0f", c * r }')"
own_rsa_ceiling="$(awk -v c="$cores" -v r="${own_rsa_signs:-0}" 'BEGIN { printf "%.0f", c * r }')"

{
    echo "Portico identity provider, SCALE=$scale ($scale users and $scale background refresh families, plus the"
    echo "pre-minted codes and tokens), SQLite, loopback, $cores cores shared by server and wrk,"
    echo "wrk -t$wrk_threads -c$connections -d$duration (sign-ins: -c$login_connections), best of $rounds round(s); $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo
    printf "%-26s %11s %10s %7s  %-30s %s\n" scenario "ok req/s" "p99 ms" errors target result
    row() { # NAME LABEL TARGET_TEXT RESULT...
        printf "%-26s %11s %10s %7s  %-30s %s\n" "$2" "$(ok_rate "$1")" "$(p99 "$1")" "$(errors "$1")" "$3" "${*:4}"
    }
    discovery_ratio="$(ratio "$(ok_rate discovery)" "$c_rate")"
    jwks_ratio="$(ratio "$(ok_rate jwks)" "$c_rate")"
    row c-baseline "C mhd /healthz (ceiling)" "-" "-"
    row c-discovery "C mhd, discovery bytes" "-" "-"
    row c-jwks "C mhd, JWKS bytes" "-" "-"
    row portico-healthz "Portico /healthz (const)" "-" "$(ratio "$(ok_rate portico-healthz)" "$c_rate") x C"
    row discovery "discovery" ">= 0.80 x C" "$discovery_ratio x C: $(at_least "$discovery_ratio" 0.8);" \
        "$(ratio "$(ok_rate discovery)" "$(ok_rate c-discovery)") x C same bytes"
    row jwks "JWKS" ">= 0.80 x C" "$jwks_ratio x C: $(at_least "$jwks_ratio" 0.8);" \
        "$(ratio "$(ok_rate jwks)" "$(ok_rate c-jwks)") x C same bytes"
    row client-credentials "client_credentials" ">= 10000/s" "$(at_least "$(ok_rate client-credentials)" 10000)"
    row refresh-rotation "refresh_token rotation" ">= 5000/s" "$(at_least "$(ok_rate refresh-rotation)" 5000)"
    row refresh-rotation-openid "refresh rotation + openid" "-" \
        "$(ratio "$(ok_rate refresh-rotation-openid)" "$rsa_ceiling") x RS256 ceiling"
    row code-redemption "authorization_code+openid" ">= 2000/s" \
        "$(at_least "$(ok_rate code-redemption)" 2000) ($(ratio "$(ok_rate code-redemption)" "$rsa_ceiling") x RS256 ceiling)"
    row code-redemption-es256 "authorization_code, ES256 ID" ">= 2000/s (RS256 asked)" \
        "$(at_least "$(ok_rate code-redemption-es256)" 2000) (client with ES256 ID tokens)"
    row userinfo "userinfo (JWT)" ">= 12000/s" "$(at_least "$(ok_rate userinfo)" 12000)"
    row narrowing-exchange "token exchange: narrowing" ">= 8000/s" "$(at_least "$(ok_rate narrowing-exchange)" 8000)"
    sso_ratio="$(ratio "$(ok_rate native-sso-exchange)" "$rsa_ceiling")"
    own_sso_ratio="$(ratio "$(ok_rate native-sso-exchange)" "$own_rsa_ceiling")"
    row native-sso-exchange "token exchange: Native SSO" ">= 0.6 x RS256 ceiling" \
        "$sso_ratio x RS256 ceiling: $(at_least "$sso_ratio" 0.6);" \
        "$own_sso_ratio x server's own RS256: $(at_least "$own_sso_ratio" 0.6)"
    row introspection "introspection" "-" "-"
    signin_ratio="$(ratio "$(ok_rate sign-in)" "$ceiling")"
    row sign-in "sign-ins (POST /login)" ">= 0.80 x $ceiling/s ceiling" \
        "$signin_ratio x ceiling: $(at_least "$signin_ratio" 0.8)"
    row storm-sign-in "sign-ins during storm" "-" "$(ratio "$(ok_rate storm-sign-in)" "$ceiling") x ceiling"
    row storm-discovery "discovery during storm" "p99 <= 20 ms" "$(at_most "$(p99 storm-discovery)" 20)"
    printf "%-26s %11s %10s %7s  %-30s %s\n" "server peak RSS" "-" "-" "-" "<= 150 MB" \
        "$(awk -v k="$peak_kb" 'BEGIN { printf "%.1f MB", k / 1024 }'): $(at_most "$peak_kb" $((150 * 1024)))"
    echo
    echo "Argon2id (m=19456 KiB, t=2, p=1), median ms per hash, while seeding and around each sign-in run:"
    echo "${hash_samples[*]}; ceiling = $cores cores x 1000 / $hash_ms ms (their median) = $ceiling sign-ins/s."
    echo "Against the fastest median ($fastest_ms ms, ceiling $fastest_ceiling/s) the sign-ins reach" \
        "$(ratio "$(ok_rate sign-in)" "$fastest_ceiling") x ceiling."
    echo "RS256 (RSA-2048) with openssl speed, CPU time (best of ${#rsa_samples[@]}): ${rsa_signs:-?} signs/s per core; ceiling for one ID token per"
    echo "request = $cores x ${rsa_signs:-?} = $rsa_ceiling/s (with nothing else done and wrk using no CPU)."
    echo "RS256 with the server's own signing code (JWS.sign of an ID token, one shared key, all $cores cores at once, CPU"
    echo "time, best of ${#own_rsa_samples[@]}): ${own_rsa_signs:-?} signs/s per core; ceiling = $cores x ${own_rsa_signs:-?} = $own_rsa_ceiling/s."
    echo "Native SSO: $(ok_rate native-sso-exchange)/s = $sso_ratio x the openssl ceiling, $own_sso_ratio x the server's own"
    echo "(target 0.6: $(at_least "$sso_ratio" 0.6) / $(at_least "$own_sso_ratio" 0.6))."
    echo "RS256 by the clock on all $cores cores right after each Native SSO run (openssl speed -elapsed -multi $cores):"
    for round in $(seq 1 "$rounds"); do
        wall="${rsa_wall_samples[round - 1]:-0}"
        echo "  round $round: ${wall:-?} signs/s; Native SSO $(ok_rate "native-sso-exchange-r$round")/s =" \
            "$(ratio "$(ok_rate "native-sso-exchange-r$round")" "$wall") x that"
    done
    echo "RSS now $(awk -v k="$rss_kb" 'BEGIN { printf "%.1f", k / 1024 }') MB, peak (VmHWM) $(awk -v k="$peak_kb" 'BEGIN { printf "%.1f", k / 1024 }') MB."
    for file in "$out_dir"/*-r*.txt; do
        if grep -q EXHAUSTED "$file"; then
            echo "note: $(basename "$file" .txt) ran out of pre-minted items, so its rate is understated;" \
                "raise CODES_PER_SECOND / REFRESH_PER_SECOND"
        fi
    done
} | tee "$out_dir/summary.txt"
