# porter: `make demo` and `make test` are the two commands a new user needs (see README).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
HIP_PACKAGES := hipcc libamdhip64-dev libhiprand-dev librocrand-dev libhipsparse-dev librocprim-dev
export HIP_PLATFORM := amd

.PHONY: venv hip-toolchain demo test lint goldens bench clean

$(BIN)/porter: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

venv: $(BIN)/porter

# Debian's HIP compiler (ROCm 5.2, clang 15): compiles for gfx90a and older.
hip-toolchain:
	@if command -v hipcc >/dev/null 2>&1; then echo "hipcc: $$(command -v hipcc)"; \
	elif [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(HIP_PACKAGES); \
	elif command -v sudo >/dev/null 2>&1; then sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(HIP_PACKAGES); \
	else echo "hipcc not found and not root: install with apt-get install -y $(HIP_PACKAGES)"; fi

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
