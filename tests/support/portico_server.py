"""One way for the Python test suites (browser, interop) to run the real `portico` binary:
find it, start `portico serve --port 0` on a fresh SQLite file, read its banner, stop it.

With PORTICO_CLUSTER_URL set (tests/cluster runs the suites so), a Server attaches to that
running cluster instead: nginx in front of several nodes on PostgreSQL, whose database
(PORTICO_CLUSTER_DATABASE), shared outbox (PORTICO_CLUSTER_OUTBOX) and first node's banner
(the file PORTICO_CLUSTER_BANNER) it is told; it starts and stops nothing."""

import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


def binary():
    """The `portico` executable: $PORTICO_BINARY, else the debug build; None if missing."""
    path = os.environ.get("PORTICO_BINARY") or str(ROOT / ".build" / "debug" / "portico")
    return path if os.access(path, os.X_OK) else None


class Server:
    """A running `portico serve` with its own temporary directory and database."""

    def __init__(self, executable, prefix, *arguments, banner_until=r"listening on (http://\S+)"):
        self.binary = executable
        if os.environ.get("PORTICO_CLUSTER_URL"):
            self.workdir = None
            self.process = None
            self.url = os.environ["PORTICO_CLUSTER_URL"]
            self.database = os.environ["PORTICO_CLUSTER_DATABASE"]
            self.outbox = os.environ["PORTICO_CLUSTER_OUTBOX"]
            self.banner = pathlib.Path(os.environ["PORTICO_CLUSTER_BANNER"]).read_text().splitlines()
            return
        self.workdir = tempfile.mkdtemp(prefix=prefix)
        self.database = f"sqlite:{self.workdir}/portico.db"
        self.outbox = os.path.join(self.workdir, "outbox")   # where password-reset mail is written
        self.banner = []
        self.process = subprocess.Popen(
            [executable, "serve", "--port", "0", "--quiet", "--database", self.database, "--outbox", self.outbox,
             *arguments],
            cwd=self.workdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        done = threading.Event()

        def read_banner():
            for line in self.process.stdout:
                self.banner.append(line.rstrip("\n"))
                if re.search(banner_until, line):
                    break
            done.set()

        threading.Thread(target=read_banner, daemon=True).start()
        if not done.wait(timeout=30):
            self.process.kill()
            raise RuntimeError("portico serve did not print its banner: " + self.process.stderr.read())
        self.url = self.find(r"listening on (http://\S+)")
        if self.url is None:
            self.process.kill()
            raise RuntimeError("portico serve did not print its URL: " + self.process.stderr.read())

    def find(self, pattern):
        """The first group of the first banner line matching `pattern`, or None."""
        for line in self.banner:
            if match := re.search(pattern, line):
                return match.group(1) if match.groups() else match.group(0)
        return None

    def mail_to(self, address, containing=None, timeout=10):
        """The newest outbox message to `address` (RFC 5322 text) that contains `containing`
        (any, when None), waiting up to `timeout` s.

        Mail is written after the page answers (the outbox is delivered in the background), so a
        test that expects a second mail to an address names what it says: the newest mail there
        may still be the first one."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            folder = pathlib.Path(self.outbox)
            # Newest by write time: names carry the second only, and two mails of one second
            # (a sign-up's link, then the notice to the same address) sort by their random tail.
            paths = list(folder.glob("*.eml")) if folder.is_dir() else []
            for path in sorted(paths, key=lambda p: (p.stat().st_mtime_ns, p.name), reverse=True):
                text = path.read_bytes().decode("utf-8")
                if f"\r\nTo: {address}\r\n" in text and (containing is None or containing in text):
                    return text
            time.sleep(0.1)
        wanted = f" containing {containing!r}" if containing is not None else ""
        raise AssertionError(f"no mail to {address}{wanted} in {self.outbox}")

    def command(self, *arguments, stdin=None):
        """Runs `portico ARGUMENTS --database DB` (an admin command) to completion."""
        return subprocess.run([self.binary, *arguments, "--database", self.database],
                              input=stdin, capture_output=True, text=True, timeout=60)

    def stop(self):
        """SIGTERM, then checks the graceful exit status 0, and removes the directory."""
        if self.process is None:
            return   # attached to a cluster, which its own test stops
        self.process.terminate()
        status = self.process.wait(timeout=30)
        shutil.rmtree(self.workdir, ignore_errors=True)
        assert status == 0, f"portico serve exited with {status}"
