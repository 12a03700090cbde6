"""Bulk operations by filter: the runner that moves their tasks."""
