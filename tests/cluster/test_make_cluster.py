"""`make cluster` as a newcomer runs it (issue 34, item 8): its line for admin commands works as
printed, and piped into `tee` and stopped with Ctrl-C (which ends tee too) or a hang-up it still
stops nginx, the nodes and both PostgreSQL servers (the primary and its synchronous standby).

Runs scripts/cluster itself (its own throwaway PostgreSQL), so it needs no fixture of conftest."""

import os
import pathlib
import re
import signal
import socket
import subprocess
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for our purposes; only a running process counts.
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _listening(port):
    with socket.socket() as probe:
        probe.settimeout(2)
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGHUP])
def test_piped_make_cluster_stops_everything_and_prints_a_working_admin_line(stop_signal):
    binary = os.environ.get("PORTICO_BINARY")
    if not binary:
        pytest.skip("PORTICO_BINARY is not set (scripts/cluster-tests sets it)")
    # As a newcomer's `make cluster`: its own PostgreSQL, not the one this test session runs on
    # (scripts/with-postgres reuses a server named by PORTICO_TEST_POSTGRES_URL).
    environment = {name: value for name, value in os.environ.items() if not name.startswith("PORTICO_TEST_POSTGRES")}
    environment["PORTICO_BINARY"] = binary
    # Its own session, like a terminal's foreground job: the signal goes to the whole group.
    cluster = subprocess.Popen([str(ROOT / "scripts" / "cluster")], cwd=ROOT, env=environment,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               text=True, start_new_session=True)
    lines = []
    try:
        deadline = time.monotonic() + 300
        for line in cluster.stdout:
            lines.append(line.rstrip("\n"))
            if "Ctrl-C stops everything" in line or time.monotonic() > deadline:
                break
        output = "\n".join(lines)
        admin = re.search(r"export PORTICO_DATABASE='([^']+)' PORTICO_KEY_FILE='([^']+)'", output)
        assert admin, output
        listed = subprocess.run([binary, "client", "list"], capture_output=True, text=True, timeout=60,
                                env=dict(os.environ, PORTICO_DATABASE=admin.group(1), PORTICO_KEY_FILE=admin.group(2)))
        assert listed.returncode == 0, listed.stderr
        assert "Portico Demo App" in listed.stdout
        pids = [int(pid) for pid in re.findall(r"\(pid (\d+)\)", output)]
        assert len(pids) == 4, output  # three nodes and nginx
        # The primary and its synchronous standby, both named in the nodes' multi-host URL.
        postgres_ports = [int(port) for port in re.findall(r"127\.0\.0\.1:(\d+)", admin.group(1))]
        assert len(postgres_ports) == 2, admin.group(1)
        assert all(_listening(port) for port in postgres_ports)
        # The reader goes away (tee ended by the same Ctrl-C), then the signal arrives.
        cluster.stdout.close()
        os.killpg(cluster.pid, stop_signal)
        cluster.wait(timeout=120)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (any(_alive(pid) for pid in pids)
                                                 or any(_listening(port) for port in postgres_ports)):
            time.sleep(0.2)
        assert [pid for pid in pids if _alive(pid)] == [], "nginx or a node was left running"
        assert not any(_listening(port) for port in postgres_ports), "PostgreSQL was left running"
    finally:
        if cluster.poll() is None:
            # Failed before stopping it: stop it the ordinary way (its traps stop the rest).
            os.killpg(cluster.pid, signal.SIGTERM)
            try:
                cluster.wait(timeout=120)
            except subprocess.TimeoutExpired:
                os.killpg(cluster.pid, signal.SIGKILL)
                cluster.wait(timeout=30)
