"""A real single-node Apache Kafka broker (KRaft) for the sink tests, from the jars that
`make install-kafka` resolved into .kafka/libs with Maven.

It listens on three free loopback ports: PLAINTEXT for the tests, SASL_PLAINTEXT (PLAIN,
user `tasklife`) for the SASL test, and the controller's. Its data lives in a temporary
folder, so a restart (stop, then start) keeps the topics and records.
"""

from __future__ import annotations

import base64
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
LIBS = ROOT / ".kafka" / "libs"
SASL_USER = "tasklife"
SASL_PASSWORD = "kafka-secret"


def kafka_available() -> str | None:
    """Why a broker cannot start here, or None when it can."""
    if not any(LIBS.glob("kafka_2.13-*.jar")):
        return f"no Kafka jars in {LIBS}: run `make install-kafka`"
    if shutil.which("java") is None:
        return "no java on PATH (Java 17: see .ci/run)"
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class KafkaBroker:
    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="tasklife-kafka-"))
        self.port, self.sasl_port, self.controller_port = _free_port(), _free_port(), _free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self._write_config()
        self._format()

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def sasl_bootstrap(self) -> str:
        return f"127.0.0.1:{self.sasl_port}"

    def _write_config(self) -> None:
        jaas = (f'org.apache.kafka.common.security.plain.PlainLoginModule required '
                f'user_{SASL_USER}="{SASL_PASSWORD}";')
        lines = {
            "process.roles": "broker,controller",
            "node.id": "1",
            "controller.quorum.voters": f"1@127.0.0.1:{self.controller_port}",
            "listeners": (f"PLAINTEXT://127.0.0.1:{self.port},SASL_PLAINTEXT://127.0.0.1:{self.sasl_port},"
                          f"CONTROLLER://127.0.0.1:{self.controller_port}"),
            "advertised.listeners": f"PLAINTEXT://127.0.0.1:{self.port},SASL_PLAINTEXT://127.0.0.1:{self.sasl_port}",
            "controller.listener.names": "CONTROLLER",
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
            "sasl.enabled.mechanisms": "PLAIN",
            "listener.name.sasl_plaintext.plain.sasl.jaas.config": jaas,
            "log.dirs": str(self.folder / "data"),
            "num.partitions": "3",
            "offsets.topic.replication.factor": "1",
            "transaction.state.log.replication.factor": "1",
            "transaction.state.log.min.isr": "1",
            "share.coordinator.state.topic.replication.factor": "1",
            "share.coordinator.state.topic.min.isr": "1",
            "group.initial.rebalance.delay.ms": "0",
            "auto.create.topics.enable": "true",
        }
        (self.folder / "server.properties").write_text("".join(f"{k}={v}\n" for k, v in lines.items()))

    def _java(self, main_class: str, *args: str) -> list[str]:
        return ["java", "-Xms128m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-Dorg.slf4j.simpleLogger.log.kafka.server.KafkaRaftServer=info", "-cp", f"{LIBS}/*", main_class, *args]

    def _format(self) -> None:
        cluster_id = "-"
        while cluster_id.startswith("-"):  # StorageTool would read it as an option (Kafka's own ids never start so)
            cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        subprocess.run(
            self._java("kafka.tools.StorageTool", "format", "-t", cluster_id, "-c", str(self.folder / "server.properties")),
            check=True, capture_output=True, timeout=120,
        )

    def start(self, timeout: float = 90) -> None:
        with open(self.folder / "broker.log", "ab") as log:  # the child keeps its own descriptor
            self.process = subprocess.Popen(
                self._java("kafka.Kafka", str(self.folder / "server.properties")), stdout=log,
                stderr=subprocess.STDOUT, env={**os.environ, "KAFKA_HEAP_OPTS": ""},
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the Kafka broker exited: {(self.folder / 'broker.log').read_text()[-3000:]}")
            if self._answers():
                return
            time.sleep(0.3)
        raise RuntimeError("the Kafka broker did not become ready in time: " + (self.folder / "broker.log").read_text()[-2000:])

    def _answers(self) -> bool:
        """Whether the broker serves metadata (its listener accepts and it has a controller)."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                pass
        except OSError:
            return False
        return b"Kafka Server started" in (self.folder / "broker.log").read_bytes()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


def broker_or_skip() -> KafkaBroker:
    """A started broker; without the jars or Java a loud skip, or a failure under CI=true."""
    import pytest

    missing = kafka_available()
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"Kafka is required under CI=true: {missing}")
        pytest.skip(f"SKIPPED LOUDLY: {missing}")
    broker = KafkaBroker()
    broker.start()
    return broker
