"""Tasklife server: a task lifecycle state machine over gRPC, backed by PostgreSQL.

Layers, each importing only the ones before it:
domain (pure rules) -> storage (PostgreSQL) -> service (gRPC translation) -> server/entrypoint.
"""
