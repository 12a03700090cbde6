"""`tasklife sinks`: event sinks that push the stream to a webhook or a Kafka topic as
CloudEvents (docs/how-to/sinks.md): create, list, get, pause, resume, rewind, delete.

Errors of these calls are gRPC errors, turned into the CLI's messages and exit codes by
app.main like every other command's.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from google.protobuf.duration_pb2 import Duration
from tasklife.v1 import event_sink_service_pb2 as pb
from tasklife.v1 import event_sink_service_pb2_grpc as pb_grpc
from tasklife.v1 import task_pb2 as task_pb

from tasklife.cli import render

if TYPE_CHECKING:
    from tasklife.cli.app import Session

SASL = {"plain": pb.KAFKA_SASL_MECHANISM_PLAIN, "scram-sha-256": pb.KAFKA_SASL_MECHANISM_SCRAM_SHA_256,
        "scram-sha-512": pb.KAFKA_SASL_MECHANISM_SCRAM_SHA_512}


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    from tasklife.cli.app import label, positive_float, task_state

    listing = add("sinks", run_list, "list the event sinks with their state, lag and last error",
                  description="List the event sinks (the same as `tasklife sinks list`).")
    _page_options(listing)

    # Each sub-command is listed right after `sinks`: added last first, they read in this order.
    for name, handler, text in (("delete", run_delete, "delete a sink"),
                                ("rewind", run_rewind, "move a sink's cursor (within retention) and clear FAILING"),
                                ("resume", run_resume, "deliver again from the cursor"),
                                ("pause", run_pause, "stop delivering (the cursor stays)"),
                                ("get", run_get, "show a sink's target, filter and delivery status")):
        sub = add(f"sinks {name}", handler, text)
        sub.add_argument("sink_id", metavar="ID")
        if name == "rewind":
            _start_options(sub, required=True)
    _page_options(add("sinks list", run_list, "list the event sinks with their state, lag and last error"))
    create = add(
        "sinks create", run_create, "create a sink: a webhook URL or a Kafka topic receives matching events",
        description="Create an event sink. Give --webhook-url and --webhook-secret, or --kafka-bootstrap and "
        "--kafka-topic. Delivery starts after the newest event unless --from-beginning or --after-cursor.",
    )
    create.add_argument("--id", dest="sink_id", metavar="ID", help="the sink's id (default: the server picks one)")
    create.add_argument("--webhook-url", metavar="URL", help="POST each event here, signed (Standard Webhooks)")
    create.add_argument("--webhook-secret", metavar="SECRET", help="whsec_... signing secret (never shown again)")
    create.add_argument("--webhook-header", action="append", default=[], metavar="NAME=VALUE",
                        help="an extra request header (repeatable)")
    create.add_argument("--webhook-timeout", type=positive_float, metavar="SECONDS", help="per request (default 10)")
    create.add_argument("--kafka-bootstrap", action="append", default=[], metavar="HOST:PORT",
                        help="a Kafka broker (repeatable)")
    create.add_argument("--kafka-topic", metavar="TOPIC")
    create.add_argument("--kafka-sasl", choices=sorted(SASL), help="SASL mechanism")
    create.add_argument("--kafka-user", metavar="NAME")
    create.add_argument("--kafka-password", metavar="PASSWORD")
    create.add_argument("--kafka-tls", action="store_true", help="connect with TLS")
    create.add_argument("--kafka-ca-file", metavar="FILE", help="PEM CA certificates to trust (implies --kafka-tls)")
    create.add_argument("--state", dest="states", action="append", type=task_state, default=[], metavar="STATE",
                        help="only events into this state (repeatable)")
    create.add_argument("--label", dest="labels", action="append", type=label, default=[], metavar="KEY=VALUE",
                        help="only tasks with this label (repeatable)")
    create.add_argument("--namespace", dest="namespaces", action="append", default=[], metavar="NAME",
                        help="only tasks in this namespace (repeatable)")
    create.add_argument("--paused", action="store_true", help="create it paused")
    _start_options(create, required=False)


def _page_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--page-token", default="", metavar="TOKEN", help="continue a listing")


def _start_options(parser: argparse.ArgumentParser, *, required: bool) -> None:
    start = parser.add_mutually_exclusive_group(required=required)
    start.add_argument("--from-beginning", action="store_true", help="from the oldest retained event")
    start.add_argument("--after-cursor", metavar="CURSOR", help="strictly after this event cursor")


def _stub(session: Session) -> Any:
    return pb_grpc.EventSinkServiceStub(session.channel)


def _call_options(session: Session) -> dict[str, Any]:
    token = getattr(session.args, "token", None)
    return {"timeout": session.args.timeout, "metadata": [("authorization", f"Bearer {token}")] if token else None}


def run_create(args: argparse.Namespace, session: Session) -> int:
    request = pb.CreateEventSinkRequest(
        sink_id=args.sink_id or "", paused=args.paused,
        filter=pb.EventSinkFilter(states=[task_pb.TaskState.Value(s) for s in args.states], labels=dict(args.labels), namespaces=args.namespaces),
    )
    if args.webhook_url:
        request.webhook.CopyFrom(pb.WebhookTarget(
            url=args.webhook_url, secret=args.webhook_secret or "",
            headers=dict(h.split("=", 1) for h in args.webhook_header if "=" in h)))
        if args.webhook_timeout:
            request.webhook.timeout.CopyFrom(Duration(nanos=int(args.webhook_timeout % 1 * 1e9),
                                                      seconds=int(args.webhook_timeout)))
    elif args.kafka_bootstrap or args.kafka_topic:
        request.kafka.CopyFrom(pb.KafkaTarget(bootstrap_servers=args.kafka_bootstrap, topic=args.kafka_topic or ""))
        if args.kafka_sasl:
            request.kafka.sasl.CopyFrom(pb.KafkaSasl(mechanism=SASL[args.kafka_sasl], username=args.kafka_user or "",
                                                     password=args.kafka_password or ""))
        if args.kafka_tls or args.kafka_ca_file:
            request.kafka.tls.enabled = True
            if args.kafka_ca_file:
                with open(args.kafka_ca_file) as ca:
                    request.kafka.tls.ca_pem = ca.read()
    if args.from_beginning:
        request.from_beginning = True
    elif args.after_cursor:
        request.after_cursor = args.after_cursor
    return _show(session, _stub(session).CreateEventSink(request, **_call_options(session)).sink)


def run_get(args: argparse.Namespace, session: Session) -> int:
    return _show(session, _stub(session).GetEventSink(pb.GetEventSinkRequest(sink_id=args.sink_id),
                                                      **_call_options(session)).sink)


def run_pause(args: argparse.Namespace, session: Session) -> int:
    return _paused(args, session, True)


def run_resume(args: argparse.Namespace, session: Session) -> int:
    return _paused(args, session, False)


def _paused(args: argparse.Namespace, session: Session, paused: bool) -> int:
    request = pb.UpdateEventSinkRequest(sink_id=args.sink_id, paused=paused)
    return _show(session, _stub(session).UpdateEventSink(request, **_call_options(session)).sink)


def run_rewind(args: argparse.Namespace, session: Session) -> int:
    request = pb.RewindEventSinkRequest(sink_id=args.sink_id)
    if args.from_beginning:
        request.from_beginning = True
    else:
        request.after_cursor = args.after_cursor
    return _show(session, _stub(session).RewindEventSink(request, **_call_options(session)).sink)


def run_delete(args: argparse.Namespace, session: Session) -> int:
    _stub(session).DeleteEventSink(pb.DeleteEventSinkRequest(sink_id=args.sink_id), **_call_options(session))
    session.note(f"deleted event sink {args.sink_id}")
    return 0


def run_list(args: argparse.Namespace, session: Session) -> int:
    response = _stub(session).ListEventSinks(pb.ListEventSinksRequest(page_token=args.page_token),
                                             **_call_options(session))
    if session.json:
        for sink in response.sinks:
            session.print(render.json_line(sink))
    else:
        session.print(render.table(
            ("sink", "target", "state", "pending", "lag", "last error"),
            [(s.sink_id, _target(s), _state(s), s.pending_events, _lag(s), s.last_error.message or render.NONE)
             for s in response.sinks]))
    if response.next_page_token:
        session.note(f"more: --page-token {response.next_page_token}")
    return 0


def _state(sink: pb.EventSink) -> str:
    return pb.EventSinkState.Name(sink.state).removeprefix("EVENT_SINK_STATE_").lower()


def _target(sink: pb.EventSink) -> str:
    if sink.HasField("webhook"):
        return sink.webhook.url
    return f"kafka://{','.join(sink.kafka.bootstrap_servers)}/{sink.kafka.topic}"


def _lag(sink: pb.EventSink) -> str:
    seconds = sink.lag.ToTimedelta().total_seconds()
    return f"{seconds:.1f} s"


def _show(session: Session, sink: pb.EventSink) -> int:
    if session.json:
        session.print(render.json_document(sink))
        return 0
    filt = sink.filter
    session.print(render.fields([
        ("sink", sink.sink_id),
        ("target", _target(sink)),
        ("state", _state(sink)),
        ("filter", ", ".join(part for part in (
            " ".join(f"{k}={v}" for k, v in sorted(filt.labels.items())),
            " ".join(filt.namespaces),
            " ".join(render.state(s) for s in filt.states),
        ) if part) or "every event"),
        ("delivered", sink.delivered_events),
        ("pending", sink.pending_events),
        ("lag", _lag(sink)),
        ("cursor", sink.delivered_cursor or render.NONE),
        ("last delivery", render.optional_time(sink, "last_delivery_time")),
        ("last error", sink.last_error.message or render.NONE),
        ("created", render.local_time(sink.create_time)),
    ]))
    return 0
