"""The HTTP listener: tasklife.v1.TaskService over Connect and gRPC-Web, and the console at `/`.

It is a gateway inside the server process: each HTTP call becomes a real gRPC call on a
private Unix socket of this same server, so the one TaskService implementation, with every
interceptor (authentication, roles, limits, metrics, access log, error translation), serves
both transports. docs/how-to/http-and-console.md explains the choice.
"""
