"""Regenerates the committed client code from proto/. `make generate` runs it; so does the drift test.

Usage: python tools/generate.py [--python-out DIR]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
PYTHON_OUT = ROOT / "clients" / "python" / "src"
# Vendored google.rpc protos that proto/ imports; their Python code comes from googleapis-common-protos.
GOOGLEAPIS = ROOT / "third_party" / "googleapis"


def proto_files() -> list[Path]:
    return sorted(PROTO_ROOT.rglob("*.proto"))


def generate_python(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    well_known = Path(protoc.__file__).parent / "_proto"
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"-I{GOOGLEAPIS}",
        f"-I{well_known}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        *(str(p.relative_to(PROTO_ROOT)) for p in proto_files()),
    ]
    code = protoc.main(args)
    if code != 0:
        raise SystemExit(f"protoc failed with exit code {code}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python-out", type=Path, default=PYTHON_OUT)
    args = parser.parse_args()
    generate_python(args.python_out)
    print(f"generated Python code in {args.python_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
