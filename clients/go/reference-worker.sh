#!/usr/bin/env bash
# The Go reference worker (docs/how-to/workers.md): a tasklife.Worker whose handler sleeps
# --handler-ms, with the flags and the JSON summary line shared by every client's
# reference-worker.sh. Builds cmd/reference-worker into .build/ (git-ignored) on first use,
# and again whenever a Go source, go.mod or go.sum is newer than the binary; then execs it,
# so signals reach the worker itself. `--help` builds, prints the usage and exits 0.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
binary="$here/.build/reference-worker"

stale() {
	[[ ! -x "$binary" ]] && return 0
	[[ -n "$(find "$here/go.mod" "$here/go.sum" "$here/cmd" "$here/tasklife" "$here/tasklifev1" \
		-newer "$binary" -name '*.go' -o -newer "$binary" -name 'go.*' | head -n 1)" ]]
}

if stale; then
	mkdir -p "$here/.build"
	# Built under another name and renamed, so that concurrent first uses never run half a file.
	partial="$(mktemp "$here/.build/reference-worker.XXXXXX")"
	trap 'rm -f "$partial"' EXIT
	(cd "$here" && go build -o "$partial" ./cmd/reference-worker) >&2
	mv -f "$partial" "$binary"
	trap - EXIT
fi
exec "$binary" "$@"
