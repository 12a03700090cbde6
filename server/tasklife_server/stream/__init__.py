"""The live event stream: one database reader per process fanning out to every watcher."""
