#!/usr/bin/env bash
# Installs the pinned NVIDIA command-line tools (nvcc, ptxas, nvlink, cuobjdump,
# nvdisasm, cicc, headers, libcudadevrt.a, libNVVM and nvJitLink for LTO) from
# their PyPI wheels into one folder.
# Idempotent: a folder that already holds every pinned wheel is left alone.
# Prints the folder that holds the binaries (…/nvidia/cu13/bin) on stdout.
# `--samples` also installs the headers and libraries some CUDA samples need
# (NVRTC, cuRAND, NVTX, the profiler API) for scripts/realworld-check.
set -euo pipefail

home="${CULDB_CUDA_HOME:-$HOME/.cache/culdb/cuda-13.5}"
wheels=(
  nvidia-cuda-nvcc==13.5.37
  nvidia-cuda-cuobjdump==13.5.37
  nvidia-cuda-nvdisasm==13.5.37
  nvidia-nvvm==13.5.37
  nvidia-cuda-crt==13.5.37
  nvidia-cuda-runtime==13.5.37
  nvidia-cuda-cccl==13.3.5.0.6
  nvidia-nvjitlink==13.5.37
)
bin="$home/nvidia/cu13/bin"
stamp="$home/.installed"
want="$(printf '%s\n' "${wheels[@]}")"

extras=(
  nvidia-cuda-nvrtc==13.5.37
  nvidia-curand==10.4.5.25
  nvidia-nvtx==13.5.25
  nvidia-cuda-profiler-api==13.5.25
)
install_extras() {
  local stamp_x="$home/.installed-samples" want_x
  want_x="$(printf '%s\n' "${extras[@]}")"
  [[ -f "$stamp_x" && "$(cat "$stamp_x")" == "$want_x" ]] && return 0
  mkdir -p "$home/wheels-samples"
  for w in "${extras[@]}"; do
    python3 -m pip download --quiet --no-deps --only-binary=:all: \
      --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
      --platform manylinux_2_27_x86_64 --platform manylinux_2_28_x86_64 \
      --python-version 3.11 -d "$home/wheels-samples" "$w" >&2
  done
  for whl in "$home"/wheels-samples/*.whl; do
    python3 -m zipfile -e "$whl" "$home" >&2
  done
  printf '%s\n' "$want_x" >"$stamp_x"
}

if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$bin/nvlink" ]]; then
  [[ "${1:-}" == --samples ]] && install_extras
  echo "$bin"
  exit 0
fi

mkdir -p "$home/wheels"
for w in "${wheels[@]}"; do
  name="${w%%==*}"
  if ! ls "$home/wheels/${name//-/_}"-*.whl >/dev/null 2>&1; then
    python3 -m pip download --quiet --no-deps --only-binary=:all: \
      --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
      --platform manylinux_2_27_x86_64 --platform manylinux_2_28_x86_64 \
      --python-version 3.11 -d "$home/wheels" "$w" >&2
  fi
done
for whl in "$home"/wheels/*.whl; do
  python3 -m zipfile -e "$whl" "$home" >&2
done
chmod +x "$bin"/* "$home"/nvidia/cu13/nvvm/bin/* 2>/dev/null || true
# nvlink -dlto opens <nvvmpath>/lib64/libnvvm.so and nvcc passes
# -nvvmpath=<bin>/../nvvm: give the wheel's nvvm/ that lib64/.
mkdir -p "$home/nvidia/cu13/nvvm/lib64"
ln -sf ../../lib/libnvvm.so.4 "$home/nvidia/cu13/nvvm/lib64/libnvvm.so"
printf '%s\n' "$want" >"$stamp"
[[ "${1:-}" == --samples ]] && install_extras
echo "$bin"
