#!/bin/sh
# Fetch the cuBLAS, cuFFT, cuRAND and cuSPARSE headers for CUDA 13.0 from their PyPI wheels, so that
# tests/test_corpus.py can compile the corpus projects that use those libraries with nvcc. Only the include/
# folders are kept. Destination: $1, or ~/.cache/porter/cuda-lib-headers (where the test looks by default;
# CUDA_LIB_INCLUDE can point it elsewhere).
set -eu
dest=${1:-"$HOME/.cache/porter/cuda-lib-headers"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$tmp" \
  --platform manylinux_2_27_x86_64 --platform manylinux2014_x86_64 --python-version 3.11 \
  "nvidia-cublas==13.0.2.14" "nvidia-cufft==12.0.0.61" "nvidia-curand==10.4.5.25" "nvidia-cusparse==12.6.3.3"
for wheel in "$tmp"/*.whl; do
  python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
z.extractall(sys.argv[2], [n for n in z.namelist() if "/include/" in n])' "$wheel" "$tmp/x"
done
mkdir -p "$dest"
cp -r "$tmp"/x/nvidia/cu13/include "$dest/"
echo "CUDA library headers in $dest/include"
