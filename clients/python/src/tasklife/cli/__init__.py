"""`tasklife`, the command line of Tasklife: `python -m tasklife.cli --help`.

The console script is `tasklife.cli.app:main`. Modules: `app` (argument parsing, the session,
exit codes handling), `tasks`, `watching`, `machine` and `serving` (the commands), `render`
(tables, short names, local times, JSON), `credentials` (TLS, mutual TLS and the token
of the connection) and `failures` (exit codes and error messages).
"""
