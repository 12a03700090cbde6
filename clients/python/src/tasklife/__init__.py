"""Tasklife API client.

`tasklife.client.TasklifeClient` is the wrapper (typed errors, compare-and-swap with retry,
a watch that resumes by itself); `tasklife.v1` holds the code generated from proto/.
"""
