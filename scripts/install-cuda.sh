#!/usr/bin/env bash
# Install a CUDA 13.0 toolchain (nvcc, cudart, CCCL, NVVM) and NCCL (for programs
# built to run on several GPUs, `--multi-gpu on`) from PyPI into a git-ignored
# virtual environment at <repo>/.venv-cuda. Idempotent: when the toolchain is
# already there it only prints the nvcc path.
#
# Usage: scripts/install-cuda.sh        # prints the nvcc path on its last line
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv-cuda"
PY="${PYTHON:-python3}"

PKGS=(
  "nvidia-cuda-nvcc==13.0.*"
  "nvidia-cuda-runtime==13.0.*"
  "nvidia-cuda-crt==13.0.*"
  "nvidia-cuda-cccl==13.0.*"
  "nvidia-nvvm==13.0.*"
)
# NCCL has versions of its own (irglc finds it beside nvcc: nvidia/nccl).
NCCL_PKG="nvidia-nccl-cu13==2.32.*"

find_cu13() {
  # Print the nvidia/cu13 directory inside the venv, if any.
  local d
  for d in "$VENV"/lib/python3*/site-packages/nvidia/cu13; do
    if [[ -x "$d/bin/nvcc" ]]; then
      echo "$d"
      return 0
    fi
  done
  return 1
}

installed() {
  local cu13
  cu13="$(find_cu13)" || return 1
  [[ -x "$VENV/bin/python" ]] || return 1
  # Every package must be present at a 13.0 version.
  "$VENV/bin/python" - "${PKGS[@]}" <<'PYEOF' || return 1
import sys
from importlib import metadata
for spec in sys.argv[1:]:
    name = spec.split("==")[0]
    try:
        v = metadata.version(name)
    except metadata.PackageNotFoundError:
        sys.exit(1)
    if not v.startswith("13.0"):
        sys.exit(1)
PYEOF
  [[ -f "$cu13/include/cuda_runtime.h" ]] || return 1
  [[ -f "$cu13/../nccl/include/nccl.h" ]] || return 1
  [[ -d "$cu13/include/cub" || -d "$cu13/include/cccl/cub" ]] || return 1
}

if installed; then
  echo "install-cuda: CUDA 13.0 toolchain already installed in $VENV" >&2
else
  if [[ ! -x "$VENV/bin/python" ]]; then
    echo "install-cuda: creating virtual environment $VENV" >&2
    "$PY" -m venv "$VENV"
  fi
  echo "install-cuda: installing ${PKGS[*]} $NCCL_PKG" >&2
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${PKGS[@]}" "$NCCL_PKG"
  installed || { echo "error: CUDA toolchain install in $VENV is incomplete" >&2; exit 1; }
fi

CU13="$(find_cu13)"
echo "$CU13/bin/nvcc"
