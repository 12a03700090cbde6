"""Event sinks: push the stream to webhooks and Kafka topics as CloudEvents (docs/how-to/sinks.md)."""
