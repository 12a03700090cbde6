#!/usr/bin/env bash
# The Python client's reference worker (docs/how-to/workers.md): the same flags and JSON output as
# the Go, Java and TypeScript ones. Runs with the repository's .venv (`make install`).
#   clients/python/reference-worker.sh --address HOST:PORT --namespace NS --worker NAME \
#     --concurrency N --handler-ms MS --lease-ms MS [--idle-exit-ms MS] [--labels k=v,k2=v2]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python="${TASKLIFE_PYTHON:-$root/.venv/bin/python}"
if [[ ! -x "$python" ]]; then
  echo "reference-worker.sh: $python not found; run \`make install\` first" >&2
  exit 1
fi
exec "$python" -m tasklife.reference_worker "$@"
