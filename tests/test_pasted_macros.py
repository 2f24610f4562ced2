"""Check macros that paste CUDA's prefix onto their argument (`cuda(Malloc(&p, n))` under `#define cuda(fn)
... cuda##fn ...`, as The CUDA Handbook writes every runtime call), and a project's own HIP layer that typedefs
CUDA's names (`typedef hipArray cudaArray;`). Both came from real public code: the handbook built 2 of its 20
units before."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.hip_compile import Compiler, compiler_params, need

from porter.translate import PastedMacro, TranslateOptions, find_pasted_macros, translate
from porter.translate.pasted_macros import unpaste

CHECK_CUDA = b"""#pragma once
#include <cuda_runtime.h>
#include <stdio.h>
#define CU_TRY(call) do { \\
    status = (cuda##call); \\
    if (status != cudaSuccess) { fprintf(stderr, "%s: %s\\n", #call, cudaGetErrorString(status)); goto Error; } \\
  } while (0)
"""
# the project's own HIP branch: pastes HIP's prefix, and names CUDA's types as HIP's
CHECK_HIP = b"""#pragma once
#include <hip/hip_runtime.h>
#define CU_TRY(call) do { status = (hip##call); if (status != hipSuccess) goto Error; } while (0)
typedef hipError_t cudaError_t;
typedef hipStream_t cudaStream_t;
typedef hipArray cudaArray;
"""
CHECK = b"""#pragma once
#ifdef __HIPCC__
#include "check_hip.h"
#else
#include "check_cuda.h"
#endif
"""
MAIN = b"""#include "check.h"
__global__ void fill(float* p, int n) { int i = threadIdx.x; if (i < n) p[i] = 2.0f * i; }
// the project's own function, one per branch, called through the macro as CU_TRY(Prepare(...))
#ifdef __HIPCC__
static hipError_t hipPrepare(float* p) { return hipMemset(p, 0, 4); }
#else
static cudaError_t cudaPrepare(float* p) { return cudaMemset(p, 0, 4); }
#endif
int main() {
  cudaError_t status; float* d = 0; float* h = 0; float* mapped = 0; cudaEvent_t ev; cudaStream_t s;
  cudaArray* arr = 0;
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  CU_TRY(SetDeviceFlags(cudaDeviceMapHost));
  CU_TRY(Malloc(&d, 64 * sizeof(float)));
  CU_TRY(Prepare(d));
  CU_TRY(HostAlloc(&h, 64 * sizeof(float), cudaHostAllocMapped));
  CU_TRY(HostGetDevicePointer(&mapped, h, 0));
  CU_TRY(EventCreate(&ev, cudaEventBlockingSync));   // CUDA's C++ overload: flags as a second argument
  CU_TRY(StreamCreate(&s));
  CU_TRY(MallocArray(&arr, &desc, 64));
  fill<<<1, 64, 0, s>>>(d, 64);
  CU_TRY(EventRecord(ev, s));
  CU_TRY(EventSynchronize(ev));
  CU_TRY(Memcpy(h, d, 64 * sizeof(float), cudaMemcpyDeviceToHost));
  // CU_TRY(Free(d)) in a comment stays as written
Error:
  cudaFree(d);
  return status != cudaSuccess;
}
"""


def test_definitions_agree_across_the_tree_and_hip_ones_follow_the_cuda_one() -> None:
    assert find_pasted_macros([CHECK_CUDA, CHECK_HIP]) == (PastedMacro("CU_TRY", 0, "cuda", "hip"),)
    assert find_pasted_macros([CHECK_CUDA]) == (PastedMacro("CU_TRY", 0, "cuda"),)
    # alone, a HIP-prefix definition names no CUDA call: nothing to undo
    assert find_pasted_macros([CHECK_HIP]) == ()
    # two CUDA prefixes for one name: which one a call site means is unknown, so it is left as written
    other = b"#define CU_TRY(call) check(cu##call)\n"
    assert find_pasted_macros([CHECK_CUDA, other]) == ()
    # ... unless one is the macro's own name (a `cu` macro whose debug definition pastes `cuda` by mistake)
    cu = [b"#define cu(fn) check(cu##fn)\n", b"#ifdef DEBUG\n#define cu(fn) log(cuda##fn)\n#endif\n",
          b"#define cu(fn) check(hip##fn)\n"]
    assert find_pasted_macros(cu) == (PastedMacro("cu", 0, "cu", "hip"),)
    # variadic and second-argument pastes; a paste that builds a variable's name is not a call
    source = (b"#define cuda(...) check((cuda##__VA_ARGS__), __FILE__)\n"
              b"#define call2(tag, fn, ...) run(tag, cufft##fn(__VA_ARGS__))\n"
              b"#define timer(event) cudaEventRecord(cuda##event##Start_)\n")
    assert find_pasted_macros([source]) == (PastedMacro("call2", 1, "cufft"), PastedMacro("cuda", 0, "cuda"))


def test_call_sites_get_the_whole_name_and_definitions_paste_nothing() -> None:
    macros = (PastedMacro("cuda", 0, "cuda"),)
    source = (b"#define cuda(fn) check(cuda##fn)\n"
              b"#define WRAP(x) cuda(x)\n"  # a use inside another macro: its argument is a parameter
              b"void f(float** p) {\n"
              b"  cuda( Malloc(p, 4) ); /* cuda(Free(p)) */ const char* s = \"cuda(Free(p))\";\n"
              b"  obj.cuda(Free(p)); cuda(EventRecord(e, 0));\n"
              b"}\n")
    out, lines = unpaste(source, macros)
    assert out == (b"#define cuda(fn) check(fn)\n"
                   b"#define WRAP(x) cuda(x)\n"
                   b"void f(float** p) {\n"
                   b"  cuda( cudaMalloc(p, 4) ); /* cuda(Free(p)) */ const char* s = \"cuda(Free(p))\";\n"
                   b"  obj.cuda(Free(p)); cuda(cudaEventRecord(e, 0));\n"
                   b"}\n")
    assert lines == [4, 5]
    # a name no CUDA API has takes the HIP prefix where the project's HIP definition pastes one
    own = b"#define cuda(fn) check(hip##fn)\nvoid g() { cuda(Reset()); cuda(Free(p)); }\n"
    out, _ = unpaste(own, (PastedMacro("cuda", 0, "cuda", "hip"),), lambda name: name == "cudaFree")
    assert out == b"#define cuda(fn) check(fn)\nvoid g() { cuda(hipReset()); cuda(cudaFree(p)); }\n"
    # the argument a two-argument macro pastes onto
    out, _ = unpaste(b"#define call2(tag, fn) run(tag, cufft##fn)\ncall2(\"plan\", Plan1d(&p, n, CUFFT_C2C, 1));\n",
                     (PastedMacro("call2", 1, "cufft"),))
    assert out == b"#define call2(tag, fn) run(tag, fn)\ncall2(\"plan\", cufftPlan1d(&p, n, CUFFT_C2C, 1));\n"


def test_a_file_alone_is_translated_through_its_own_macro() -> None:
    out = translate(CHECK_CUDA + b"void g(cudaEvent_t* e) { cudaError_t status; CU_TRY(EventCreate(e, "
                    b"cudaEventBlockingSync)); Error: ; }\n", TranslateOptions(target="gfx942")).output.decode()
    assert "status = (call);" in out
    assert "CU_TRY(hipEventCreateWithFlags(e, hipEventBlockingSync));" in out


def test_typedefs_of_cuda_names_keep_the_name_they_declare() -> None:
    """Renamed, `typedef hipArray cudaArray;` became `typedef hipArray porter_tex_array;` on a GPU without image
    support (a redefinition of the texture shim's type) and `typedef hipStream_t hipStream_t;` elsewhere."""
    source = (b"typedef hipArray cudaArray;\nusing cudaStream_t = hipStream_t;\ntypedef int cudaError_t;\n"
              b"cudaArray* a; cudaStream_t s; cudaError_t e;\n")
    out = translate(source, TranslateOptions(target="gfx942")).output.decode()
    assert "typedef hipArray cudaArray;\nusing cudaStream_t = hipStream_t;\ntypedef int cudaError_t;\n" in out
    assert "porter_tex_array* a; hipStream_t s; hipError_t e;" in out


def _tree(root: Path) -> Path:
    src = root / "book"
    (src / "lib").mkdir(parents=True)
    (src / "lib" / "check.h").write_bytes(CHECK)
    (src / "lib" / "check_cuda.h").write_bytes(CHECK_CUDA)
    (src / "lib" / "check_hip.h").write_bytes(CHECK_HIP)
    (src / "main.cu").write_bytes(MAIN.replace(b'"check.h"', b'"lib/check.h"'))
    return src


def test_convert_undoes_a_header_macro_in_every_source(tmp_path: Path) -> None:
    _tree(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "porter", "convert", "book", "-o", "out", "--no-build",
                           "--target", "gfx942"], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    main = (tmp_path / "out" / "main.cu").read_text()
    assert "CU_TRY(hipEventCreateWithFlags(&ev, hipEventBlockingSync));" in main
    assert "CU_TRY(hipMalloc(&d, 64 * sizeof(float)));" in main
    # not a CUDA name: the prefix the project's HIP branch pasted, which names its HIP function
    assert "CU_TRY(hipPrepare(d));" in main
    assert "// CU_TRY(Free(d)) in a comment stays as written" in main
    assert "status = (call);" in (tmp_path / "out" / "lib" / "check_hip.h").read_text()
    assert "status = (call);" in (tmp_path / "out" / "lib" / "check_cuda.h").read_text()


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_the_ported_tree_compiles(compiler: Compiler | None, tmp_path: Path) -> None:
    compiler = need(compiler)
    _tree(tmp_path)
    target = compiler.arches[0]
    proc = subprocess.run([sys.executable, "-m", "porter", "convert", "book", "-o", "out", "--no-build",
                           "--target", target, "--rocm", str(compiler.rocm)],
                          cwd=tmp_path, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    built = compiler.compile(tmp_path / "out" / "main.cu")
    assert built.returncode == 0, built.stderr[-4000:]
