#!/usr/bin/env bash
# Regenerates the Go messages and gRPC stubs from proto/ into tasklifev1/.
#
# Usage: clients/go/generate.sh [OUT_DIR]
#   OUT_DIR defaults to clients/go itself; the code always lands in OUT_DIR/tasklifev1/,
#   so the drift test can generate into a temporary folder and compare.
#
# Every generator is pinned: protoc comes from the repository's pinned grpcio-tools (in
# .venv, `make install`), and the two Go plugins are built from the Go module proxy at the
# versions below into clients/go/.tools/ (git-ignored) the first time they are needed.
set -euo pipefail

PROTOC_GEN_GO_VERSION=v1.36.12
PROTOC_GEN_GO_GRPC_VERSION=v1.6.2

GO_CLIENT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$GO_CLIENT_DIR/../.." && pwd)"
OUT_DIR="$(mkdir -p "${1:-$GO_CLIENT_DIR}" && cd "${1:-$GO_CLIENT_DIR}" && pwd)"
PYTHON="${PYTHON:-$REPO_ROOT/.venv/bin/python}"

MODULE=github.com/tasklife-dev/tasklife/clients/go
GO_PACKAGE="$MODULE/tasklifev1;tasklifev1"

if ! "$PYTHON" -c 'import grpc_tools.protoc' 2>/dev/null; then
  echo "generate.sh: $PYTHON cannot import grpc_tools (pinned grpcio-tools); run \`make install\` first" >&2
  exit 1
fi
command -v go >/dev/null || { echo "generate.sh: the go toolchain is not on PATH" >&2; exit 1; }

# install_plugin NAME PACKAGE VERSION: prints the plugin's path, building it once per version.
install_plugin() {
  local name="$1" package="$2" version="$3"
  local bin_dir="$GO_CLIENT_DIR/.tools/$name@$version"
  if [[ ! -x "$bin_dir/$name" ]]; then
    # GOFLAGS cleared: a user's -mod=vendor or similar must not leak into a tool install.
    GOBIN="$bin_dir" GOFLAGS= go install "$package@$version" >&2
  fi
  echo "$bin_dir/$name"
}
PROTOC_GEN_GO="$(install_plugin protoc-gen-go google.golang.org/protobuf/cmd/protoc-gen-go "$PROTOC_GEN_GO_VERSION")"
PROTOC_GEN_GO_GRPC="$(install_plugin protoc-gen-go-grpc google.golang.org/grpc/cmd/protoc-gen-go-grpc "$PROTOC_GEN_GO_GRPC_VERSION")"

WELL_KNOWN="$("$PYTHON" -c 'import grpc_tools, os; print(os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"))')"

# Sorted relative paths, so the command line (and the output) never depends on the filesystem's order.
cd "$REPO_ROOT/proto"
PROTOS=()
while IFS= read -r proto; do PROTOS+=("$proto"); done < <(find . -name '*.proto' | sed 's|^\./||' | LC_ALL=C sort)

# proto/ carries no go_package option (and must not be edited for one language), so every
# file is mapped to the tasklifev1 package here with M options.
MAPPINGS=()
for proto in "${PROTOS[@]}"; do
  MAPPINGS+=("--go_opt=M$proto=$GO_PACKAGE" "--go-grpc_opt=M$proto=$GO_PACKAGE")
done

rm -rf "$OUT_DIR/tasklifev1"
"$PYTHON" -m grpc_tools.protoc \
  -I . -I "$REPO_ROOT/third_party/googleapis" -I "$WELL_KNOWN" \
  --plugin=protoc-gen-go="$PROTOC_GEN_GO" \
  --plugin=protoc-gen-go-grpc="$PROTOC_GEN_GO_GRPC" \
  --go_out="$OUT_DIR" --go_opt=module="$MODULE" \
  --go-grpc_out="$OUT_DIR" --go-grpc_opt=module="$MODULE" \
  "${MAPPINGS[@]}" \
  "${PROTOS[@]}"

echo "generated Go code in $OUT_DIR/tasklifev1" >&2
