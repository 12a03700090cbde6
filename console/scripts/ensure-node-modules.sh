#!/usr/bin/env bash
# Runs `npm ci` when node_modules is missing or was installed from a different package-lock.json.
# `make console` and the drift test share this one rule, so a fresh
# clone and a warm machine take the same path and a warm one pays nothing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# A byte copy of the lock file that was installed; npm's own node_modules/.package-lock.json has a
# different shape, so it cannot be compared directly.
installed_lock=node_modules/.tasklife-installed-package-lock.json

if [[ -f "$installed_lock" ]] && cmp -s package-lock.json "$installed_lock"; then
  exit 0
fi
echo "console: npm ci (node_modules missing or stale)" >&2
npm ci --no-audit --no-fund --loglevel=error
cp package-lock.json "$installed_lock"
