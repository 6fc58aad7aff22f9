"""A PostgreSQL primary with a synchronous standby on loopback, made with PostgreSQL's own
streaming replication: what `make cluster` runs under the nodes, what scripts/failover promotes,
and what tests/cluster/test_failover.py kills. Standard library only (scripts/cluster runs it with
the system python3).

Two servers, `pg_a` and `pg_b`, each in a folder of its own under one temporary directory:

    initdb pg_a            wal_level=replica, wal_log_hints=on (so pg_rewind can bring a dead
                           primary back), synchronous_commit=on
    pg_basebackup -R       pg_b, a streaming standby of pg_a that calls itself pg_b
                           (application_name in primary_conninfo)
    synchronous_standby_names on the primary names the other server: a commit is answered only
                           once the standby has it on disk, so losing the primary loses no
                           answered write

Nodes connect with one libpq multi-host URL naming both
(`postgres://portico:…@127.0.0.1:A,127.0.0.1:B/portico_test?target_session_attrs=read-write`):
libpq skips the server that is down or read-only, so after a promotion every new connection
finds the new primary by itself.

Failover, as an operator (or Patroni) does it: `promote()` runs `pg_ctl promote` on the standby
and stops the new primary waiting for a synchronous standby it does not have yet (otherwise
every commit would wait forever); `rejoin()` rewinds the old primary with `pg_rewind`, starts it
as the new primary's standby, and makes the new primary synchronous again.

The servers run with fsync off (test data; a killed process loses nothing the kernel has) and as
the `postgres` user when root (initdb refuses root).
"""

import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

NAMES = ("pg_a", "pg_b")
DATABASE = "portico_test"
USER = "portico"


def bindir():
    """PostgreSQL's programs' folder, found as scripts/with-postgres finds it."""
    try:
        found = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True).stdout.strip()
        if found and os.access(os.path.join(found, "initdb"), os.X_OK):
            return found
    except OSError:
        pass
    folders = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda path: int(path.split("/")[-2]))
    if not folders:
        raise RuntimeError("no PostgreSQL server found (install it with scripts/bootstrap)")
    return folders[-1]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ReplicatedPostgres:
    """pg_a (primary at first) and pg_b (its synchronous standby)."""

    def __init__(self, workdir=None):
        self.bindir = bindir()
        self.directory = workdir or tempfile.mkdtemp(prefix="portico-replicated-")
        os.chmod(self.directory, 0o755)
        self.prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        self.password = os.urandom(16).hex()
        self.ports = {name: None for name in NAMES}
        self.primary = NAMES[0]

    # MARK: Names

    @property
    def standby(self):
        return NAMES[1] if self.primary == NAMES[0] else NAMES[0]

    @property
    def url(self):
        """The nodes' `--database`: both servers, only a read-write one will do."""
        hosts = ",".join(f"127.0.0.1:{self.ports[name]}" for name in NAMES)
        return f"postgres://{USER}:{self.password}@{hosts}/{DATABASE}?target_session_attrs=read-write"

    def data(self, name):
        return os.path.join(self.directory, name)

    def log(self, name):
        return os.path.join(self.directory, name + ".log")

    # MARK: Running programs

    def _run(self, program, *arguments, check=True, timeout=120):
        result = subprocess.run(self.prefix + [os.path.join(self.bindir, program), *arguments],
                                capture_output=True, text=True, timeout=timeout, cwd=self.directory)
        if check and result.returncode != 0:
            raise RuntimeError(f"{program} {' '.join(arguments)} failed: {result.stderr.strip() or result.stdout}")
        return result

    def psql(self, name, sql, database=DATABASE):
        """One statement on `name` over its Unix socket; its rows, one line each, `|` between columns."""
        result = subprocess.run([os.path.join(self.bindir, "psql"), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1",
                                 "-h", self.directory, "-p", str(self.ports[name]), "-U", USER, "-d", database,
                                 "-c", sql], capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise RuntimeError(f"psql on {name}: {result.stderr.strip()}")
        return result.stdout.strip()

    def conninfo(self, name, application_name):
        """libpq's connection string to `name` as a standby calling itself `application_name` uses it."""
        return (f"host={self.directory} port={self.ports[name]} user={USER} "
                f"application_name={application_name}")

    # MARK: Starting

    def start(self):
        """initdb pg_a, start it, clone pg_b with pg_basebackup -R, start it, and wait until pg_b
        is pg_a's synchronous standby. Stops what it started if anything fails."""
        try:
            password_file = os.path.join(self.directory, "password")
            with open(password_file, "w") as file:
                file.write(self.password + "\n")
            if self.prefix:
                shutil.chown(self.directory, "postgres")
                shutil.chown(password_file, "postgres")
            a, b = NAMES
            self._run("initdb", "-D", self.data(a), "-U", USER, f"--pwfile={password_file}", "--auth-local=trust",
                      "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
            for name in NAMES:
                self.ports[name] = free_port()
            self._append(self.data(a), "postgresql.conf", [
                "listen_addresses = '127.0.0.1'", f"unix_socket_directories = '{self.directory}'",
                "wal_level = replica", "wal_log_hints = on", "max_wal_senders = 10", "wal_keep_size = '512MB'",
                "hot_standby = on", "synchronous_commit = on", "fsync = off", "max_connections = 200",
                f"port = {self.ports[a]}"])
            self._pg_ctl(a, "start")
            self.psql(a, f"CREATE DATABASE {DATABASE}", database="postgres")
            self._run("pg_basebackup", "-h", self.directory, "-p", str(self.ports[a]), "-U", USER, "-D", self.data(b),
                      "-R", "-X", "stream", "--checkpoint=fast", "--no-sync")
            # pg_b's own port and the name it gives its primary.
            self._append(self.data(b), "postgresql.conf", [f"port = {self.ports[b]}"])
            self._append(self.data(b), "postgresql.auto.conf", [f"primary_conninfo = '{self.conninfo(a, b)}'"])
            self._pg_ctl(b, "start")
            # Only now: before pg_b streams, a primary waiting for it could commit nothing.
            self.psql(a, f"ALTER SYSTEM SET synchronous_standby_names = '{b}'")
            self.psql(a, "SELECT pg_reload_conf()")
            self.wait_for_synchronous_standby()
        except BaseException:
            self.stop()
            raise

    def _append(self, data, file, lines):
        with open(os.path.join(data, file), "a") as handle:
            handle.write("\n# tests/support/portico_replication.py\n" + "\n".join(lines) + "\n")

    def _pg_ctl(self, name, action, *options, check=True):
        try:
            return self._run("pg_ctl", "-D", self.data(name), "-l", self.log(name), "-w", "-t", "60", *options,
                             action, check=check)
        except RuntimeError as error:
            try:
                tail = "".join(open(self.log(name)).readlines()[-5:])
            except OSError:
                tail = ""
            raise RuntimeError(f"{error}; {name}'s log ends: {tail}") from None

    def wait_for_synchronous_standby(self, timeout=60):
        """Waits until the primary's pg_stat_replication shows the standby streaming as `sync`."""
        deadline = time.monotonic() + timeout
        state = ""
        while time.monotonic() < deadline:
            try:
                state = self.psql(self.primary, "SELECT application_name || ' ' || state || ' ' || sync_state "
                                                "FROM pg_stat_replication")
            except RuntimeError as error:
                state = str(error)
            if state == f"{self.standby} streaming sync":
                return
            time.sleep(0.1)
        raise RuntimeError(f"{self.standby} did not become {self.primary}'s synchronous standby: {state!r}")

    # MARK: Failure and failover

    def postmaster_pid(self, name):
        try:
            with open(os.path.join(self.data(name), "postmaster.pid")) as file:
                return int(file.readline())
        except (OSError, ValueError):
            return None

    def kill(self, name):
        """kill -9 of the server `name`: the postmaster and every process it started, as when its
        machine is lost (a postmaster killed alone leaves its backends serving for a while)."""
        postmaster = self.postmaster_pid(name)
        if postmaster is None:
            raise RuntimeError(f"{name} is not running")
        victims = [postmaster] + children(postmaster)
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in victims) and time.monotonic() < deadline:
            time.sleep(0.01)

    def promote(self):
        """Promotes the standby (pg_ctl promote) and tells it not to wait for a synchronous
        standby until the old primary is back (rejoin()): with none attached, every commit
        would wait forever. Returns the new primary's name."""
        new = self.standby
        self._run("pg_ctl", "-D", self.data(new), "-w", "-t", "60", "promote")
        self.psql(new, "ALTER SYSTEM SET synchronous_standby_names = ''")
        self.psql(new, "SELECT pg_reload_conf()")
        self.primary = new
        return new

    def rejoin(self):
        """Brings the old primary back as the new one's synchronous standby: pg_rewind (which
        first runs crash recovery on the killed server's files) discards whatever it wrote
        that the new primary never got, then it starts as a standby, and the new primary waits
        for it again."""
        old = self.standby
        pid = self.postmaster_pid(old)
        if pid is not None and alive(pid):
            self._pg_ctl(old, "stop", "-m", "immediate")
        elif pid is not None:
            # Killed: its lock file stays, and while its pid is an unreaped zombie (or was
            # reused) postgres would take the server for running.
            for lock in (os.path.join(self.data(old), "postmaster.pid"),
                         os.path.join(self.directory, f".s.PGSQL.{self.ports[old]}.lock"),
                         os.path.join(self.directory, f".s.PGSQL.{self.ports[old]}")):
                if os.path.exists(lock):
                    os.unlink(lock)
        # A promoted server writes its new timeline into pg_control only at its next
        # checkpoint; before that pg_rewind sees one timeline and says no rewind is needed.
        self.psql(self.primary, "CHECKPOINT")
        self._run("pg_rewind", f"--target-pgdata={self.data(old)}",
                  f"--source-server={self.conninfo(self.primary, old)} dbname=postgres", "--no-sync", timeout=300)
        # pg_rewind copied the new primary's configuration files too: its port is not ours.
        self._append(self.data(old), "postgresql.conf", [f"port = {self.ports[old]}"])
        open(os.path.join(self.data(old), "standby.signal"), "w").close()
        if self.prefix:
            shutil.chown(os.path.join(self.data(old), "standby.signal"), "postgres")
        self._append(self.data(old), "postgresql.auto.conf",
                     [f"primary_conninfo = '{self.conninfo(self.primary, old)}'"])
        self._pg_ctl(old, "start")
        self.psql(self.primary, f"ALTER SYSTEM SET synchronous_standby_names = '{old}'")
        self.psql(self.primary, "SELECT pg_reload_conf()")
        self.wait_for_synchronous_standby()

    # MARK: Stopping

    def stop(self):
        """Stops both servers (fast, then immediate) and removes the directory."""
        for name in NAMES:
            if os.path.exists(os.path.join(self.data(name), "postmaster.pid")):
                if self._pg_ctl(name, "stop", "-m", "fast", check=False).returncode != 0:
                    self._run("pg_ctl", "-D", self.data(name), "-m", "immediate", "-w", "-t", "20", "stop",
                              check=False)
        shutil.rmtree(self.directory, ignore_errors=True)


def children(pid):
    """The processes whose parent is `pid` (from /proc)."""
    found = []
    for status in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(status) as file:
                fields = file.read().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                found.append(int(status.split("/")[2]))
        except (OSError, IndexError, ValueError):
            continue
    return found


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie is dead for our purpose.
    try:
        with open(f"/proc/{pid}/stat") as file:
            return file.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# MARK: State for scripts/failover


def save_state(database, path, nodes=(), proxy=None):
    """Writes what scripts/failover needs to act on a running `make cluster`."""
    state = {"directory": database.directory, "ports": database.ports, "primary": database.primary,
             "password": database.password, "nodes": list(nodes), "proxy": proxy}
    with open(path + ".tmp", "w") as file:
        json.dump(state, file)
    os.chmod(path + ".tmp", 0o600)
    os.replace(path + ".tmp", path)


def load_state(path):
    """The ReplicatedPostgres a state file describes (not started again: it runs) and the nodes'
    and proxy's URLs."""
    with open(path) as file:
        state = json.load(file)
    database = ReplicatedPostgres.__new__(ReplicatedPostgres)
    database.bindir = bindir()
    database.directory = state["directory"]
    database.prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    database.password = state["password"]
    database.ports = state["ports"]
    database.primary = state["primary"]
    return database, state["nodes"], state["proxy"]


def health(url):
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=2) as response:
            return json.loads(response.read()).get("status", "?")
    except (OSError, ValueError) as error:
        return f"no answer ({error})"


def failover(path):
    """scripts/failover: loses the primary of a running `make cluster` and shows, step by step,
    what the standby, the nodes and the operator do."""
    database, nodes, proxy = load_state(path)
    old, new = database.primary, database.standby

    def show_nodes():
        for url in nodes:
            print(f"failover:     node {url}/healthz says {health(url)}", flush=True)

    print(f"failover: {old} (port {database.ports[old]}) is the primary, {new} (port {database.ports[new]}) its "
          f"synchronous standby: every commit is on both disks before a node answers.")
    print(f"failover: 1. kill -9 of {old}, the postmaster and all its processes, as if its machine were lost.")
    database.kill(old)
    lost_at = time.monotonic()
    time.sleep(1.5)
    print("failover:    the nodes notice at once: requests that need the database get 503 with Retry-After, "
          "and /healthz says degraded (no primary answers).")
    show_nodes()
    print(f"failover: 2. promote {new}: pg_ctl promote, then synchronous_standby_names='' on it, or every "
          "commit would wait for a standby that is gone. (Patroni or a managed PostgreSQL does this step.)")
    database.promote()
    promoted_at = time.monotonic()
    while nodes and any(health(url) != "ok" for url in nodes) and time.monotonic() - promoted_at < 30:
        time.sleep(0.1)
    print(f"failover:    no node restarted: their libpq URL names both servers with "
          f"target_session_attrs=read-write, so new connections skip {old} and find {new}. "
          f"Serving again {time.monotonic() - promoted_at:.1f} s after the promotion "
          f"({time.monotonic() - lost_at:.1f} s after the loss).")
    show_nodes()
    print(f"failover: 3. bring {old} back as {new}'s standby: pg_rewind discards what {old} wrote that {new} "
          f"never got (nothing answered: the standby was synchronous), standby.signal, start, and {new} "
          "waits for it again (synchronous_standby_names).")
    database.rejoin()
    print(f"failover:    {new} is the primary now, {old} its synchronous standby. Run scripts/failover again to "
          "go back.")
    save_state(database, path, nodes, proxy)


def serve(info_file):
    """bench/idp/cluster.sh: the primary and its synchronous standby until SIGTERM; writes the
    nodes' URL, the standby's postmaster pid and PostgreSQL's programs' folder as shell
    assignments to `info_file`."""
    import threading

    stopping = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: stopping.set())
    database = ReplicatedPostgres()
    try:
        database.start()
        with open(info_file + ".tmp", "w") as file:
            file.write(f"REPLICATED_URL='{database.url}'\n"
                       f"REPLICATED_STANDBY_PID={database.postmaster_pid(database.standby)}\n"
                       f"REPLICATED_PRIMARY_PID={database.postmaster_pid(database.primary)}\n"
                       f"REPLICATED_BINDIR='{database.bindir}'\n")
        os.replace(info_file + ".tmp", info_file)
        while not stopping.wait(1):
            pass
    finally:
        database.stop()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "failover":
        failover(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "serve":
        serve(sys.argv[2])
    else:
        sys.exit("usage: portico_replication.py failover STATE_FILE | serve INFO_FILE")
