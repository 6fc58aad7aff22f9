#!/usr/bin/env python3
"""Slow clients: COUNT connections, spread over SOURCES source addresses 127.0.0.2, 127.0.0.3, ...
(8 by default; the server caps connections per client address at 128), each sending one byte of
a request every INTERVAL seconds, reconnecting when the server closes it; runs until killed.
Once all have connected and a second has passed, prints how many the server holds open
(SLOW_OPEN) and how many it closed at once (SLOW_REFUSED: over the per-client cap); on SIGTERM,
how many times the server cut one off (SLOW_CUT: the cap, or the whole-request deadline).
Standard library only.

usage: slow.py HOST PORT COUNT INTERVAL [SOURCES]
"""
import errno
import selectors
import signal
import socket
import sys
import time

REQUEST = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Slow: 1\r\n" * 10000


def main():
    host, port, count, interval = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    source_count = int(sys.argv[5]) if len(sys.argv) > 5 else 8
    sources = [f"127.0.{(i + 2) // 256}.{(i + 2) % 256}" for i in range(source_count)]
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
    time.sleep(1)
    refused = 0
    for entry in conns.values():
        try:
            if entry[0].recv(1, socket.MSG_PEEK) == b"":
                refused += 1
        except OSError as error:
            if error.errno not in (errno.EAGAIN, errno.EWOULDBLOCK):
                refused += 1
    print(f"SLOW_OPEN {len(conns) - refused}", flush=True)
    print(f"SLOW_REFUSED {refused + count - len(conns)}", flush=True)
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
