"""Fixtures for tests/cluster: three `portico serve` nodes on the PostgreSQL of
scripts/with-postgres behind Debian's nginx, started from deploy/ as they are
(tests/support/portico_cluster.py), and stopped when the session ends, also when it fails or
is interrupted."""

import importlib.util
import os
import pathlib
import signal
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "support"))

import portico_cluster  # noqa: E402
import portico_server  # noqa: E402


def _interrupted(signum, frame):
    # with-postgres turns Ctrl-C into SIGTERM; make it unwind pytest so the fixtures stop
    # nginx and the nodes before with-postgres stops PostgreSQL.
    raise KeyboardInterrupt


signal.signal(signal.SIGTERM, _interrupted)


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The interop suite's form-driving person (sign-in and consent without a browser).
interop = _load("interop_conftest", ROOT / "tests" / "interop" / "conftest.py")


@pytest.fixture(scope="session")
def portico_binary():
    binary = portico_server.binary()
    if binary is None:
        pytest.fail("no portico binary; run `swift build` first (or set PORTICO_BINARY)")
    return binary


@pytest.fixture(scope="session")
def cluster(portico_binary):
    database = os.environ.get("PORTICO_TEST_POSTGRES_URL")
    if not database:
        pytest.fail("tests/cluster needs PostgreSQL: run it with scripts/cluster-tests (make test-cluster)")
    instance = portico_cluster.Cluster(portico_binary, database)
    instance.start()
    try:
        yield instance
    finally:
        instance.stop()
