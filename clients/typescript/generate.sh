#!/usr/bin/env bash
# Regenerates the TypeScript code for tasklife.v1 (and the google.rpc error details) from proto/.
#
# Usage: clients/typescript/generate.sh [OUT_DIR]
#   OUT_DIR defaults to clients/typescript/src/gen (the committed code). Any other OUT_DIR must be
#   empty or missing; the drift test generates there and compares with the committed files.
#
# Pinned generators, nothing fetched from a project website:
#   - protoc from grpcio-tools 1.85.1 (the repository's .venv, created by `make install`);
#   - protoc-gen-es 2.17.0 from this package's devDependencies (node_modules, installed by npm ci);
#   - google/rpc/error_details.proto and status.proto vendored in third_party/googleapis at the
#     repository root (see its README.md).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
default_out="$here/src/gen"
out="${1:-$default_out}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

if [[ "$out" != "$default_out" && -n "$(ls -A "$out")" ]]; then
  echo "generate.sh: refusing to write into non-empty $out" >&2
  exit 2
fi

python="${TASKLIFE_PYTHON:-$root/.venv/bin/python}"
if [[ ! -x "$python" ]]; then
  echo "generate.sh: $python not found; run \`make install\` first (it provides grpcio-tools' protoc)" >&2
  exit 1
fi

bash "$root/tools/ensure-node-modules.sh" "$here"
plugin="$here/node_modules/.bin/protoc-gen-es"
well_known="$("$python" -c 'import grpc_tools, os; print(os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"))')"

# Generate into a staging folder first, so a failed run leaves the committed code untouched and a
# proto file removed from proto/ does not leave its old output behind.
staging="$(mktemp -d)"
trap 'rm -rf "$staging"' EXIT

mapfile -t protos < <(
  { find "$root/proto" -name '*.proto'; find "$root/third_party/googleapis" -name '*.proto'; } | LC_ALL=C sort
)

"$python" -m grpc_tools.protoc \
  -I "$root/proto" \
  -I "$root/third_party/googleapis" \
  -I "$well_known" \
  --plugin=protoc-gen-es="$plugin" \
  --es_out="$staging" \
  --es_opt=target=ts,import_extension=js \
  "${protos[@]}"

find "$out" -mindepth 1 -delete
cp -R "$staging"/. "$out"/
echo "generated TypeScript code in $out"
