"""Losing the database machine: three nodes behind nginx on a PostgreSQL primary with a
synchronous standby (tests/support/portico_replication.py), one libpq multi-host URL naming
both. While 8 clients rotate refresh-token chains and sign people in, the primary gets kill -9;
the standby is promoted; the nodes find it by themselves. Afterwards every write a client saw
answered is there, nothing got a 500, and the old primary comes back as a standby (pg_rewind).

The fixtures are this module's own (not conftest's `cluster`): the other cluster tests keep
their single server. PORTICO_FAILOVER_REPORT names a file to which each run appends one JSON
line of figures (bench/idp/failover.sh reads them)."""

import base64
import concurrent.futures
import hashlib
import json
import os
import secrets
import threading
import time
import urllib.parse

import pytest
import requests

import portico_cluster
import portico_replication
from conftest import interop
from test_cluster import REDIRECT_URI, App

CLIENTS = 8
# How long the nodes are given, after the promotion, to serve writes again.
RECOVERY_SECONDS = 10
# The gap an operator (or Patroni) takes between the primary's loss and the promotion.
PROMOTION_DELAY_SECONDS = 2


@pytest.fixture(scope="module")
def replicated():
    database = portico_replication.ReplicatedPostgres()
    database.start()
    try:
        yield database
    finally:
        database.stop()


@pytest.fixture(scope="module")
def ha_cluster(portico_binary, replicated):
    instance = portico_cluster.Cluster(portico_binary, replicated.url)
    instance.start()
    try:
        yield instance
    finally:
        instance.stop()


class Recorder:
    """Every answer the clients got: status, time, and whether a 503 carried Retry-After."""

    def __init__(self):
        self.lock = threading.Lock()
        self.answers = []
        self.slowest = 0.0

    def hook(self, response, *args, **kwargs):
        with self.lock:
            self.answers.append((time.monotonic(), response.status_code, response.request.url,
                                 response.headers.get("Retry-After")))
            self.slowest = max(self.slowest, response.elapsed.total_seconds())

    def session(self):
        session = requests.Session()
        session.hooks["response"].append(self.hook)
        return session


def health(node):
    status, body = portico_cluster.http_get(node.url + "/healthz", timeout=5)
    assert status == 200, (node.name, status, body)
    return json.loads(body)["status"]


def test_the_primary_killed_and_the_standby_promoted_loses_no_answered_write(ha_cluster, replicated):
    cluster = ha_cluster
    recorder = Recorder()
    apps = [App(cluster, cluster.url) for _ in range(CLIENTS)]
    chains = [app.refresh_token() for app in apps]
    acknowledged_rotations = [0] * CLIENTS
    # The refresh token of every sign-in (code flow) whose answer reached its client.
    signed_in = [[] for _ in range(CLIENTS)]
    stop = threading.Event()
    last_success = [0.0]
    gaps = []

    def note_success():
        with recorder.lock:
            now = time.monotonic()
            if last_success[0] and now - last_success[0] > 0.5:
                gaps.append(now - last_success[0])
            last_success[0] = now

    def sign_in(index, session):
        """A code flow by a fresh browser of this client's person; its refresh token or None."""
        app = apps[index]
        person = interop.PersonAtBrowser(app.person.email, app.person.password)
        person.session = session
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
        query = urllib.parse.urlencode({
            "response_type": "code", "client_id": app.client["client_id"], "redirect_uri": REDIRECT_URI,
            "scope": "openid offline_access", "state": "s", "code_challenge": challenge,
            "code_challenge_method": "S256"})
        try:
            callback = person.authorize(cluster.url + "/oauth/authorize?" + query, REDIRECT_URI)
        except AssertionError:
            return None   # a page in the flow got a 503: the person tries again later
        code = urllib.parse.parse_qs(urllib.parse.urlparse(callback).query)["code"][0]
        status, body = app.token({"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI,
                                  "code_verifier": verifier}, session=session)
        return body["refresh_token"] if status == 200 else None

    def client(index):
        session = recorder.session()
        app = apps[index]
        rounds = 0
        while not stop.is_set():
            rounds += 1
            status, body = app.refresh(chains[index], session=session)
            if status == 200:
                chains[index] = body["refresh_token"]
                acknowledged_rotations[index] += 1
                note_success()
            elif status != 503:
                raise AssertionError(f"client {index}: {status} {body}")
            else:
                time.sleep(0.05)
            if rounds % 4 == index % 4:
                token = sign_in(index, session)
                if token:
                    signed_in[index].append(token)
                    note_success()

    pool = concurrent.futures.ThreadPoolExecutor(CLIENTS)
    futures = [pool.submit(client, index) for index in range(CLIENTS)]
    try:
        time.sleep(3)
        assert all(health(node) == "ok" for node in cluster.nodes)
        killed_at = time.monotonic()
        replicated.kill(replicated.primary)
        # No primary: each node says so, and what needs the database gets 503 with Retry-After.
        deadline = time.monotonic() + 5
        while not all(health(node) == "degraded" for node in cluster.nodes) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [health(node) for node in cluster.nodes] == ["degraded"] * 3
        remaining = PROMOTION_DELAY_SECONDS - (time.monotonic() - killed_at)
        if remaining > 0:
            time.sleep(remaining)
        replicated.promote()
        promoted_at = time.monotonic()
        # Every node finds the new primary by itself, without a restart.
        pending = set(node.name for node in cluster.nodes)
        served_again = {}
        while pending and time.monotonic() - promoted_at < RECOVERY_SECONDS + 20:
            for node in cluster.nodes:
                if node.name in pending and health(node) == "ok":
                    response = requests.get(node.url + "/oauth/authorize?" + urllib.parse.urlencode({
                        "response_type": "code", "client_id": apps[0].client["client_id"],
                        "redirect_uri": REDIRECT_URI, "scope": "openid", "code_challenge": "x" * 43,
                        "code_challenge_method": "S256"}), allow_redirects=False, timeout=30)
                    if response.status_code != 503:
                        served_again[node.name] = time.monotonic() - promoted_at
                        pending.discard(node.name)
            time.sleep(0.05)
        assert not pending, f"nodes not serving {RECOVERY_SECONDS + 20} s after the promotion: {pending}"
        time.sleep(3)
    finally:
        # Whatever failed above, the clients stop (or leaving the pool would wait for them).
        stop.set()
        pool.shutdown(wait=True)
    for future in futures:
        future.result()

    # Every acknowledged write is on the new primary: each chain's last token refreshes (a
    # rotation whose answer was lost is covered by the grace), and each sign-in's token too.
    lost = []
    for index, app in enumerate(apps):
        status, body = app.refresh(chains[index])
        if status != 200:
            lost.append((index, "rotation", body))
        for token in signed_in[index]:
            status, body = app.refresh(token)
            if status != 200:
                lost.append((index, "sign-in", body))
    unavailable = [answer for answer in recorder.answers if answer[1] == 503]
    report = os.environ.get("PORTICO_FAILOVER_REPORT")
    if report:
        with open(report, "a") as file:
            file.write(json.dumps({
                "seconds_without_service": round(max(gaps, default=0.0), 2),
                "seconds_serving_after_promotion": round(max(served_again.values()), 2),
                "promotion_delay": PROMOTION_DELAY_SECONDS, "requests": len(recorder.answers),
                "answered_503": len(unavailable),
                "other_5xx": sum(1 for answer in recorder.answers if answer[1] >= 500 and answer[1] != 503),
                "rotations": sum(acknowledged_rotations), "sign_ins": sum(len(s) for s in signed_in),
                "slowest_request_s": round(recorder.slowest, 2),
                "acknowledged_writes_lost": len(lost)}) + "\n")
    assert not lost, lost
    # No 500 (nor any other 5xx but 503), and every 503 says when to come back.
    assert not [answer for answer in recorder.answers if answer[1] >= 500 and answer[1] != 503], \
        [answer for answer in recorder.answers if answer[1] >= 500][:10]
    assert all(retry for _, _, _, retry in unavailable), unavailable[:5]
    assert max(served_again.values()) <= RECOVERY_SECONDS, served_again
    # Nothing hung: no answer took as long as nginx waits for a node (proxy_read_timeout 30 s).
    assert recorder.slowest < 30, recorder.slowest
    assert all(count > 0 for count in acknowledged_rotations), acknowledged_rotations

    # The old primary comes back as the new one's synchronous standby, and writes go on.
    replicated.rejoin()
    status, body = apps[0].refresh(apps[0].refresh_token())
    assert status == 200, body
