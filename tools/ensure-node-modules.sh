#!/usr/bin/env bash
# Usage: tools/ensure-node-modules.sh PACKAGE_DIR
# Runs `npm ci` in PACKAGE_DIR when its node_modules is missing or was installed from a different
# package-lock.json. Every npm package of the repository (clients/typescript, console) and every
# caller (generate.sh, make console, the pytest bridges, the drift tests) shares this one rule, so
# a fresh clone and a warm machine take the same path and a warm one pays nothing.
set -euo pipefail
package="${1:?usage: $0 PACKAGE_DIR}"
cd "$package"

# A byte copy of the lock file that was installed; npm's own node_modules/.package-lock.json has a
# different shape, so it cannot be compared directly.
installed_lock=node_modules/.tasklife-installed-package-lock.json

if [[ -f "$installed_lock" ]] && cmp -s package-lock.json "$installed_lock"; then
  exit 0
fi
echo "$package: npm ci (node_modules missing or stale)" >&2
npm ci --no-audit --no-fund --loglevel=error
cp package-lock.json "$installed_lock"
