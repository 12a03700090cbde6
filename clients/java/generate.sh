#!/usr/bin/env bash
# Regenerates the Java code of tasklife.v1 from proto/ into src/main/generated/, or into the
# folder given as the first argument (same layout), which the drift test compares with the
# committed files.
#
# Generators, all pinned and local: buf (tools/package.json) reads proto/ and applies the
# Java options of buf.gen.yaml; protoc (its built-in Java generator) and grpc-java's
# protoc-gen-grpc-java are fetched from Maven Central by `mvn dependency:copy` into
# .generators/, at the versions pinned in pom.xml.
set -euo pipefail

JAVA_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$JAVA_DIR/../.." && pwd)"
OUT="${1:-$JAVA_DIR/src/main/generated}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"

pom_property() {
  local value
  value="$(sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" "$JAVA_DIR/pom.xml")"
  [[ -n "$value" ]] || { echo "generate.sh: no <$1> in pom.xml" >&2; exit 1; }
  echo "$value"
}

# Maven Central's classifier for this machine (os-maven-plugin's names).
platform_classifier() {
  local os arch
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=osx ;;
    *) echo "generate.sh: unsupported OS $(uname -s)" >&2; exit 1 ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=x86_64 ;;
    aarch64 | arm64) arch=aarch_64 ;;
    *) echo "generate.sh: unsupported CPU $(uname -m)" >&2; exit 1 ;;
  esac
  echo "$os-$arch"
}

PROTOC_VERSION="$(pom_property protobuf.version)"
GRPC_PLUGIN_VERSION="$(pom_property grpc-java-plugin.version)"
CLASSIFIER="$(platform_classifier)"
GENERATORS="$JAVA_DIR/.generators"

# Fetches the executable GROUP:ARTIFACT:VERSION into .generators/ (once per version; the
# file name carries the version) and links .generators/bin/ARTIFACT, where buf.gen.yaml
# looks for it, to that file.
install_generator() {
  local group="$1" artifact="$2" version="$3"
  local file="$artifact-$version-$CLASSIFIER.exe"
  if [[ ! -x "$GENERATORS/$file" ]]; then
    echo "generate.sh: fetching $group:$artifact:$version ($CLASSIFIER)" >&2
    # Maven's output is shown only when it fails: even -q leaves colour codes behind.
    local log
    if ! log="$(mvn -q -B -f "$JAVA_DIR/pom.xml" dependency:copy \
      -Dartifact="$group:$artifact:$version:exe:$CLASSIFIER" -DoutputDirectory="$GENERATORS" 2>&1)"; then
      echo "$log" >&2
      echo "generate.sh: could not fetch $group:$artifact:$version:exe:$CLASSIFIER" >&2
      exit 1
    fi
    chmod +x "$GENERATORS/$file"
  fi
  mkdir -p "$GENERATORS/bin"
  ln -sfn "../$file" "$GENERATORS/bin/$artifact"
}

install_generator com.google.protobuf protoc "$PROTOC_VERSION"
install_generator io.grpc protoc-gen-grpc-java "$GRPC_PLUGIN_VERSION"

BUF="$ROOT/tools/node_modules/.bin/buf"
if [[ ! -x "$BUF" ]]; then
  echo "generate.sh: installing buf (make tools/node_modules/.bin/buf)" >&2
  make -C "$ROOT" --no-print-directory tools/node_modules/.bin/buf >&2
fi

# Generate into a fresh folder, then replace the destination's dev/tasklife/ (everything
# generated lives there, and nothing else), so that the code of a message or file deleted
# from proto/ disappears too.
STAGING="$(mktemp -d)"
trap 'rm -rf "$STAGING"' EXIT
(cd "$ROOT" && "$BUF" generate --template clients/java/buf.gen.yaml --output "$STAGING")
rm -rf "$OUT/dev/tasklife"
mkdir -p "$OUT/dev"
cp -R "$STAGING/dev/tasklife" "$OUT/dev/"
echo "generated Java code in $OUT" >&2
