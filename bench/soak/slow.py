#!/usr/bin/env python3
"""Slow clients: COUNT connections, spread over the source addresses 127.0.0.2..127.0.0.9
(the server caps connections per client address), each sending one byte of a request every
INTERVAL seconds, reconnecting when the server closes it; runs until killed. Prints how
many are open once they all connected, and on SIGTERM how many times the server cut one off.
Standard library only.

usage: slow.py HOST PORT COUNT INTERVAL
"""
import selectors
import signal
import socket
import sys
import time

REQUEST = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Slow: 1\r\n" * 10000


def main():
    host, port, count, interval = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    sources = [f"127.0.0.{i}" for i in range(2, 10)]
    conns = {}
    cut = 0
    stop = False

    def on_term(*_):
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_term)

    def connect(i):
        try:
            s = socket.create_connection((host, port), timeout=5, source_address=(sources[i % len(sources)], 0))
            s.setblocking(False)
            conns[i] = [s, 0]
        except OSError:
            conns.pop(i, None)

    for i in range(count):
        connect(i)
    print(f"SLOW_OPEN {len(conns)}", flush=True)
    while not stop:
        started = time.monotonic()
        for i in range(count):
            entry = conns.get(i)
            if entry is None:
                connect(i)
                continue
            s, offset = entry
            try:
                s.send(REQUEST[offset:offset + 1])
                entry[1] = (offset + 1) % len(REQUEST)
            except OSError:
                s.close()
                cut += 1
                connect(i)
        time.sleep(max(0.0, interval - (time.monotonic() - started)))
    print(f"SLOW_CUT {cut}", flush=True)


if __name__ == "__main__":
    main()
