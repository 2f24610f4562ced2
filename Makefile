# porter: `make demo` and `make test` are the two commands a new user needs (see README).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
HIP_PACKAGES := hipcc libamdhip64-dev libhiprand-dev librocrand-dev libhipsparse-dev librocprim-dev libomp-15-dev
BUILD_PACKAGES := cmake make clang-15 git libgl-dev libopenmpi-dev
export HIP_PLATFORM := amd

.PHONY: venv hip-toolchain rocm demo test lint goldens bench clean

$(BIN)/porter: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

venv: $(BIN)/porter

# Debian's HIP compiler (ROCm 5.2, clang 15): compiles for gfx90a and older. cmake and make for the build-file tests.
hip-toolchain:
	@if command -v dpkg >/dev/null 2>&1 && dpkg -s $(HIP_PACKAGES) $(BUILD_PACKAGES) >/dev/null 2>&1; then \
	  echo "hip toolchain: $$(command -v hipcc)"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(HIP_PACKAGES) $(BUILD_PACKAGES); \
	elif command -v sudo >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then \
	  sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(HIP_PACKAGES) $(BUILD_PACKAGES); \
	else echo "hipcc not installed and cannot install it here: apt-get install -y $(HIP_PACKAGES)"; fi

# ROCm 6.4 (Debian sid's packages, compile-only, ~850 MB): `porter toolchain install`, kept in
# ~/.cache/porter/toolchains/rocm-6.4 and reused when it still compiles for gfx942 and gfx950. Needs mmdebstrap.
ROCM_TOOLCHAIN ?= 6.4
rocm: venv
	@if ! command -v mmdebstrap >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap; \
	  elif command -v sudo >/dev/null 2>&1; then sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap; \
	  else echo "mmdebstrap not installed and cannot install it here: apt-get install -y mmdebstrap"; exit 1; fi; \
	fi
	$(BIN)/porter toolchain install --rocm $(ROCM_TOOLCHAIN)

demo: venv
	$(BIN)/python scripts/demo.py

lint: venv
	$(BIN)/ruff check porter tests scripts bench

test: venv hip-toolchain lint
	$(BIN)/python -m pytest -q -n auto

goldens: venv
	$(BIN)/python scripts/regen_goldens.py

bench: venv
	$(BIN)/python bench/translate_bench.py

clean:
	rm -rf $(VENV) demo-out bench/out .pytest_cache .ruff_cache
