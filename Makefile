# `make test` and `make demo` work on a fresh clone: they create .venv and install the pinned requirements.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test demo sandbox-demo bench clean

$(STAMP): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest -q tests

# The sampler (issue 3) will make this the main job; for now it builds and serves a sandbox world.
demo: $(STAMP)
	$(BIN)/python -m landing.sandbox.demo

bench: $(STAMP)
	$(BIN)/python bench/sandbox_scale.py

clean:
	rm -rf $(VENV) data .pytest_cache
