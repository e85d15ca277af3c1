# `make test` and `make demo` work on a fresh clone: they create .venv and install the pinned requirements.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test demo demo-s3 sandbox-demo bench clean

$(STAMP): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest -q tests

# The main job on the bundled offline sandbox: generate a world, serve it, crawl it, summarise.
demo: $(STAMP)
	$(BIN)/python -m landing.demo

# The same, with the snapshots (bodies and their JSON) in S3: moto's S3 server, started on a free port.
demo-s3: $(STAMP)
	$(BIN)/python -m landing.demo --s3

# A tour of the sandbox alone: its APIs through the proxy and what its truth says.
sandbox-demo: $(STAMP)
	$(BIN)/python -m landing.sandbox.demo

bench: $(STAMP)
	$(BIN)/python bench/sandbox_scale.py

clean:
	rm -rf $(VENV) data .pytest_cache
