"""Kafka target: one record per event, the CloudEvents Kafka binding in binary mode.

The record's key is the task id (each task's events stay in order in one partition), its
value the TaskEvent in proto3 JSON, its headers the `ce_` attributes. The producer is
idempotent with acks=all: a batch is acknowledged when every in-sync replica has every
record. Records go out as one record batch per partition (built here, partitioned by the key
as the producer's own default partitioner does: murmur2, as Kafka's Java client), not one
send() each, whose per-record Python is most of a sink's cost. The bootstrap hosts and every
broker the cluster's metadata names are checked against --sink-allowed-hosts before the
producer is used.
"""

from __future__ import annotations

import asyncio
import ssl
import tempfile
from pathlib import Path

from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaError
from aiokafka.partitioner import DefaultPartitioner
from aiokafka.producer.message_accumulator import BatchBuilder
from tasklife.v1 import event_sink_service_pb2 as sink_pb2

from tasklife_server.sinks import cloudevents
from tasklife_server.sinks.delivery import DeliveryFailed, Outgoing
from tasklife_server.sinks.hosts import HostPolicy, HostRefused

SASL_MECHANISMS = {
    sink_pb2.KAFKA_SASL_MECHANISM_PLAIN: "PLAIN",
    sink_pb2.KAFKA_SASL_MECHANISM_SCRAM_SHA_256: "SCRAM-SHA-256",
    sink_pb2.KAFKA_SASL_MECHANISM_SCRAM_SHA_512: "SCRAM-SHA-512",
}
REQUEST_TIMEOUT_MS = 10_000


def split_server(server: str) -> tuple[str, int] | None:
    """(host, port) of a `host:port` bootstrap server, or None when malformed."""
    host, _, port = server.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        return None
    return host, int(port)


def ssl_context(tls: sink_pb2.KafkaTls) -> ssl.SSLContext:
    context = ssl.create_default_context(cadata=tls.ca_pem or None)
    if tls.client_cert_pem:
        # The ssl module loads a client key only from a file: a private temporary one, removed at once.
        with tempfile.TemporaryDirectory() as folder:
            cert, key = Path(folder) / "cert.pem", Path(folder) / "key.pem"
            cert.write_text(tls.client_cert_pem)
            key.write_text(tls.client_key_pem)
            context.load_cert_chain(cert, key)
    return context


class KafkaTarget:
    def __init__(self, target: sink_pb2.KafkaTarget, policy: HostPolicy):
        self._target = target
        self._policy = policy
        self._producer: AIOKafkaProducer | None = None

    def _new_producer(self) -> AIOKafkaProducer:
        target = self._target
        tls = target.tls.enabled
        sasl = target.sasl.mechanism != sink_pb2.KAFKA_SASL_MECHANISM_UNSPECIFIED
        protocol = {(False, False): "PLAINTEXT", (True, False): "SSL", (False, True): "SASL_PLAINTEXT",
                    (True, True): "SASL_SSL"}[(tls, sasl)]
        options = {}
        if sasl:
            options.update(sasl_mechanism=SASL_MECHANISMS[target.sasl.mechanism],
                           sasl_plain_username=target.sasl.username, sasl_plain_password=target.sasl.password)
        return AIOKafkaProducer(
            bootstrap_servers=list(target.bootstrap_servers),
            enable_idempotence=True,
            acks="all",
            linger_ms=2,
            max_batch_size=1024 * 1024,
            request_timeout_ms=REQUEST_TIMEOUT_MS,
            security_protocol=protocol,
            ssl_context=ssl_context(target.tls) if tls else None,
            **options,
        )

    async def _ready_producer(self) -> AIOKafkaProducer:
        if self._producer is not None:
            return self._producer
        try:
            for server in self._target.bootstrap_servers:
                host, port = split_server(server) or (server, 0)
                await self._policy.check_host(host, port)
        except HostRefused as refused:
            raise DeliveryFailed("SINK_HOST_NOT_ALLOWED", str(refused), host=refused.host) from refused
        producer = self._new_producer()
        try:
            await producer.start()
            for broker in producer.client.cluster.brokers():
                await self._policy.check_host(broker.host, broker.port)
        except HostRefused as refused:
            await producer.stop()
            raise DeliveryFailed("SINK_HOST_NOT_ALLOWED", f"a broker of the cluster: {refused}",
                                 host=refused.host) from refused
        except (KafkaError, OSError) as exc:
            await _stop_quietly(producer)
            raise DeliveryFailed("SINK_TARGET_UNREACHABLE", f"Kafka could not be reached: {exc}") from exc
        self._producer = producer
        return producer

    async def deliver(self, batch: list[Outgoing]) -> None:
        producer = await self._ready_producer()
        topic = self._target.topic
        try:
            partitions = sorted(await producer.partitions_for(topic))
            builders = self._record_batches(producer, batch, partitions)
            # A partition's batches are queued in their order (send_batch waits for the one
            # before to leave), so each task's events reach its partition in order.
            sent = [await producer.send_batch(builder, topic, partition=partition)
                    for partition, queued in builders.items() for builder in queued]
            await asyncio.gather(*sent)
        except (KafkaError, OSError) as exc:
            # A fresh producer for the retry: the idempotent one's sequence numbers after a
            # failed batch are not worth reasoning about; duplicates are the receiver's to drop.
            self._producer = None
            await _stop_quietly(producer)
            raise DeliveryFailed("SINK_TARGET_UNREACHABLE", f"Kafka did not acknowledge: {exc!r}") from exc

    @staticmethod
    def _record_batches(producer: AIOKafkaProducer, batch: list[Outgoing],
                        partitions: list[int]) -> dict[int, list[BatchBuilder]]:
        """The records of `batch` in record batches by partition, in the batch's order (a new
        batch for a partition when its last is full)."""
        builders: dict[int, list[BatchBuilder]] = {}
        partition_of: dict[str, int] = {}  # murmur2 is pure Python: once per task of the batch
        for item in batch:
            task_id = item.event.task_id
            key = task_id.encode()
            partition = partition_of.get(task_id)
            if partition is None:
                partition = partition_of[task_id] = DefaultPartitioner()(key, partitions, partitions)
            queued = builders.setdefault(partition, [])
            value = cloudevents.kafka_value(item.rendered)
            headers = cloudevents.kafka_headers(item.event, item.rendered)
            if not queued or queued[-1].append(timestamp=None, key=key, value=value, headers=headers) is None:
                queued.append(producer.create_batch())
                if queued[-1].append(timestamp=None, key=key, value=value, headers=headers) is None:
                    raise DeliveryFailed("SINK_EVENT_TOO_LARGE",
                                         f"event {cloudevents.event_id(item.event)} does not fit a Kafka record batch")
        return builders

    async def close(self) -> None:
        if self._producer is not None:
            await _stop_quietly(self._producer)
            self._producer = None


async def _stop_quietly(producer: AIOKafkaProducer) -> None:
    try:
        await asyncio.wait_for(producer.stop(), timeout=5)
    except Exception:  # noqa: BLE001 - a producer that cannot stop cleanly is dropped all the same
        pass
