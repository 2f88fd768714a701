"""A `kingpost serve` on a free port, for the scripts that test a live
server (mail, push, crashes): started, called over HTTP, killed.

    from live_server import Server, free_port, scratch_database
"""

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BINARY = os.environ.get("KINGPOST", os.path.join(ROOT, "target", "debug", "kingpost"))
PASSWORD = "live server password"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scratch_database(kind, work, name):
    """A database of its own: a SQLite file in `work`, or a fresh schema of
    the Postgres database at URL `kind`. The URL, and the schema to drop."""
    if kind == "sqlite":
        return os.path.join(work, f"{name}.sqlite3"), None
    schema = f"{name}_{os.getpid()}_{int(time.time())}"
    subprocess.run(["psql", kind, "-q", "-c", f"CREATE SCHEMA {schema}"], check=True)
    separator = "&" if "?" in kind else "?"
    return f"{kind}{separator}options=-csearch_path%3D{schema}", schema


def drop_schema(kind, schema):
    if schema:
        subprocess.run(["psql", kind, "-q", "-c", f"SET client_min_messages = warning; DROP SCHEMA {schema} CASCADE"], check=False)


class Server:
    """`kingpost serve` on `url`, with `args` and `env` added."""

    def __init__(self, url, args=(), env=None, binary=DEFAULT_BINARY):
        self.binary, self.url, self.args, self.env = binary, url, list(args), dict(env or {})
        self.port, self.process = free_port(), None

    def start(self, log=None):
        """Starts the server (its stderr to the file `log`, if given) and
        waits until it answers."""
        self.process = subprocess.Popen(
            [self.binary, "serve", "--bind", f"127.0.0.1:{self.port}", "--database-url", self.url, *self.args],
            env={**os.environ, "KINGPOST_JWT_SECRET": "live-server-secret", "RUST_LOG": "warn", **self.env},
            stdout=subprocess.DEVNULL,
            stderr=log or subprocess.DEVNULL,
        )
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                self.call("GET", "/variants")
                return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("the server did not start")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.kill()

    def call(self, method, path, token=None, body=None, form=None):
        """`/api/v1{path}`: the status, and the body as JSON (or as text
        when it is not JSON)."""
        data = form.encode() if form is not None else None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/api/v1{path}", data=data, method=method)
        request.add_header("Content-Type", "application/json" if form is None else "application/x-www-form-urlencoded")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                raw = response.read()
                if response.headers.get_content_type() != "application/json":
                    return response.status, raw.decode()
                return response.status, json.loads(raw or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def sign_in(self, username, password=PASSWORD):
        status, session = self.call("POST", "/auth/token", body={"grant_type": "password", "username": username, "password": password})
        assert status == 200, session
        return session["access_token"]

    def sign_up(self, username, password=PASSWORD):
        status, problem = self.call("POST", "/accounts", body={"username": username, "password": password})
        assert status == 201, problem
        return self.sign_in(username, password)
