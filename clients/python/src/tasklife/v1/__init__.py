"""Generated from proto/tasklife/v1 by `make generate`. Do not edit the *_pb2* files by hand."""
