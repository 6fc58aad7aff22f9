"""Portico as three nodes on one PostgreSQL behind nginx (deploy/ as it is): the browser and
interop suites through the proxy, again after a node is killed, a node killed during a burst of
refresh rotations, two nodes rotating one refresh token at once, and the database going away
and coming back. The tests run in this order and share one cluster."""

import base64
import concurrent.futures
import hashlib
import json
import os
import pathlib
import secrets
import subprocess
import threading
import time
import urllib.parse
import uuid

import pytest
import requests

import portico_cluster
import portico_server
from conftest import interop

ROOT = pathlib.Path(__file__).resolve().parents[2]
REDIRECT_URI = "http://127.0.0.1/cluster/callback"
# The suites run through the cluster: Authlib's code flow with consent, refresh, revocation,
# introspection and client credentials; the demo app's sign-in in chromium; device login.
SUITES = ["tests/interop/test_authlib_client.py", "tests/browser/test_demo_flow.py", "tests/browser/test_device_flow.py"]
# The demo flow's desktop case signs in as the demo person, who then has consented; the phone
# case makes a new person, so the second round (after a node is killed) sees consent again.
FIRST_ROUND = "test_authlib_client or (desktop and (test_demo_sign_in_and_allow or test_device_login_end_to_end))"
SECOND_ROUND = ("test_authlib_client or (phone and test_demo_sign_in_and_allow)"
                " or (desktop and test_device_login_end_to_end)")


def served_requests(cluster, node):
    """How many requests other than /healthz `node` has logged."""
    path = cluster.log_path(node)
    if not os.path.exists(path):
        return 0
    return sum(1 for line in open(path) if '"method":' in line and '"/healthz"' not in line)


def run_suites(cluster, selection):
    """Runs the interop and browser suites against the cluster's URL (in a pytest of their own,
    attached to the cluster by PORTICO_CLUSTER_URL); returns each node's count of requests served."""
    before = {node.name: served_requests(cluster, node) for node in cluster.nodes}
    environment = dict(os.environ, PORTICO_CLUSTER_URL=cluster.url, PORTICO_CLUSTER_DATABASE=cluster.database,
                       PORTICO_CLUSTER_OUTBOX=cluster.outbox, PORTICO_CLUSTER_BANNER=cluster.banner_file())
    pytest_binary = os.environ.get("PORTICO_VENV_PYTEST", "pytest")
    result = subprocess.run([pytest_binary, "-q", "-p", "no:cacheprovider", *SUITES, "-k", selection],
                            cwd=ROOT, env=environment, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert " passed" in result.stdout and "deselected" in result.stdout, result.stdout[-2000:]
    return {node.name: served_requests(cluster, node) - before[node.name] for node in cluster.nodes}


def test_three_nodes_starting_at_once_on_an_empty_database_agree(portico_binary):
    """Migrations, the first signing keys and the demo's app and person, made by whichever node
    gets there first: every node starts, and there is exactly one key per algorithm."""
    name = "portico_first_start_" + uuid.uuid4().hex[:12]
    server = os.environ["PORTICO_TEST_POSTGRES_URL"]
    admin = server.rsplit("/", 1)[0] + "/postgres"
    psql = os.path.join(os.environ["PORTICO_TEST_POSTGRES_BINDIR"], "psql")
    subprocess.run([psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", admin, "-c", f"CREATE DATABASE {name}"], check=True,
                   capture_output=True)
    fresh = portico_cluster.Cluster(portico_binary, server.rsplit("/", 1)[0] + "/" + name, migrate=False)
    try:
        fresh.start()
        listed = fresh.command("keys", "list", "--json")
        assert listed.returncode == 0, listed.stderr
        keys = json.loads(listed.stdout)
        keys = keys["keys"] if isinstance(keys, dict) else keys
        current = sorted(key["alg"] if "alg" in key else key["algorithm"] for key in keys)
        assert current == ["ES256", "EdDSA", "PS256", "RS256"], keys
        # Each node signs with those keys: a token from one verifies at the others.
        app = App(fresh, fresh.url)
        token = app.refresh_token()
        for node in fresh.nodes:
            status, body = app.refresh(token, base_url=node.url)
            assert status == 200, (node.name, body)
            token = body["refresh_token"]
            assert requests.get(node.url + "/oauth/userinfo", timeout=60,
                                headers={"Authorization": "Bearer " + body["access_token"]}).status_code == 200
    finally:
        fresh.stop()
        subprocess.run([psql, "-X", "-q", admin, "-c", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"],
                       capture_output=True)


def test_the_flows_through_nginx_spread_over_three_nodes(cluster):
    served = run_suites(cluster, FIRST_ROUND)
    assert all(count > 0 for count in served.values()), served


def test_the_flows_again_after_a_node_is_killed(cluster):
    victim = cluster.nodes[1]
    cluster.kill_node(victim)
    assert victim.process.returncode == -9
    served = run_suites(cluster, SECOND_ROUND)
    assert served[victim.name] == 0
    assert all(count > 0 for name, count in served.items() if name != victim.name), served
    cluster.restart_node(victim)


# MARK: Refresh tokens


class App:
    """A confidential client of the cluster and a signed-in person, minting refresh tokens."""

    def __init__(self, server, base_url):
        made = server.command("client", "add", "--name", "Cluster App", "--redirect-uri", REDIRECT_URI,
                              "--introspection", "--json")
        assert made.returncode == 0, made.stderr
        self.client = json.loads(made.stdout)
        email = f"cluster-{uuid.uuid4().hex[:10]}@cluster.example"
        added = server.command("user", "add", "--email", email, "--name", "Cluster Person", "--password-stdin",
                               stdin="cluster-password\n")
        assert added.returncode == 0, added.stderr
        self.person = interop.PersonAtBrowser(email, "cluster-password")
        self.base_url = base_url
        basic = f"{self.client['client_id']}:{self.client['client_secret']}".encode()
        self.authorization = "Basic " + base64.b64encode(basic).decode()

    def refresh_token(self):
        """A new refresh family: one code flow (the person signs in and consents the first time)."""
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(
            hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
        query = urllib.parse.urlencode({
            "response_type": "code", "client_id": self.client["client_id"], "redirect_uri": REDIRECT_URI,
            "scope": "openid offline_access", "state": secrets.token_urlsafe(8), "code_challenge": challenge,
            "code_challenge_method": "S256"})
        callback = self.person.authorize(self.base_url + "/oauth/authorize?" + query, REDIRECT_URI)
        code = urllib.parse.parse_qs(urllib.parse.urlparse(callback).query)["code"][0]
        status, body = self.token({"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI,
                                   "code_verifier": verifier})
        assert status == 200, body
        return body["refresh_token"]

    def token(self, form, base_url=None, session=None):
        """(status, JSON body) of a token request; (status, text) when the body is not JSON."""
        response = (session or requests).post((base_url or self.base_url) + "/oauth/token", data=form,
                                              headers={"Authorization": self.authorization}, timeout=60)
        try:
            return response.status_code, response.json()
        except ValueError:
            return response.status_code, response.text

    def refresh(self, token, base_url=None, session=None):
        return self.token({"grant_type": "refresh_token", "refresh_token": token}, base_url, session)

    def is_active(self, token, base_url=None):
        response = requests.post((base_url or self.base_url) + "/oauth/introspect", data={"token": token},
                                 headers={"Authorization": self.authorization}, timeout=60)
        assert response.status_code == 200, response.text
        return response.json()["active"]


def test_a_node_killed_during_a_burst_of_refresh_rotations(cluster):
    app = App(cluster, cluster.url)
    chains = 8
    tokens = [app.refresh_token() for _ in range(chains)]
    rotations_each = 40
    done = []
    lock = threading.Lock()
    results = [[] for _ in range(chains)]

    def rotate(index):
        session = requests.Session()
        for _ in range(rotations_each):
            status, body = app.refresh(tokens[index], session=session)
            results[index].append(status)
            if status == 200:
                tokens[index] = body["refresh_token"]   # the last token that reached the client
            elif status < 500:
                raise AssertionError(f"chain {index}: {status} {body}")
            # A 5xx (the request died with its node): retry with the same token, as a client does.
            with lock:
                done.append(status)

    victim = cluster.nodes[2]
    with concurrent.futures.ThreadPoolExecutor(chains) as pool:
        futures = [pool.submit(rotate, index) for index in range(chains)]
        while len(done) < chains * rotations_each // 3 and not any(future.done() for future in futures):
            time.sleep(0.01)
        cluster.kill_node(victim)
        for future in futures:
            future.result()

    failures = [status for chain in results for status in chain if status >= 500]
    # Only requests in flight at the killed node can fail: at most one per chain.
    assert len(failures) <= chains, results
    assert all(status in (200, 502, 504) for chain in results for status in chain), results
    # No rotation that committed is lost: every chain's last token the client received refreshes
    # (after a lost response, within the grace period, as it would have on one node).
    for index, token in enumerate(tokens):
        status, body = app.refresh(token)
        assert status == 200, (index, body)
        tokens[index] = body["refresh_token"]

    # The killed node, restarted, rejoins: nginx sends it requests again.
    cluster.restart_node(victim)
    before = served_requests(cluster, victim)
    deadline = time.monotonic() + 60
    while served_requests(cluster, victim) == before and time.monotonic() < deadline:
        status, body = app.refresh(tokens[0])
        assert status == 200, body
        tokens[0] = body["refresh_token"]
    assert served_requests(cluster, victim) > before


def race(app, first_url, second_url):
    """Presents one fresh refresh token to two servers at the same instant; returns both answers,
    and then whether each returned refresh token is active."""
    token = app.refresh_token()
    barrier = threading.Barrier(2)

    def present(url):
        barrier.wait()
        return app.refresh(token, base_url=url)

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(present, [first_url, second_url]))
    issued = [body["refresh_token"] for status, body in answers if status == 200]
    return answers, [app.is_active(new) for new in issued], issued


def race_outcomes(app, first_url, second_url, rounds=6):
    """The outcome of each round: the statuses, sorted, and how many returned tokens are active;
    then a replay of the inactive one, which is reuse and revokes the family."""
    outcomes = []
    for _ in range(rounds):
        answers, active, issued = race(app, first_url, second_url)
        statuses = sorted(status for status, _ in answers)
        outcomes.append((tuple(statuses), sum(active)))
        inactive = [token for token, is_active in zip(issued, active) if not is_active]
        winner = [token for token, is_active in zip(issued, active) if is_active]
        if inactive and winner:
            status, body = app.refresh(inactive[0], base_url=first_url)
            assert status == 400 and body["error"] == "invalid_grant", body
            assert not app.is_active(winner[0], base_url=second_url)   # the family is revoked
    return outcomes


def test_two_nodes_rotating_one_refresh_token_behave_as_one_sqlite_node(cluster, portico_binary):
    app = App(cluster, cluster.url)
    clustered = race_outcomes(app, cluster.nodes[0].url, cluster.nodes[1].url)
    # Both get tokens (the later one is a retry within the grace period, which supersedes what the
    # first got), and exactly one of the two is the family's token afterwards.
    assert set(clustered) == {((200, 200), 1)}, clustered

    single = portico_server.Server(portico_binary, "portico-cluster-sqlite-")
    try:
        reference = App(single, single.url)
        assert set(race_outcomes(reference, single.url, single.url)) == set(clustered)
    finally:
        single.stop()


# MARK: The database away


def test_the_database_away_gives_503s_and_service_resumes_without_a_restart(cluster):
    app = App(cluster, cluster.url)
    refresh = app.refresh_token()
    status, body = app.refresh(refresh)
    assert status == 200, body
    access, refresh = body["access_token"], body["refresh_token"]
    bearer = {"Authorization": "Bearer " + access}
    authorize = cluster.url + "/oauth/authorize?" + urllib.parse.urlencode({
        "response_type": "code", "client_id": app.client["client_id"], "redirect_uri": REDIRECT_URI,
        "scope": "openid", "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        "code_challenge_method": "S256"})
    auth = {"Authorization": app.authorization}
    api = [
        ("POST", "/oauth/token", {"grant_type": "refresh_token", "refresh_token": refresh}, auth),
        # A client no node has cached: authenticating it needs the database.
        ("POST", "/oauth/token", {"grant_type": "client_credentials"},
         {"Authorization": "Basic " + base64.b64encode(b"not-cached:secret").decode()}),
        ("GET", "/oauth/userinfo", None, bearer),
        ("POST", "/oauth/userinfo", None, bearer),
        ("GET", "/user/profile", None, bearer),
        ("POST", "/oauth/introspect", {"token": access}, auth),
        ("POST", "/oauth/revoke", {"token": refresh}, auth),
        ("POST", "/oauth/device_authorization", {"client_id": "no-such-client"}, {}),
    ]
    postgres = portico_cluster.PostgresControl()
    postgres.stop()
    try:
        for method, path, form, headers in api:
            response = requests.request(method, cluster.url + path, data=form, headers=headers, timeout=60)
            assert response.status_code == 503, (path, response.status_code, response.text)
            assert response.headers.get("Retry-After"), path
            assert response.headers["Content-Type"].startswith("application/json"), path
            assert response.json()["error"] == "temporarily_unavailable", path
        for language, words in (("en", "briefly unavailable"), ("zh-CN", "暂时无法使用")):
            page = requests.get(authorize, headers={"Accept-Language": language}, timeout=60)
            assert page.status_code == 503, page.text[:500]
            assert page.headers.get("Retry-After")
            assert page.headers["Content-Type"].startswith("text/html")
            assert words in page.text
    finally:
        postgres.start()
    # Serving again, without restarting any node: each answers from the same connection pool.
    for node in cluster.nodes:
        deadline = time.monotonic() + 30
        while True:
            status, body = app.refresh(refresh, base_url=node.url)
            if status != 503 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert status == 200, (node.name, body)
        refresh = body["refresh_token"]
        assert requests.get(authorize.replace(cluster.url, node.url), allow_redirects=False,
                            timeout=60).status_code in (200, 302, 303)
