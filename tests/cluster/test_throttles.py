"""Throttles count across nodes: password guesses against one account, sent through nginx to
three nodes at once, get no more tries than the same guesses against a single node. The
attempts are rows in the shared database (AttemptThrottle), so no node has a budget of its own.

Each run uses a client address of its own (X-Forwarded-For through nginx, which the nodes trust
as their proxy), so the per-address limit of other tests' failures does not interfere."""

import concurrent.futures
import random
import time
import urllib.parse
import uuid

import requests

from conftest import interop
from test_cluster import served_requests

GUESSES = 15
# AttemptThrottle.accountLimit: failures an account takes before growing delays.
ACCOUNT_LIMIT = 5


def guess(base_url, email, address):
    """One wrong-password sign-in from `address`; the status of the answer to the POST."""
    session = requests.Session()
    session.headers["X-Forwarded-For"] = address
    page = session.get(base_url + "/login", timeout=60)
    assert page.status_code == 200, page.text[:300]
    form = next(form for form in interop.forms_of(page.text)
                if {"email", "password"} <= {field.get("name") for field in form["fields"]})
    data = {field["name"]: field.get("value", "") for field in form["fields"]
            if field.get("name") and field.get("type", "text") == "hidden"}
    data.update(email=email, password="not-the-password")
    # A node too busy to hash a password sheds the request with 503 and Retry-After before
    # checking anything (nothing counted), so the guesser simply sends it again.
    for _ in range(30):
        answer = session.post(urllib.parse.urljoin(page.url, form["action"] or page.url), data=data,
                              allow_redirects=False, timeout=60)
        if answer.status_code != 503:
            break
        assert answer.headers.get("Retry-After"), answer.headers
        time.sleep(0.2)
    assert answer.status_code in (200, 429), (answer.status_code, answer.text[:300])
    if answer.status_code == 429:
        assert answer.headers.get("Retry-After")
    return answer.status_code


def guesses(cluster, base_urls, parallel):
    """GUESSES wrong passwords for a new account from a new address, spread over `base_urls`
    (`parallel` at a time); how many were checked (not refused with 429)."""
    email = f"throttled-{uuid.uuid4().hex[:10]}@cluster.example"
    added = cluster.command("user", "add", "--email", email, "--name", "Throttled", "--password-stdin",
                            stdin="a throttled person's long password\n")
    assert added.returncode == 0, added.stderr
    address = f"198.51.{random.randrange(256)}.{random.randrange(1, 255)}"
    with concurrent.futures.ThreadPoolExecutor(parallel) as pool:
        statuses = list(pool.map(lambda index: guess(base_urls[index % len(base_urls)], email, address),
                                 range(GUESSES)))
    return sum(1 for status in statuses if status != 429)


def test_guesses_spread_over_three_nodes_get_no_more_tries_than_against_one(cluster):
    before = {node.name: served_requests(cluster, node) for node in cluster.nodes}
    # Through nginx, which spreads them over the three nodes, six at a time.
    spread = guesses(cluster, [cluster.url], parallel=6)
    reached = {node.name: served_requests(cluster, node) - before[node.name] for node in cluster.nodes}
    assert all(count > 0 for count in reached.values()), reached
    # One node alone, the same guesses.
    single = guesses(cluster, [cluster.nodes[0].url + ""], parallel=6)
    assert single == ACCOUNT_LIMIT, single
    assert spread <= single, (spread, single)
