#!/usr/bin/env bash
# Losing the database machine, RUNS times (issue 31): tests/cluster/test_failover.py on a fresh
# PostgreSQL primary with a synchronous standby, three nodes and nginx each time. 8 clients rotate
# refresh-token chains and sign people in through nginx; the primary gets kill -9; the standby is
# promoted PROMOTION_DELAY (2 s, an operator's or Patroni's reaction) later; the old primary is
# rewound back as a standby. Each run appends one JSON line; the table shows per run
#
#   gap s      longest time no client got a write answered (includes the promotion delay)
#   after s    time from the promotion until every node served again (no restart)
#   503        requests answered 503 + Retry-After in the gap (no other 5xx: the test fails)
#   requests   all requests of the run, rotations and sign-ins the clients saw succeed
#   slowest s  the longest any request took (nothing may hang: nginx gives a node 30 s)
#   lost       acknowledged writes missing afterwards (a chain's last token or a sign-in's
#              token that no longer refreshes)
#
#   bench/idp/failover.sh          RUNS=10
#   RUNS=3 bench/idp/failover.sh
#
# Figures go to bench/out/failover/summary.txt.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
runs="${RUNS:-10}"
out="$root/bench/out/failover"
mkdir -p "$out"
report="$out/runs.jsonl"
: >"$report"
for run in $(seq 1 "$runs"); do
  echo "failover: run $run of $runs" >&2
  PORTICO_FAILOVER_REPORT="$report" scripts/cluster-tests -k failover -q >"$out/run-$run.log" 2>&1 ||
    { echo "failover: run $run failed (bench/out/failover/run-$run.log)" >&2; tail -n 20 "$out/run-$run.log" >&2; }
done
python3 - "$report" <<'PY' | tee "$out/summary.txt"
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
print(f"{'run':>3} {'gap s':>6} {'after s':>7} {'503':>5} {'other5xx':>8} {'requests':>8} {'rotations':>9} "
      f"{'sign-ins':>8} {'lost':>4} {'slowest s':>9}")
for index, row in enumerate(rows, 1):
    print(f"{index:>3} {row['seconds_without_service']:>6.2f} {row['seconds_serving_after_promotion']:>7.2f} "
          f"{row['answered_503']:>5} {row['other_5xx']:>8} {row['requests']:>8} {row['rotations']:>9} "
          f"{row['sign_ins']:>8} {row['acknowledged_writes_lost']:>4} {row.get('slowest_request_s', '-'):>9}")
if rows:
    gaps = sorted(row["seconds_without_service"] for row in rows)
    print(f"{len(rows)} runs: gap median {gaps[len(gaps) // 2]:.2f} s, max {gaps[-1]:.2f} s "
          f"(promotion delay {rows[0]['promotion_delay']} s); 503s {sum(r['answered_503'] for r in rows)}; "
          f"other 5xx {sum(r['other_5xx'] for r in rows)}; acknowledged writes lost "
          f"{sum(r['acknowledged_writes_lost'] for r in rows)}")
PY
