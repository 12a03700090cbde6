"""Tasklife API client package. `tasklife.v1` holds the code generated from proto/."""
