"""Several `portico serve` nodes on one PostgreSQL database behind Debian's nginx, all on
loopback: what `make cluster` runs and what tests/cluster tests. Standard library only, so that
scripts/cluster runs it with the system python3.

The nodes and the proxy are started from the deployment files as they are: each node from the
ExecStart line of deploy/systemd/portico@.service (the binary's path and `%i`, the port,
replaced; the settings the unit reads from /etc/portico/portico.env given in the environment),
nginx with deploy/nginx/portico.conf included as its site (only the addresses 127.0.0.1:8080
and 8081-8083 replaced by free ports), inside a main configuration that keeps its pid file, logs
and temporary files in a temporary folder (`nginx -p DIR -c DIR/nginx.conf`).

The database comes from scripts/with-postgres (PORTICO_TEST_POSTGRES_URL and friends), which
also stops it whatever happens; ``Cluster.stop()`` stops every node and nginx it started.
"""

import base64
import os
import pathlib
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]
UNIT = ROOT / "deploy" / "systemd" / "portico@.service"
SITE = ROOT / "deploy" / "nginx" / "portico.conf"
# The addresses the site file names: the proxy's, then the nodes'.
SITE_PROXY = "127.0.0.1:8080"
SITE_NODES = ["127.0.0.1:8081", "127.0.0.1:8082", "127.0.0.1:8083"]


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on at this moment."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def unit_command(binary, port):
    """The node command of the systemd unit, for `binary` on `port`."""
    for line in UNIT.read_text().splitlines():
        if line.startswith("ExecStart="):
            words = shlex.split(line[len("ExecStart="):])
            return [binary] + [word.replace("%i", str(port)) for word in words[1:]]
    raise RuntimeError(f"{UNIT} has no ExecStart line")


def http_get(url, timeout=5, headers=None):
    """(status, body) of a GET, for errors too; (None, reason) when nothing answered."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")
    except (urllib.error.URLError, OSError) as error:
        return None, str(error)


class Node:
    """One `portico serve` process of the cluster."""

    def __init__(self, name, port):
        self.name = name
        self.port = port
        self.process = None
        self.banner = []

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"


class Cluster:
    """PostgreSQL (given), 3 nodes and nginx in front of them."""

    def __init__(self, binary, database_url, nodes=3, demo=True, echo_logs=False, workdir=None, migrate=True,
                 extra_arguments=()):
        if nodes != len(SITE_NODES):
            raise ValueError(f"the site file names {len(SITE_NODES)} nodes")
        self.binary = binary
        self.database = database_url
        self.demo = demo
        self.migrate = migrate
        self.extra_arguments = list(extra_arguments)
        self.echo_logs = echo_logs
        self.workdir = workdir or tempfile.mkdtemp(prefix="portico-cluster-")
        # nginx's workers (nobody, when the master runs as root) must reach their temp folders.
        os.chmod(self.workdir, 0o755)
        self.key_file = os.path.join(self.workdir, "portico.key")
        self.outbox = os.path.join(self.workdir, "outbox")
        self.nginx_dir = os.path.join(self.workdir, "nginx")
        self.proxy_port = None
        self.nginx = None
        self.nodes = [Node(f"node{index + 1}", None) for index in range(nodes)]
        self._log_lock = threading.Lock()

    @property
    def url(self):
        """The issuer: nginx's address."""
        return f"http://127.0.0.1:{self.proxy_port}"

    def environment(self):
        """What /etc/portico/portico.env gives every node."""
        environment = dict(os.environ)
        environment.update(PORTICO_ISSUER=self.url, PORTICO_DATABASE=self.database, PORTICO_KEY_FILE=self.key_file,
                           PORTICO_OUTBOX=self.outbox)
        return environment

    def command(self, *arguments, stdin=None, timeout=60):
        """An admin command (`portico ARGUMENTS`) against the cluster's database."""
        return subprocess.run([self.binary, *arguments, "--database", self.database, "--key-file", self.key_file]
                              if arguments[:1] in (("migrate",), ("keys",)) else
                              [self.binary, *arguments, "--database", self.database],
                              input=stdin, capture_output=True, text=True, timeout=timeout)

    # MARK: Starting

    def start(self):
        """Migrates (which makes the key file and the first signing keys), starts the nodes and
        nginx, and waits until the proxy answers. Stops what it started if anything fails.

        Without `migrate`, only the key file is made (as an operator hands one to every node),
        and the nodes start at once on whatever database they are given: on an empty one they
        race to migrate it and to make the first signing keys and the demo's records."""
        try:
            if self.migrate:
                migrated = self.command("migrate")
                if migrated.returncode != 0:
                    raise RuntimeError("portico migrate failed: " + migrated.stderr.strip())
            else:
                descriptor = os.open(self.key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(descriptor, "w") as file:
                    file.write(base64.urlsafe_b64encode(os.urandom(32)).decode().rstrip("=") + "\n")
            self.proxy_port = free_port()
            for node in self.nodes:
                node.port = free_port()
            threads = [threading.Thread(target=self.start_node, args=(node,)) for node in self.nodes]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            for node in self.nodes:
                if not self.is_up(node):
                    raise RuntimeError(f"{node.name} did not start: {self.log_tail(node)}")
            self.start_nginx()
        except BaseException:
            self.stop()
            raise

    def log_tail(self, node, lines=20):
        """The end of `node`'s log, for a failure message (the folder goes when the cluster stops)."""
        try:
            return "\n".join(open(self.log_path(node)).read().splitlines()[-lines:])
        except OSError as error:
            return str(error)

    def log_path(self, node):
        return os.path.join(self.workdir, f"{node.name}.log")

    def start_node(self, node, timeout=60):
        """Starts `node` (again) on its port and waits for its /healthz."""
        command = unit_command(self.binary, node.port)
        if self.demo:
            command.append("--demo")
        command += self.extra_arguments
        log = open(self.log_path(node), "a")
        node.banner = []
        node.process = subprocess.Popen(command, env=self.environment(), cwd=self.workdir, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                        start_new_session=True)
        threading.Thread(target=self._pump, args=(node, node.process.stdout, log, True), daemon=True).start()
        threading.Thread(target=self._pump, args=(node, node.process.stderr, log, False), daemon=True).start()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if node.process.poll() is not None:
                return False
            if self.is_up(node) and (not self.demo or any("Demo sign-in" in line for line in node.banner)):
                return True
            time.sleep(0.1)
        return False

    def _pump(self, node, stream, log, is_banner):
        for line in stream:
            if is_banner:
                node.banner.append(line.rstrip("\n"))
            with self._log_lock:
                log.write(line)
                log.flush()
                if self.echo_logs:
                    try:
                        sys.stdout.write(f"{node.name} | {line}")
                        sys.stdout.flush()
                    except (BrokenPipeError, OSError):
                        # Nobody reads our output any more (`make cluster | tee`, Ctrl-C): keep
                        # reading the node's, or its writes would block and it could not stop.
                        self.echo_logs = False

    def is_up(self, node):
        return node.port is not None and http_get(node.url + "/healthz", timeout=2)[0] == 200

    def start_nginx(self, timeout=30):
        """Writes nginx's main configuration around the site file and starts nginx in the
        foreground of its own process (so that it can be stopped by its pid)."""
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        if not os.access(nginx, os.X_OK):
            raise RuntimeError("nginx is not installed (scripts/bootstrap installs it)")
        os.makedirs(os.path.join(self.nginx_dir, "temp"), exist_ok=True)
        site = SITE.read_text().replace(SITE_PROXY, f"127.0.0.1:{self.proxy_port}")
        for placeholder, node in zip(SITE_NODES, self.nodes):
            site = site.replace(placeholder, f"127.0.0.1:{node.port}")
        with open(os.path.join(self.nginx_dir, "portico.conf"), "w") as file:
            file.write(site)
        temp = os.path.join(self.nginx_dir, "temp")
        user = "user nobody nogroup;\n" if os.geteuid() == 0 else ""
        main = f"""# written by tests/support/portico_cluster.py; the site is deploy/nginx/portico.conf
{user}worker_processes auto;
pid {self.nginx_dir}/nginx.pid;
error_log {self.nginx_dir}/error.log warn;
# Each proxied request holds two connections (the client's and the node's), and up to 256 idle
# ones to the nodes stay open per worker (keepalive in the site): 1,024, Debian's figure, runs
# out under a 512-connection flood when one worker takes most of it ("worker_connections are
# not enough"), and nginx then answers 500 or drops connections. The site's comment says so.
events {{ worker_connections 4096; }}
http {{
    access_log {self.nginx_dir}/access.log combined buffer=64k flush=1s;
    client_body_temp_path {temp}/client_body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    include {self.nginx_dir}/portico.conf;
}}
"""
        with open(os.path.join(self.nginx_dir, "nginx.conf"), "w") as file:
            file.write(main)
        self.nginx = subprocess.Popen(
            [nginx, "-p", self.nginx_dir, "-c", os.path.join(self.nginx_dir, "nginx.conf"),
             "-e", os.path.join(self.nginx_dir, "error.log"), "-g", "daemon off;"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.nginx.poll() is not None:
                raise RuntimeError("nginx did not start: " + self.nginx.stderr.read().decode(errors="replace"))
            if http_get(self.url + "/healthz", timeout=2)[0] == 200:
                return
            time.sleep(0.1)
        raise RuntimeError("nginx did not answer in time")

    # MARK: Failures

    def kill_node(self, node, sig=signal.SIGKILL):
        """Kills `node` (by its pid; SIGKILL unless told otherwise) and waits until it is gone."""
        if node.process and node.process.poll() is None:
            node.process.send_signal(sig)
            node.process.wait(timeout=30)

    def restart_node(self, node):
        if not self.start_node(node):
            raise RuntimeError(f"{node.name} did not start again: {self.log_tail(node)}")

    def banner_file(self):
        """A file with the first node's banner (the demo's URL and sign-in lines), for the
        Python suites' `portico_server.Server` in cluster mode."""
        path = os.path.join(self.workdir, "banner.txt")
        with open(path, "w") as file:
            file.write("\n".join(self.nodes[0].banner) + "\n")
        return path

    # MARK: Stopping

    def stop(self):
        """Stops nginx and every node (SIGTERM, then SIGKILL after 20 s), and removes the folder."""
        processes = [self.nginx] + [node.process for node in self.nodes]
        for process in processes:
            if process and process.poll() is None:
                process.send_signal(signal.SIGQUIT if process is self.nginx else signal.SIGTERM)
        for process in processes:
            if process:
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=10)
        shutil.rmtree(self.workdir, ignore_errors=True)


class PostgresControl:
    """Stops and starts the throwaway server of scripts/with-postgres (tests of the database
    being away)."""

    def __init__(self):
        self.directory = os.environ["PORTICO_TEST_POSTGRES_DIR"]
        self.bindir = os.environ["PORTICO_TEST_POSTGRES_BINDIR"]
        self.options = os.environ["PORTICO_TEST_POSTGRES_OPTIONS"]
        self.prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def _pg_ctl(self, *arguments):
        return subprocess.run(self.prefix + [os.path.join(self.bindir, "pg_ctl"), "-D",
                                             os.path.join(self.directory, "data"), *arguments],
                              capture_output=True, text=True, timeout=60)

    def stop(self):
        result = self._pg_ctl("-m", "fast", "-w", "-t", "30", "stop")
        if result.returncode != 0:
            raise RuntimeError("pg_ctl stop failed: " + result.stderr)

    def start(self):
        result = self._pg_ctl("-l", os.path.join(self.directory, "server.log"), "-w", "-t", "30",
                              "-o", self.options, "start")
        if result.returncode != 0:
            raise RuntimeError("pg_ctl start failed: " + result.stderr)


def say(line):
    """Prints `line`; once the reader of our output is gone (`make cluster | tee` and Ctrl-C ends
    tee too), further output goes nowhere instead of raising, so stopping still happens."""
    try:
        print(line, flush=True)
    except (BrokenPipeError, OSError):
        stopping_output = os.open(os.devnull, os.O_WRONLY)
        os.dup2(stopping_output, sys.stdout.fileno())
        os.close(stopping_output)


def run(binary):
    """`make cluster`: starts a PostgreSQL primary with a synchronous standby
    (portico_replication.py), the nodes on both (one multi-host URL), and nginx; prints where to
    go and how to try a failover; waits for Ctrl-C (or SIGTERM, SIGHUP, or its output's reader
    going away)."""
    import portico_replication

    stopping = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: stopping.set())
    database = portico_replication.ReplicatedPostgres()
    cluster = None
    try:
        database.start()
        cluster = Cluster(binary, database.url, echo_logs=True)
        cluster.start()
        state = os.path.join(database.directory, "cluster.json")
        portico_replication.save_state(database, state, [node.url for node in cluster.nodes], cluster.url)
        url = database.url
        say(f"\ncluster: PostgreSQL primary {database.primary} on 127.0.0.1:{database.ports[database.primary]}, "
            f"synchronous standby {database.standby} on 127.0.0.1:{database.ports[database.standby]} "
            f"(streaming replication, synchronous_commit=on)")
        say(f"cluster: the nodes' URL names both: {re.sub(r':[^:@/]*@', ':***@', url)}")
        # The admin commands need the password and the nodes' key file; this throwaway server's
        # password is no secret worth keeping from the person who started it.
        say(f"cluster: admin commands (another terminal): export PORTICO_DATABASE='{url}' "
            f"PORTICO_KEY_FILE='{cluster.key_file}'")
        for node in cluster.nodes:
            say(f"cluster: {node.name} (pid {node.process.pid}) on {node.url}, logs prefixed '{node.name} |'")
        say(f"cluster: nginx (pid {cluster.nginx.pid}) on {cluster.url}, site deploy/nginx/portico.conf")
        for line in cluster.nodes[0].banner:
            if line.startswith("Demo"):
                say("cluster: " + line)
        say("cluster: every request goes through nginx to any node; watch which node logs each one.")
        say(f"cluster: lose the primary and watch the standby take over: scripts/failover {state}")
        say("cluster: Ctrl-C stops everything.\n")
        reported = set()
        while not stopping.wait(1):
            for node in cluster.nodes:
                if node.name not in reported and node.process.poll() is not None:
                    reported.add(node.name)
                    say(f"cluster: {node.name} exited with status {node.process.returncode}")
            if len(reported) == len(cluster.nodes):
                break
    finally:
        say("\ncluster: stopping nginx, the nodes and PostgreSQL")
        if cluster is not None:
            cluster.stop()
        database.stop()


def serve(binary, database, info_file):
    """bench/idp/cluster.sh: the cluster without the demo and without request logs; writes
    the proxy's URL, the key file and the nodes' pids as shell assignments to `info_file`
    and runs until SIGTERM."""
    stopping = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: stopping.set())
    cluster = Cluster(binary, database, demo=False, extra_arguments=["--quiet"])
    try:
        cluster.start()
        with open(info_file + ".tmp", "w") as file:
            file.write(f"CLUSTER_URL={cluster.url}\nCLUSTER_KEY_FILE={cluster.key_file}\n"
                       f"CLUSTER_NODE_PIDS='{' '.join(str(node.process.pid) for node in cluster.nodes)}'\n"
                       f"CLUSTER_NGINX_PID={cluster.nginx.pid}\n")
        os.replace(info_file + ".tmp", info_file)
        while not stopping.wait(1):
            pass
    finally:
        cluster.stop()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "run":
        run(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "serve":
        serve(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit("usage: portico_cluster.py run PORTICO_BINARY | serve PORTICO_BINARY DATABASE INFO_FILE")
