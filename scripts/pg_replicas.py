"""Two real Postgres servers for the replica tests and benchmarks: a
primary made with `initdb` and a streaming standby of it made with
`pg_basebackup -R`, in a scratch directory, on two free ports, run as the
`postgres` user (so run as root). Debian's server binaries are used.

    from pg_replicas import make_clusters, psql
    python3 scripts/pg_replicas.py up DIR     # prints the primary's and the standby's URLs
    python3 scripts/pg_replicas.py up DIR --apart   # the primary kept on CPU 0, the standby on CPU 1
    python3 scripts/pg_replicas.py down DIR
"""

import glob
import os
import shutil
import subprocess
import sys
import time

from live_server import free_port

PG_BIN = sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1] if glob.glob("/usr/lib/postgresql/*/bin") else None


def as_postgres(*command, check=True):
    return subprocess.run(["runuser", "-u", "postgres", "--", *command], check=check, capture_output=True, text=True)


def psql(port, sql, database="kingpost"):
    out = subprocess.run(
        ["psql", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-d", database, "-Atqc", sql],
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


class Cluster:
    """A Postgres server in `directory`, on `port`, run as `postgres`."""

    def __init__(self, directory, port):
        self.directory, self.port = directory, port

    def start(self):
        as_postgres(f"{PG_BIN}/pg_ctl", "-D", self.directory, "-o", f"-p {self.port} -k /tmp",
                    "-l", f"{self.directory}.log", "-w", "start")

    def stop(self, mode="fast"):
        as_postgres(f"{PG_BIN}/pg_ctl", "-D", self.directory, "-m", mode, "-w", "stop", check=False)

    def pin(self, cpu):
        """Keeps the server's processes, and the backends it forks from
        now on, on CPU `cpu`: two machines' servers on one machine's CPUs."""
        with open(os.path.join(self.directory, "postmaster.pid")) as pid_file:
            postmaster = pid_file.readline().strip()
        children = subprocess.run(["pgrep", "-P", postmaster], capture_output=True, text=True).stdout.split()
        for pid in [postmaster, *children]:
            subprocess.run(["taskset", "-a", "-p", "-c", str(cpu), pid], check=True, capture_output=True)

    def promote(self):
        as_postgres(f"{PG_BIN}/pg_ctl", "-D", self.directory, "-w", "promote")


def make_clusters(work):
    """A primary with a database `kingpost` (pg_stat_statements on) and a
    standby replaying it, both started."""
    shutil.chown(work, "postgres")
    primary = Cluster(os.path.join(work, "primary"), free_port())
    standby = Cluster(os.path.join(work, "standby"), free_port())
    as_postgres(f"{PG_BIN}/initdb", "-D", primary.directory, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8")
    with open(os.path.join(primary.directory, "postgresql.conf"), "a") as conf:
        conf.write("listen_addresses = '127.0.0.1'\nwal_level = replica\nmax_wal_senders = 5\n"
                   "hot_standby = on\nshared_preload_libraries = 'pg_stat_statements'\n"
                   "pg_stat_statements.track = all\n")
    with open(os.path.join(primary.directory, "pg_hba.conf"), "a") as hba:
        hba.write("host replication all 127.0.0.1/32 trust\n")
    primary.start()
    psql(primary.port, "CREATE DATABASE kingpost", database="postgres")
    psql(primary.port, "CREATE EXTENSION pg_stat_statements")
    as_postgres(f"{PG_BIN}/pg_basebackup", "-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres",
                "-D", standby.directory, "-R", "-X", "stream", "-c", "fast")
    standby.start()
    deadline = time.time() + 30
    while psql(standby.port, "SELECT pg_is_in_recovery()") != "t" and time.time() < deadline:
        time.sleep(0.2)
    return primary, standby



def url(cluster):
    return f"postgres://postgres@127.0.0.1:{cluster.port}/kingpost"


def main():
    apart = sys.argv[3:] == ["--apart"]
    if len(sys.argv) != 3 + apart or sys.argv[1] not in ("up", "down"):
        raise SystemExit(__doc__)
    work = sys.argv[2]
    if sys.argv[1] == "up":
        os.makedirs(work, exist_ok=True)
        primary, standby = make_clusters(work)
        if apart:
            primary.pin(0)
            standby.pin(1)
        with open(os.path.join(work, "ports"), "w") as ports:
            ports.write(f"{primary.port} {standby.port}\n")
        print(url(primary))
        print(url(standby))
    else:
        with open(os.path.join(work, "ports")) as ports:
            primary_port, standby_port = map(int, ports.read().split())
        Cluster(os.path.join(work, "standby"), standby_port).stop("immediate")
        Cluster(os.path.join(work, "primary"), primary_port).stop("immediate")
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
