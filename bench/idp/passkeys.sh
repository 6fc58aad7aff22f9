#!/usr/bin/env bash
# Passkey sign-ins per second (issue 26), side by side in one run with the ES256 verify ceiling
# of this machine and with password sign-ins (bound by Argon2id):
#
#   passkey sign-in = POST /passkeys/sign-in/options (a sealed challenge) + POST /login/passkey
#   with a freshly signed ES256 assertion (§7.2, the challenge's single use recorded, the
#   counter's compare-and-swap, a session);
#   no app, so no consent. The client (bench/idp/passkeys.py, in the project venv for its
#   `cryptography`) signs each assertion itself, on the same machine.
#   ES256 ceiling = `openssl speed ecdsap256` verify/s on one core, and x cores.
#   Target: >= 0.3 x the single-core ES256 verify ceiling.
#
#   bench/idp/passkeys.sh                     a release build, 10 s per figure
#   SECONDS_EACH=5 WORKERS=4 bench/idp/passkeys.sh
#   PORTICO_BIN=path bench/idp/passkeys.sh    a binary instead of building one
#
# The server runs on `localhost` (a WebAuthn RP ID is a domain) with a fresh SQLite file in a
# temporary directory, removed at the end; the summary stays in bench/out/idp-passkeys/.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
seconds="${SECONDS_EACH:-10}"
workers="${WORKERS:-4}"
credentials="${CREDENTIALS:-16}"
port="${PORTICO_PORT:-18095}"
scratch="${SCRATCH:-.build}"
out_dir="$root/bench/out/idp-passkeys"
cores="$(nproc)"

if [[ -z "${PORTICO_BIN:-}" ]]; then
    swift build -c release --product portico --scratch-path "$scratch" >&2
fi
portico="${PORTICO_BIN:-$scratch/release/portico}"
venv="$(scripts/python-env)"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/portico-bench-passkeys.XXXXXX")"
server=""
cleanup() {
    if [[ -n "$server" ]]; then kill -TERM "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$out_dir"

# The ceiling first, on an idle server: OpenSSL's P-256 verifications per second, one core.
es256="$(openssl speed -seconds 3 ecdsap256 2>/dev/null | awk '/nistp256/ && $NF ~ /^[0-9.]+$/ { v = $NF } END { print v }')"
[[ -n "$es256" ]] || { echo "bench/idp: could not read openssl speed ecdsap256" >&2; exit 1; }
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"

database="sqlite:$tmp/portico.db"
"$portico" serve --port "$port" --host localhost --quiet --database "$database" --outbox "$tmp/outbox" \
    --trusted-proxy 127.0.0.1 --client-address-header X-Real-IP >"$tmp/stdout" 2>"$out_dir/portico.stderr" &
server="$!"
base="http://localhost:$port"
for _ in $(seq 1 200); do
    curl -fsS -o /dev/null "$base/healthz" 2>/dev/null && break
    sleep 0.05
done

SERVER_PID="$server" WORKERS="$workers" CREDENTIALS="$credentials" BENCH_SECONDS="$seconds" \
    "$venv/bin/python" bench/idp/passkeys.py "$base" "$database" "$portico" >"$tmp/figures"
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
figure() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/figures"; }
passkey="$(figure PASSKEY_RATE)"
password="$(figure PASSWORD_RATE)"

{
    echo "Passkey sign-ins (options + assertion + session, no consent), $workers client processes, ${seconds}s each:"
    printf "  %-44s %10s/s  %10s per server CPU-s  (%s ok, %s refused)\n" "passkey sign-ins" "$passkey" \
        "$(figure PASSKEY_PER_CPU)" "$(figure PASSKEY_DONE)" "$(figure PASSKEY_FAILED)"
    printf "  %-44s %10s/s  %10s per server CPU-s  (%s ok, %s refused)\n" "password sign-ins (Argon2id)" \
        "$password" "$(figure PASSWORD_PER_CPU)" "$(figure PASSWORD_DONE)" "$(figure PASSWORD_FAILED)"
    printf "  %-44s %10s/s  (per CPU-s, as openssl counts)\n" "ES256 verify ceiling, 1 core (openssl speed)" "$es256"
    printf "  %-44s %10s/s\n" "ES256 verify ceiling, $cores cores" "$(awk -v v="$es256" -v c="$cores" 'BEGIN { printf "%.0f", v * c }')"
    awk -v p="$passkey" -v c="$(figure PASSKEY_PER_CPU)" -v e="$es256" -v w="$password" 'BEGIN {
        r = p / e
        printf "  passkey / ES256 ceiling (1 core) = %.3f: target >= 0.3 %s\n", r, (r >= 0.3 ? "met" : "NOT met")
        printf "  per server CPU-second: passkey / ES256 ceiling = %.3f\n", c / e
        if (w > 0) printf "  passkey / password sign-ins = %.1f x\n", p / w
    }'
    echo "  load average before / after: $load_before / $load_after ($cores cores; the client runs here too)"
} | tee "$out_dir/summary.txt"
