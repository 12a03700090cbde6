#!/usr/bin/env bash
# The Java client's reference worker (src/main/java/dev/tasklife/client/reference), with the
# flags and JSON summary shared by every client: see docs/how-to/workers.md. `--help` prints
# them. Compiles the client and writes its classpath on first use (and after a source
# change), offline when Maven already has everything; build output goes to stderr, stdout is
# the summary only.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
classes="$here/target/classes"
classpath="$here/target/reference-worker.classpath"

stale() {
  [[ ! -f "$classpath" ]] && return 0
  [[ -n "$(find "$here/src/main" "$here/pom.xml" -newer "$classpath" -print -quit)" ]]
}

build() {
  local maven=(mvn -B -q --no-transfer-progress -Dstyle.color=never -f "$here/pom.xml"
               compile dependency:build-classpath -Dmdep.outputFile="$classpath.new")
  # Offline first (seconds); online only when something was never downloaded.
  "${maven[@]}" -o >/dev/null 2>&1 || "${maven[@]}" >&2
  mv "$classpath.new" "$classpath"
}

if stale; then
  mkdir -p "$here/target"
  # Two workers started at once build once.
  exec 9>"$here/target/.reference-worker.lock"
  flock 9
  if stale; then build; fi
  flock -u 9
fi

# C1 only: a benchmark run lasts seconds, and C2's compilations would take 2-3 s of CPU from
# the server on the same small machine in that time, for no gain in an I/O-bound loop.
exec java -XX:TieredStopAtLevel=1 -cp "$classes:$(cat "$classpath")" dev.tasklife.client.reference.ReferenceWorker "$@"
