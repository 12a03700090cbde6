#!/usr/bin/env bash
# The TypeScript reference worker (docs/how-to/workers.md): a Worker whose handler sleeps
# --handler-ms, with the flags and JSON summary every client's reference-worker.sh shares.
#   reference-worker.sh --address HOST:PORT --namespace NS --worker NAME --concurrency N \
#     --handler-ms MS --lease-ms MS [--idle-exit-ms MS] [--labels k=v,k2=v2]
# First use installs node_modules (npm ci); tsx, already a dev dependency, runs the TypeScript
# source as it is, so there is nothing else to build. `--help` does that much and exits 0.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bash "$here/../../tools/ensure-node-modules.sh" "$here" >&2
# Node resolves `--import tsx` from the working directory: run from this package's folder.
cd "$here"
# exec: the worker is this process, so SIGTERM and SIGKILL reach it directly.
exec node --import tsx bin/reference-worker.ts "$@"
