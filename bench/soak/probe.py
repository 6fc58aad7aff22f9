#!/usr/bin/env python3
"""Samples /healthz latency (a new connection from SOURCE every INTERVAL seconds) and the
server's RSS for DURATION seconds; prints p50/p99/max, the RSS after the first 10 s and at
the end (the lowest sample of 10-15 s and of the last 5 s), and their ratio. Also prints how long the server's epoll threads (libmicrohttpd's
"MHD-worker") and its other threads ran and waited in the kernel's run queue over the
DURATION (/proc/PID/task/*/schedstat): /healthz is answered on an epoll thread, so time it
spends runnable but not running is latency the probe sees. Standard library only.

usage: probe.py HOST PORT PID DURATION [SOURCE] [INTERVAL]
"""
import os
import socket
import sys
import time


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def schedstat(pid):
    """Run and run-queue-wait nanoseconds, summed over the epoll threads and the others."""
    totals = {"epoll": [0, 0], "other": [0, 0]}
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return totals
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as comm, open(f"/proc/{pid}/task/{tid}/schedstat") as stat:
                kind = "epoll" if comm.read().strip() == "MHD-worker" else "other"
                run, wait = (int(v) for v in stat.read().split()[:2])
        except (OSError, ValueError):
            continue
        totals[kind][0] += run
        totals[kind][1] += wait
    return totals


def healthz(host, port, source):
    start = time.monotonic()
    with socket.create_connection((host, port), timeout=10, source_address=(source, 0)) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    return (time.monotonic() - start) * 1000, data[:12]


def main():
    host, port, pid, duration = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    source = sys.argv[5] if len(sys.argv) > 5 else "127.0.0.2"
    interval = float(sys.argv[6]) if len(sys.argv) > 6 else 0.05
    began = time.monotonic()
    sched_start = schedstat(pid)
    latencies, failures, rss_samples = [], 0, []
    while time.monotonic() - began < duration:
        try:
            ms, head = healthz(host, port, source)
            if head.startswith(b"HTTP/1.1 200"):
                latencies.append(ms)
            else:
                failures += 1
        except OSError:
            failures += 1
        rss_samples.append((time.monotonic() - began, rss_kb(pid)))
        time.sleep(interval)
    sched_end = schedstat(pid)
    elapsed = time.monotonic() - began
    # The floor of each window: a sample taken while Argon2id hashes are running holds their
    # 19 MiB each (returned to the system when they end), so one sample swings by tens of MB
    # with how many happen to be running; the lowest one in a window is what the server keeps.
    early = [kb for at, kb in rss_samples if 10 <= at < 15] or [kb for _, kb in rss_samples[:1]]
    late = [kb for at, kb in rss_samples if at >= elapsed - 5] or [kb for _, kb in rss_samples[-1:]]
    rss_10s, rss_end = (min(early) if early else 0), (min(late) if late else 0)
    latencies.sort()
    def pct(p):
        return latencies[min(len(latencies) - 1, int(len(latencies) * p))] if latencies else float("nan")
    print(f"HEALTHZ_SAMPLES {len(latencies)}")
    print(f"HEALTHZ_FAILURES {failures}")
    print(f"HEALTHZ_P50_MS {pct(0.50):.2f}")
    print(f"HEALTHZ_P99_MS {pct(0.99):.2f}")
    print(f"HEALTHZ_MAX_MS {latencies[-1] if latencies else float('nan'):.2f}")
    print(f"RSS_10S_KB {rss_10s or 0}")
    print(f"RSS_END_KB {rss_end}")
    print(f"RSS_PEAK_KB {max((kb for _, kb in rss_samples), default=0)}")
    for kind in ("epoll", "other"):
        run = (sched_end[kind][0] - sched_start[kind][0]) / 1e6 / elapsed
        wait = (sched_end[kind][1] - sched_start[kind][1]) / 1e6 / elapsed
        print(f"{kind.upper()}_RUN_MS_PER_S {run:.0f}")
        print(f"{kind.upper()}_WAIT_MS_PER_S {wait:.0f}")
    with open("/proc/loadavg") as load:
        print("LOAD_AVERAGE " + ",".join(load.read().split()[:3]))
    print(f"RSS_GROWTH {(rss_end / rss_10s - 1) * 100 if rss_10s else float('nan'):.1f}")


if __name__ == "__main__":
    main()
