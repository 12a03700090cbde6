"""A real high-availability PostgreSQL for the failover tests: 1 etcd and 2 PostgreSQL 15 nodes
under Patroni, all on loopback ports.

What it needs, and where it comes from (`missing()` names whatever is absent):
- etcd: Debian's `etcd-server` (.ci/run installs it);
- PostgreSQL 15 server binaries: Debian's `postgresql-15` (/usr/lib/postgresql/15/bin);
- Patroni: from PyPI, in `.venv/patroni`, a virtualenv of Debian's /usr/bin/python3 (`ensure_patroni`).
  Patroni must run PostgreSQL as an unprivileged user (`postgres`), and that user cannot execute
  the project's .venv interpreter (it links into /root/.pyenv): Patroni's start of PostgreSQL
  hung on exactly that. Debian's python3 is readable by everyone.

Settings tuned for a test: `ttl` 20 (Patroni's minimum), `loop_wait` 1, `retry_timeout` 3, and
`primary_start_timeout` 0, so that a killed primary is failed over at once instead of being
restarted in place; `synchronous_mode` on (`set_synchronous`); `use_pg_rewind`, so that the old
primary rejoins as a standby by itself.

Each node's `connect_address` (what the other node replicates from) is a `LagProxy` in front
of its port: `set_lag(2.0)` holds the WAL a standby receives back 2 s, for the asynchronous
case. Tasklife connects to the nodes' own ports.
"""

from __future__ import annotations

import asyncio
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import psycopg

from tests.faults.cluster import free_port, spawn

ROOT = Path(__file__).resolve().parents[2]
PATRONI_VENV = ROOT / ".venv" / "patroni"
PG_BIN = Path("/usr/lib/postgresql/15/bin")
SYSTEM_PYTHON = Path("/usr/bin/python3")
PG_USER = "postgres"
SCOPE = "tasklife-test"
DATABASE = "tasklife"


def etcd_binary() -> str | None:
    return shutil.which("etcd") or (("/usr/bin/etcd") if Path("/usr/bin/etcd").exists() else None)


def missing() -> list[str]:
    """What this machine lacks for a Patroni cluster (empty: it can run one)."""
    absent = []
    if etcd_binary() is None:
        absent.append("etcd (apt-get install etcd-server)")
    if not (PG_BIN / "postgres").exists():
        absent.append(f"PostgreSQL 15 in {PG_BIN} (apt-get install postgresql-15)")
    if not SYSTEM_PYTHON.exists():
        absent.append(f"{SYSTEM_PYTHON} with venv (apt-get install python3-venv)")
    try:
        pwd.getpwnam(PG_USER)
    except KeyError:
        absent.append(f"the {PG_USER} user (apt-get install postgresql-15 creates it)")
    if os.geteuid() != 0:
        absent.append("root (to run PostgreSQL and Patroni as the postgres user)")
    return absent


def ensure_patroni() -> Path:
    """.venv/patroni/bin/patroni, installed from PyPI the first time."""
    patroni = PATRONI_VENV / "bin" / "patroni"
    if not patroni.exists():
        subprocess.run([str(SYSTEM_PYTHON), "-m", "venv", str(PATRONI_VENV)], check=True)
        subprocess.run(
            [str(PATRONI_VENV / "bin" / "pip"), "install", "--quiet", "patroni[etcd3,psycopg3]>=4,<5"], check=True
        )
    return patroni


class LagProxy:
    """A TCP proxy that delivers what the server (upstream) sends `lag` seconds late, in order;
    what the client sends goes through at once. Runs its own event loop in a thread."""

    def __init__(self, upstream_port: int):
        self.upstream_port = upstream_port
        self.port = free_port()
        self.lag = 0.0
        self._writers: set[asyncio.StreamWriter] = set()  # every open connection's two ends
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"lag-proxy-{self.port}", daemon=True)
        self._thread.start()
        self._ready.wait(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", self.port))
        self._ready.set()
        self._loop.run_forever()

    async def _serve(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        except OSError:
            client_writer.close()
            return
        self._writers |= {client_writer, server_writer}
        await asyncio.gather(
            self._pipe(client_reader, server_writer),
            self._delayed_pipe(server_reader, client_writer),
            return_exceptions=True,
        )

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()

    async def _delayed_pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Delivers each chunk `lag` seconds after it arrived, in order. When the server goes
        away (a killed primary), what is still held back is dropped: WAL the primary had not
        sent yet, as with a standby truly behind."""
        held: asyncio.Queue[tuple[float, bytes] | None] = asyncio.Queue()

        async def receive() -> None:
            try:
                while data := await reader.read(65536):
                    held.put_nowait((time.monotonic() + self.lag, data))
            finally:
                held.put_nowait(None)

        receiving = asyncio.ensure_future(receive())
        try:
            while (item := await held.get()) is not None:
                due, data = item
                await asyncio.sleep(max(0.0, due - time.monotonic()))
                if receiving.done() and self.lag > 0:
                    break
                writer.write(data)
                await writer.drain()
        finally:
            receiving.cancel()
            writer.close()

    def close(self) -> None:
        async def shut() -> None:
            self._server.close()
            for writer in self._writers:
                writer.close()
            await asyncio.sleep(0.05)  # the pipes see their ends closed and finish
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        asyncio.run_coroutine_threadsafe(shut(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()


class Node:
    """One Patroni-managed PostgreSQL."""

    def __init__(self, root: Path, name: str, etcd_port: int, patroni: Path):
        self.name = name
        self.port = free_port()
        self.rest_port = free_port()
        self.proxy = LagProxy(self.port)
        self.root = root / name
        self.root.mkdir()
        self.data = self.root / "data"
        self.log_path = self.root / "patroni.log"
        self.config_path = self.root / "patroni.yml"
        self.config_path.write_text(json.dumps(self._config(etcd_port)))  # JSON is YAML
        entry = pwd.getpwnam(PG_USER)
        for path in (self.root, self.config_path):
            os.chown(path, entry.pw_uid, entry.pw_gid)
        os.chmod(self.root, 0o700)
        self._patroni = patroni
        self.process: subprocess.Popen[bytes] | None = None

    def _config(self, etcd_port: int) -> dict[str, Any]:
        return {
            "scope": SCOPE,
            "name": self.name,
            "log": {"level": "INFO"},
            "restapi": {"listen": f"127.0.0.1:{self.rest_port}", "connect_address": f"127.0.0.1:{self.rest_port}"},
            "etcd3": {"hosts": [f"127.0.0.1:{etcd_port}"]},
            "bootstrap": {
                "dcs": {
                    "ttl": 20, "loop_wait": 1, "retry_timeout": 3,
                    "primary_start_timeout": 0,
                    "maximum_lag_on_failover": 1 << 30,
                    "synchronous_mode": True,
                    "postgresql": {
                        "use_pg_rewind": True,
                        "parameters": {
                            "wal_log_hints": "on", "max_connections": 200, "max_wal_senders": 5,
                            "wal_keep_size": "256MB", "hot_standby": "on", "fsync": "on",
                        },
                    },
                },
                "initdb": [{"encoding": "UTF8"}, {"auth": "trust"}],
            },
            "postgresql": {
                "listen": f"127.0.0.1:{self.port}",
                "connect_address": f"127.0.0.1:{self.proxy.port}",
                "data_dir": str(self.data),
                "bin_dir": str(PG_BIN),
                "pgpass": str(self.root / "pgpass"),
                "authentication": {
                    "superuser": {"username": PG_USER},
                    "replication": {"username": PG_USER},
                    "rewind": {"username": PG_USER},
                },
                "pg_hba": [
                    "local all all trust",
                    "host all all 127.0.0.1/32 trust",
                    "host replication all 127.0.0.1/32 trust",
                ],
                "parameters": {"unix_socket_directories": str(self.root)},
            },
        }

    def start(self) -> None:
        entry = pwd.getpwnam(PG_USER)
        setpriv = shutil.which("setpriv")
        assert setpriv is not None, "util-linux's setpriv is needed"
        env = {"PATH": "/usr/bin:/bin", "HOME": str(self.root), "LANG": "C.UTF-8"}
        with open(self.log_path, "ab") as log:
            self.process = spawn(
                [setpriv, f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--clear-groups", "--",
                 str(self._patroni), str(self.config_path)],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env,
            )

    def url(self, database: str = DATABASE) -> str:
        return f"postgresql://{PG_USER}@127.0.0.1:{self.port}/{database}"

    def role(self) -> str:
        """'primary', 'replica', or '' when Patroni does not answer."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.rest_port}/patroni", timeout=1) as reply:
                return str(json.load(reply).get("role", ""))
        except (OSError, ValueError):
            return ""

    def accepts_writes(self) -> bool:
        try:
            with psycopg.connect(self.url("postgres"), connect_timeout=1, autocommit=True) as conn:
                row = conn.execute("SELECT NOT pg_is_in_recovery()").fetchone()
                return bool(row and row[0])
        except psycopg.Error:
            return False

    def postmaster_pid(self) -> int | None:
        try:
            return int((self.data / "postmaster.pid").read_text().splitlines()[0])
        except (OSError, ValueError, IndexError):
            return None

    def kill_postmaster(self) -> int:
        """kill -9 of the postmaster (its backends exit when they find it gone)."""
        pid = self.postmaster_pid()
        assert pid is not None, f"{self.name}: no postmaster"
        os.kill(pid, signal.SIGKILL)
        return pid

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # Patroni stops PostgreSQL, then itself
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        pid = self.postmaster_pid()
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proxy.close()

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except FileNotFoundError:
            return ""


class PatroniCluster:
    def __init__(self, root: Path):
        self.root = root
        self.patroni = ensure_patroni()
        self.etcd_port = free_port()
        self.etcd_peer_port = free_port()
        self.etcd: subprocess.Popen[bytes] | None = None
        self.nodes: list[Node] = []

    def start(self, timeout: float = 120) -> None:
        etcd = etcd_binary()
        assert etcd is not None
        with open(self.root / "etcd.log", "ab") as log:
            self.etcd = spawn(
                [etcd, "--name", "etcd0", "--data-dir", str(self.root / "etcd"),
                 "--listen-client-urls", f"http://127.0.0.1:{self.etcd_port}",
                 "--advertise-client-urls", f"http://127.0.0.1:{self.etcd_port}",
                 "--listen-peer-urls", f"http://127.0.0.1:{self.etcd_peer_port}",
                 "--initial-advertise-peer-urls", f"http://127.0.0.1:{self.etcd_peer_port}",
                 "--initial-cluster", f"etcd0=http://127.0.0.1:{self.etcd_peer_port}",
                 "--unsafe-no-fsync"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                env={**os.environ, "ETCD_UNSUPPORTED_ARCH": os.environ.get("ETCD_UNSUPPORTED_ARCH", "")},
            )
        self._wait(lambda: self._port_open(self.etcd_port), 30, "etcd to listen")
        self.nodes = [Node(self.root, f"pg{i}", self.etcd_port, self.patroni) for i in range(2)]
        self.nodes[0].start()
        self._wait(lambda: self.nodes[0].accepts_writes(), timeout, "the first node to bootstrap")
        self.nodes[1].start()
        self.wait_healthy(synchronous=True, timeout=timeout)
        with psycopg.connect(self.primary().url("postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {DATABASE}")

    @staticmethod
    def _port_open(port: int) -> bool:
        with socket.socket() as s:
            s.settimeout(0.2)
            return s.connect_ex(("127.0.0.1", port)) == 0

    def _wait(self, condition: Any, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                tails = "\n".join(f"--- {n.name}\n{n.log_tail()}" for n in self.nodes)
                raise TimeoutError(f"waited {timeout} s for {what}\n{tails}")
            time.sleep(0.1)

    def url(self) -> str:
        """The multi-host URL, as the issue's measurements used it (Tasklife would add
        target_session_attrs=read-write itself; a server without that change would not)."""
        hosts = ",".join(f"127.0.0.1:{n.port}" for n in self.nodes)
        return f"postgresql://{PG_USER}@{hosts}/{DATABASE}?target_session_attrs=read-write"

    def primary(self) -> Node:
        for node in self.nodes:
            if node.accepts_writes():
                return node
        raise RuntimeError("no primary")

    def standby_of(self, primary: Node) -> Node:
        return next(n for n in self.nodes if n is not primary)

    def members(self) -> list[dict[str, Any]]:
        for node in self.nodes:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{node.rest_port}/cluster", timeout=1) as reply:
                    return list(json.load(reply).get("members", []))
            except (OSError, ValueError):
                continue
        return []

    def wait_healthy(self, synchronous: bool, timeout: float = 90) -> None:
        want = "sync_standby" if synchronous else "replica"
        self._wait(
            lambda: {m.get("role") for m in self.members() if m.get("state") in ("running", "streaming")}
            == {"leader", want},
            timeout, f"the cluster to have a leader and a {want}",
        )

    def patronictl(self, *args: str) -> str:
        config = self.nodes[0].config_path
        result = subprocess.run(
            [str(self.patroni.parent / "patronictl"), "-c", str(config), *args],
            capture_output=True, text=True, timeout=60,
        )
        if result.returncode != 0:
            raise RuntimeError(f"patronictl {' '.join(args)}: {result.stdout}{result.stderr}")
        return result.stdout

    def set_synchronous(self, on: bool) -> None:
        self.patronictl("edit-config", "--force", "--set", f"synchronous_mode={'true' if on else 'false'}")

    def set_lag(self, seconds: float) -> None:
        for node in self.nodes:
            node.proxy.lag = seconds

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
        if self.etcd is not None and self.etcd.poll() is None:
            self.etcd.terminate()
            try:
                self.etcd.wait(10)
            except subprocess.TimeoutExpired:
                self.etcd.kill()
