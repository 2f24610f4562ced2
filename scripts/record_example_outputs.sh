#!/usr/bin/env bash
# Build every bundled CUDA example with nvcc and record its output on a real NVIDIA GPU.
#
#   scripts/record_example_outputs.sh [OUT_DIR]     # on the GPU machine, from the repository root
#   tar -xf OUT_DIR/expected_outputs.tar -C examples   # back here: installs examples/<name>/expected_output.txt
#
# OUT_DIR (default: $OUT, else ./example-outputs) receives:
#   expected_outputs.tar  <name>/expected_output.txt for every example that built, ran and exited 0
#   outputs.txt           every example's stdout, stderr and exit status between "===== <name> =====" lines
#   environment.txt       GPU, driver, nvcc, CMake and which CUDA libraries were found
# The examples are copied to a scratch directory first, so the working tree stays clean.
# Exit status: 0 when every example built, ran and printed PASS; 1 otherwise.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-${OUT:-$repo/example-outputs}}
arch=${CUDA_ARCH:-90}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

nvcc_path=$(command -v nvcc || true)
if [[ -z $nvcc_path ]]; then
    echo "nvcc not found on PATH" >&2
    exit 1
fi
if [[ -z ${CUDA_HOME:-} ]]; then
    # nvcc on PATH may be a wrapper script: take the toolkit that actually has the headers.
    for candidate in "$(dirname "$(dirname "$(readlink -f "$nvcc_path")")")" /usr/local/cuda /opt/cuda; do
        if [[ -f $candidate/include/cuda_runtime.h ]]; then
            CUDA_HOME=$candidate
            break
        fi
    done
fi
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}

# Fallback for toolkits whose math libraries come from pip wheels (nvidia-cublas, ...) instead of CUDA_HOME:
# put their include/ on CPATH and an unversioned libX.so link on LIBRARY_PATH.
mkdir -p "$work/lib"
for lib in cublas curand cufft cusparse; do
    header=$lib.h
    [[ $lib == cublas ]] && header=cublas_v2.h
    [[ -f $CUDA_HOME/include/$header ]] && continue
    found=$(find /usr/local/lib /usr/lib /opt -path '*nvidia*' -name "$header" -print -quit 2>/dev/null)
    [[ -n $found ]] || continue
    incdir=$(dirname "$found")
    export CPATH=$incdir${CPATH:+:$CPATH}
    so=$(find "$(dirname "$incdir")" -name "lib$lib.so*" -print -quit 2>/dev/null)
    if [[ -n $so ]]; then
        ln -sf "$so" "$work/lib/lib$lib.so"
        export LIBRARY_PATH=$work/lib${LIBRARY_PATH:+:$LIBRARY_PATH}
        export LD_LIBRARY_PATH=$(dirname "$so")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    fi
done

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>&1
    "$nvcc_path" --version | tail -2
    cmake --version 2>&1 | head -1
    echo "CUDA_HOME: $CUDA_HOME"
    for header in cublas_v2.h curand.h curand_kernel.h cufft.h cusparse.h cooperative_groups.h; do
        found=$(find "$CUDA_HOME/include" "$CUDA_HOME/targets" ${CPATH:+${CPATH//:/ }} -name "$header" -print -quit 2>/dev/null)
        echo "header $header: ${found:-MISSING}"
    done
} >"$out/environment.txt" 2>&1
cat "$out/environment.txt"

cp -r "$repo/examples" "$work/examples"
rm -rf "$work/examples/ci"
names=()
for dir in "$work"/examples/*/; do
    name=$(basename "$dir")
    if [[ -f $dir/CMakeLists.txt || -f $dir/Makefile ]]; then
        names+=("$name")
    fi
done

# Build all examples in parallel; each writes its own log.
build() {
    local name=$1 dir=$work/examples/$1
    if [[ -f $dir/CMakeLists.txt ]]; then
        cmake -S "$dir" -B "$dir/build" -DCMAKE_CUDA_ARCHITECTURES="$arch" -DCMAKE_BUILD_TYPE=Release &&
            cmake --build "$dir/build" -j 4 &&
            cp "$dir/build/$name" "$dir/$name"
    elif grep -q '^ARCH ?=' "$dir/Makefile"; then
        make -C "$dir" ARCH="-arch=sm_$arch"
    else
        make -C "$dir"  # the Makefile picks its own -gencode list
    fi
}
for name in "${names[@]}"; do
    (build "$name" >"$work/$name.build.log" 2>&1; echo $? >"$work/$name.build.rc") &
done
wait

# Run one at a time so the examples do not share the GPU.
status=0
: >"$out/outputs.txt"
mkdir -p "$work/expected"
for name in "${names[@]}"; do
    dir=$work/examples/$name
    build_rc=$(cat "$work/$name.build.rc")
    rc=build-failed
    if [[ $build_rc == 0 ]]; then
        (cd "$dir" && timeout 300 "./$name" >"$work/$name.stdout" 2>"$work/$name.stderr")
        rc=$?
        if [[ $rc == 0 ]] && grep -qx PASS "$work/$name.stdout"; then
            mkdir -p "$work/expected/$name"
            cp "$work/$name.stdout" "$work/expected/$name/expected_output.txt"
        else
            status=1
        fi
    else
        status=1
    fi
    {
        echo "===== $name ====="
        echo "--- build (rc=$build_rc) ---"
        [[ $build_rc == 0 ]] || cat "$work/$name.build.log"
        echo "--- stdout (rc=$rc) ---"
        cat "$work/$name.stdout" 2>/dev/null
        echo "--- stderr ---"
        cat "$work/$name.stderr" 2>/dev/null
    } >>"$out/outputs.txt"
    echo "$name: build rc=$build_rc, run rc=$rc"
done
tar -cf "$out/expected_outputs.tar" -C "$work/expected" .
exit $status
