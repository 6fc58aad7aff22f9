"""Shared Signals on three nodes (PostgreSQL behind nginx): 1,000 events caused by requests
spread over the nodes, one node killed with SIGKILL while it delivers. Every event reaches the
receiver, none more than twice (a killed node's leased messages are retried by another node
once the lease ends: at least once, and the duplicate is one the receiver recognises by jti)."""

import collections
import json
import os
import subprocess
import sys
import threading
import time
import uuid

import requests

import portico_cluster

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "interop"))
from ssf_receiver import SSF, PushReceiver, SETVerifier  # noqa: E402

EVENTS = 1000


def test_a_node_killed_mid_delivery_loses_no_event(portico_binary):
    name = "portico_ssf_" + uuid.uuid4().hex[:12]
    server = os.environ["PORTICO_TEST_POSTGRES_URL"]
    admin = server.rsplit("/", 1)[0] + "/postgres"
    psql = os.path.join(os.environ["PORTICO_TEST_POSTGRES_BINDIR"], "psql")
    subprocess.run([psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", admin, "-c", f"CREATE DATABASE {name}"], check=True,
                   capture_output=True)
    cluster = portico_cluster.Cluster(portico_binary, server.rsplit("/", 1)[0] + "/" + name, demo=False,
                                      extra_arguments=["--allow-loopback-callbacks"])
    receiver = None
    try:
        cluster.start()
        created = cluster.command("client", "add", "--name", "Cluster Receiver", "--redirect-uri",
                                  "http://127.0.0.1/cb", "--grant", "authorization_code", "--grant",
                                  "client_credentials", "--ssf", "--json")
        assert created.returncode == 0, created.stderr
        client = json.loads(created.stdout)
        token = requests.post(cluster.url + "/oauth/token", data={"grant_type": "client_credentials"},
                              auth=(client["client_id"], client["client_secret"]), timeout=30).json()["access_token"]
        headers = {"Authorization": f"Bearer {token}"}
        verifier = SETVerifier(cluster.url, client["client_id"])
        receiver = PushReceiver(verifier)
        deliveries = collections.Counter()
        original = verifier.verify

        def counting(token, repeated_ok=False):
            claims = original(token, repeated_ok=True)
            deliveries[claims["jti"]] += 1
            time.sleep(0.005)   # a receiver that takes a moment: deliveries are in flight when the node dies
            return claims

        verifier.verify = counting
        reply = requests.post(cluster.url + "/ssf/stream", headers=headers, timeout=30,
                              json={"delivery": {"method": "urn:ietf:rfc:8935", "endpoint_url": receiver.url}})
        assert reply.status_code == 201, reply.text
        stream = reply.json()["stream_id"]

        # 1,000 verification requests through nginx (round robin over the nodes), 8 at a time.
        states = [f"state-{index}" for index in range(EVENTS)]
        pending = list(states)
        lock = threading.Lock()

        def send():
            session = requests.Session()
            while True:
                with lock:
                    if not pending:
                        return
                    state = pending.pop()
                # A request cut off by the kill (502 from nginx) is sent again: its event may exist
                # twice then, under two jti, which the receiver counts as two events.
                for _ in range(5):
                    try:
                        answer = session.post(cluster.url + "/ssf/verify", headers=headers, timeout=60,
                                              json={"stream_id": stream, "state": state})
                        if answer.status_code == 204:
                            break
                    except requests.RequestException:
                        pass
                    time.sleep(0.2)

        senders = [threading.Thread(target=send) for _ in range(8)]
        for sender in senders:
            sender.start()
        # Kill a node while deliveries are under way.
        deadline = time.monotonic() + 120
        while len(receiver.events()) < EVENTS // 4 and time.monotonic() < deadline:
            time.sleep(0.01)
        victim = cluster.nodes[1]
        cluster.kill_node(victim)
        for sender in senders:
            sender.join(timeout=300)
        # The killed node's leases end (60 s by default); the others deliver what it held.
        found = receiver.wait_for(EVENTS, timeout=300)
        got = collections.Counter(c["events"][SSF + "verification"]["state"] for c in found)
        assert set(got) == set(states), f"missing: {sorted(set(states) - set(got))[:10]}"
        assert max(deliveries.values()) <= 2, deliveries.most_common(3)
        print(f"\n{EVENTS} events, {sum(deliveries.values()) - EVENTS} delivered twice after the kill")
    finally:
        if receiver is not None:
            receiver.stop()
        cluster.stop()
        subprocess.run([psql, "-X", "-q", admin, "-c", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"],
                       capture_output=True)
