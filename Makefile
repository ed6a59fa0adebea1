# Two commands from a fresh clone: `make reports` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NATIVE := $(VENV)/.native

.PHONY: reports verify test bench clean setup

setup: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --upgrade pip
	@$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	@touch $(STAMP)

# The compiled character reader (reportgen/pdf/native.py): built for the installed PyMuPDF
# where a C++ compiler exists; without one, one line says so and pages go through rawdict.
$(NATIVE): $(STAMP) reportgen/pdf/pagechars.cpp
	@$(BIN)/python -m reportgen.pdf.native
	@touch $(NATIVE)

reports: $(STAMP) $(NATIVE)
	@$(BIN)/reportgen build claims --out site

verify: $(STAMP) $(NATIVE)
	@$(BIN)/reportgen verify claims

# Bytecode is cached even where PYTHONDONTWRITEBYTECODE is set: every pytest worker and
# every `python -m reportgen` the tests start would otherwise compile (and assertion-rewrite)
# the same sources again. __pycache__/ is ignored by git.
test: $(STAMP) $(NATIVE)
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -n auto --dist loadscope

bench: $(STAMP) $(NATIVE)
	$(BIN)/python bench/site_bench.py
	$(BIN)/python bench/site_bench.py --scale
	$(BIN)/python bench/index_bench.py
	$(BIN)/python bench/retrieval/evaluate.py

clean:
	rm -rf site .pytest_cache .hypothesis
