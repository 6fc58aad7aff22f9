#!/usr/bin/env python3
"""Shared Signals benchmark: prints figures, asserts nothing.

1. Fan-out: one person who allowed N apps (50), each with a stream; one action
   (`portico user disable` / `enable`) announces one event per app in the action's
   transaction. Measured: the action's wall time (the CLI process included, so an upper
   bound) and the time until all N SETs were signed and handed out by polling each stream.
2. Push delivery: N push streams to one local receiver (stdlib HTTP server, no verification,
   answers 202); a burst of actions; measured: SETs delivered per second by the outbox.

Usage: bench/ssf/run.py [--binary PATH] [--apps 50] [--actions 20]
(default binary: .build/release/portico if built, else .build/debug/portico)."""

import argparse
import base64
import hashlib
import http.server
import json
import os
import pathlib
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "interop"))

import requests  # noqa: E402
from conftest import PersonAtBrowser  # noqa: E402

REDIRECT = "http://127.0.0.1/bench/callback"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    default = ROOT / ".build" / "release" / "portico"
    parser.add_argument("--binary", default=str(default if default.exists() else ROOT / ".build" / "debug" / "portico"))
    parser.add_argument("--apps", type=int, default=50)
    parser.add_argument("--actions", type=int, default=20)
    options = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="portico-bench-ssf-")
    database = f"sqlite:{workdir}/portico.db"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = open(os.path.join(workdir, "serve.log"), "w")
    server = subprocess.Popen([options.binary, "serve", "--port", str(port), "--quiet", "--database", database,
                               "--outbox", os.path.join(workdir, "outbox"), "--allow-loopback-callbacks"],
                              stdout=subprocess.DEVNULL, stderr=log)

    def cli(*arguments, stdin=None):
        result = subprocess.run([options.binary, *arguments, "--database", database], input=stdin,
                                capture_output=True, text=True, check=True)
        return result.stdout

    try:
        for _ in range(300):
            try:
                if requests.get(url + "/healthz", timeout=1).status_code == 200:
                    break
            except requests.ConnectionError:
                time.sleep(0.1)
        print(f"binary: {options.binary}")
        cli("user", "add", "--email", "bench@example.com", "--name", "Bench", "--password-stdin",
            stdin="bench-password-2026\n")
        person = PersonAtBrowser("bench@example.com", "bench-password-2026")
        apps = []
        for index in range(options.apps):
            created = json.loads(cli("client", "add", "--name", f"App {index}", "--redirect-uri", REDIRECT,
                                     "--grant", "authorization_code", "--grant", "client_credentials", "--ssf",
                                     "--json"))
            token = requests.post(url + "/oauth/token", data={"grant_type": "client_credentials"},
                                  auth=(created["client_id"], created["client_secret"]), timeout=10).json()
            created["token"] = token["access_token"]
            verifier = secrets.token_urlsafe(48)
            challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
            query = urllib.parse.urlencode({
                "response_type": "code", "client_id": created["client_id"], "redirect_uri": REDIRECT,
                "scope": "openid profile", "state": "s", "code_challenge": challenge,
                "code_challenge_method": "S256"})
            person.authorize(url + "/oauth/authorize?" + query, REDIRECT)
            apps.append(created)

        def headers(app):
            return {"Authorization": f"Bearer {app['token']}"}

        # 1. Fan-out to poll streams.
        for app in apps:
            reply = requests.post(url + "/ssf/stream", headers=headers(app), timeout=10,
                                  json={"delivery": {"method": "urn:ietf:rfc:8936"}})
            assert reply.status_code == 201, reply.text
        actions = []
        for index in range(options.actions):
            started = time.monotonic()
            cli("user", "disable" if index % 2 == 0 else "enable", "bench@example.com")
            actions.append(time.monotonic() - started)
        started = time.monotonic()
        signed = 0
        for app in apps:
            while True:
                reply = requests.post(url + "/ssf/poll", headers=headers(app), timeout=40,
                                      json={"maxEvents": 1000, "returnImmediately": True}).json()
                signed += len(reply["sets"])
                requests.post(url + "/ssf/poll", headers=headers(app), timeout=40,
                              json={"ack": list(reply["sets"]), "maxEvents": 0})
                if not reply["moreAvailable"]:
                    break
        polling = time.monotonic() - started
        events = options.apps * options.actions
        print(f"fan-out: {options.actions} actions x {options.apps} apps = {events} events queued; "
              f"one action (CLI process included) median {sorted(actions)[len(actions) // 2] * 1000:.0f} ms "
              f"= {options.apps / sorted(actions)[len(actions) // 2]:.0f} events/s per action")
        print(f"poll: {signed} SETs signed and handed out in {polling:.2f} s = {signed / polling:.0f} SETs/s "
              f"({2 * len(apps)} poll requests or more)")

        # 2. Push delivery to a local receiver.
        received = []
        lock = threading.Lock()

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *arguments):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with lock:
                    received.append(time.monotonic())
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()

        receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=receiver.serve_forever, daemon=True).start()
        endpoint = f"http://127.0.0.1:{receiver.server_address[1]}/events"
        for app in apps:
            stream = requests.get(url + "/ssf/stream", headers=headers(app), timeout=10).json()[0]
            reply = requests.patch(url + "/ssf/stream", headers=headers(app), timeout=10,
                                   json={"stream_id": stream["stream_id"],
                                         "delivery": {"method": "urn:ietf:rfc:8935", "endpoint_url": endpoint}})
            assert reply.status_code == 200, reply.text
        started = time.monotonic()
        for index in range(options.actions):
            cli("user", "disable" if index % 2 == 0 else "enable", "bench@example.com")
        queued = time.monotonic() - started
        deadline = time.monotonic() + 300
        while len(received) < events and time.monotonic() < deadline:
            time.sleep(0.05)
        finished = received[-1] if received else time.monotonic()
        print(f"push: {len(received)} of {events} SETs delivered {finished - started:.2f} s after the first "
              f"action ({queued:.2f} s of it spent queueing by CLI) = {len(received) / (finished - started):.0f} "
              f"SETs/s end to end")
        receiver.shutdown()
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
