"""Backups that restore: `portico backup` of a live SQLite database while refresh rotations
write to it, and a PostgreSQL database copied with pg_dump and restored with pg_restore. A server
started on the copy with the same key file (and the same issuer) accepts the tokens issued
before the backup: the access tokens at /oauth/userinfo, the refresh tokens at /oauth/token."""

import os
import shutil
import sqlite3
import subprocess
import tempfile
import threading
import time

import pytest
import requests

import portico_cluster
from test_cluster import App


class Node:
    """`portico serve` on a fixed port (tokens name their issuer, so the copy's server must be
    reached at the same address) on the given database and key file."""

    def __init__(self, binary, database, key_file, port):
        self.binary = binary
        self.database = database
        self.key_file = key_file
        self.url = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            [binary, "serve", "--port", str(port), "--quiet", "--database", database, "--key-file", key_file],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while portico_cluster.http_get(self.url + "/healthz", timeout=2)[0] != 200:
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.process.kill()
                raise RuntimeError("portico serve did not start: " + self.process.stderr.read())
            time.sleep(0.1)

    def command(self, *arguments, stdin=None):
        return subprocess.run([self.binary, *arguments, "--database", self.database], input=stdin,
                              capture_output=True, text=True, timeout=60)

    def stop(self):
        self.process.terminate()
        assert self.process.wait(timeout=30) == 0


def issue(app, count=3):
    """`count` (access token, refresh token) pairs, each refreshed once so the refresh token is
    the family's current one."""
    pairs = []
    for _ in range(count):
        status, body = app.refresh(app.refresh_token())
        assert status == 200, body
        pairs.append((body["access_token"], body["refresh_token"]))
    return pairs


def assert_accepted(app, pairs, base_url):
    for access, refresh in pairs:
        response = requests.get(base_url + "/oauth/userinfo", headers={"Authorization": "Bearer " + access},
                                timeout=30)
        assert response.status_code == 200, response.text
        status, body = app.refresh(refresh, base_url=base_url)
        assert status == 200, body


def test_a_backup_of_a_live_sqlite_database_restores_and_accepts_earlier_tokens(portico_binary):
    folder = tempfile.mkdtemp(prefix="portico-backup-")
    try:
        database = os.path.join(folder, "live", "portico.db")
        key_file = os.path.join(folder, "portico.key")
        copy = os.path.join(folder, "copies", "portico-copy.db")
        os.makedirs(os.path.dirname(copy))
        port = portico_cluster.free_port()
        node = Node(portico_binary, f"sqlite:{database}", key_file, port)
        try:
            app = App(node, node.url)
            before = issue(app)
            # A reader's snapshot (as an admin command's) keeps checkpoints from moving what was
            # written after it into the database file: those writes, the tokens below among them,
            # are only in the write-ahead log, which a copy of the file alone would miss.
            reader = sqlite3.connect(database, isolation_level=None)
            reader.execute("BEGIN")
            reader.execute("SELECT count(*) FROM sqlite_master").fetchall()
            before += issue(app)
            # Writes go on while the backup runs: 4 chains rotating as fast as they can.
            stop = threading.Event()
            rotations = [0]
            chains = [app.refresh_token() for _ in range(4)]

            def rotate(index):
                session = requests.Session()
                while not stop.is_set():
                    status, body = app.refresh(chains[index], session=session)
                    assert status == 200, body
                    chains[index] = body["refresh_token"]
                    rotations[0] += 1

            threads = [threading.Thread(target=rotate, args=(index,)) for index in range(4)]
            for thread in threads:
                thread.start()
            try:
                time.sleep(1)
                during = rotations[0]
                result = subprocess.run([portico_binary, "backup", "--to", copy, "--database", f"sqlite:{database}",
                                         "--key-file", key_file], capture_output=True, text=True, timeout=120)
                time.sleep(0.5)
            finally:
                stop.set()
                for thread in threads:
                    thread.join()
                reader.close()
            assert result.returncode == 0, result.stderr
            assert rotations[0] > during, "no writes while the backup ran"
            assert "cannot sign without the key file " + key_file in result.stdout, result.stdout
            # A second backup to the same name is refused and leaves the first alone.
            again = subprocess.run([portico_binary, "backup", "--to", copy, "--database", f"sqlite:{database}"],
                                   capture_output=True, text=True, timeout=60)
            assert again.returncode == 1 and "already exists" in again.stderr, again.stderr
            assert again.stderr.count("\n") == 1, again.stderr
        finally:
            node.stop()
        assert oct(os.stat(copy).st_mode & 0o777) == "0o600"
        assert sqlite3.connect(copy).execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert not [name for name in os.listdir(os.path.dirname(copy)) if "partial" in name]

        restored = Node(portico_binary, f"sqlite:{copy}", key_file, port)
        try:
            assert_accepted(app, before, restored.url)
        finally:
            restored.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_backup_names_the_postgresql_tools_on_a_postgres_url(portico_binary):
    result = subprocess.run([portico_binary, "backup", "--to", "/tmp/never-written.db", "--database",
                             "postgres://nobody@127.0.0.1:1/nothing"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "pg_dump" in result.stderr and "pg_basebackup" in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1 and result.stdout == ""
    assert not os.path.exists("/tmp/never-written.db")
    helped = subprocess.run([portico_binary, "backup", "--help"], capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and helped.stdout.startswith("usage: portico backup --to PATH")
    missing = subprocess.run([portico_binary, "backup", "--database", "sqlite:/nonexistent/x.db", "--to", "/tmp/y"],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 1 and "no database at /nonexistent/x.db" in missing.stderr, missing.stderr


def test_a_pg_dump_restore_serves_the_same_tokens(portico_binary):
    url = os.environ.get("PORTICO_TEST_POSTGRES_URL")
    bindir = os.environ.get("PORTICO_TEST_POSTGRES_BINDIR")
    if not url or not bindir:
        pytest.fail("needs scripts/with-postgres (scripts/cluster-tests)")
    base = url.rsplit("/", 1)[0]
    suffix = os.urandom(4).hex()
    source, target = f"backup_source_{suffix}", f"backup_target_{suffix}"

    def sql(statement):
        result = subprocess.run([os.path.join(bindir, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1",
                                 "-d", url, "-c", statement], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr

    folder = tempfile.mkdtemp(prefix="portico-pgdump-")
    sql(f"CREATE DATABASE {source}")
    sql(f"CREATE DATABASE {target}")
    try:
        key_file = os.path.join(folder, "portico.key")
        dump = os.path.join(folder, "portico.dump")
        migrated = subprocess.run([portico_binary, "migrate", "--database", f"{base}/{source}", "--key-file",
                                   key_file], capture_output=True, text=True, timeout=120)
        assert migrated.returncode == 0, migrated.stderr
        port = portico_cluster.free_port()
        node = Node(portico_binary, f"{base}/{source}", key_file, port)
        try:
            app = App(node, node.url)
            before = issue(app)
            dumped = subprocess.run([os.path.join(bindir, "pg_dump"), "-Fc", "-f", dump, "-d", f"{base}/{source}"],
                                    capture_output=True, text=True, timeout=120)
            assert dumped.returncode == 0, dumped.stderr
        finally:
            node.stop()
        restored = subprocess.run([os.path.join(bindir, "pg_restore"), "--no-owner", "-d", f"{base}/{target}",
                                   dump], capture_output=True, text=True, timeout=120)
        assert restored.returncode == 0, restored.stderr
        node = Node(portico_binary, f"{base}/{target}", key_file, port)
        try:
            assert_accepted(app, before, node.url)
        finally:
            node.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        sql(f"DROP DATABASE IF EXISTS {source} WITH (FORCE)")
        sql(f"DROP DATABASE IF EXISTS {target} WITH (FORCE)")
