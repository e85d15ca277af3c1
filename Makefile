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

# The browser driver's Chromium is Debian's (`playwright install` downloads are not used). Installed when missing;
# where it cannot be (no apt-get, not root), the browser tests say so and skip, and LANDING_DRIVER=auto (the
# default) works as http and warns.
CHROMIUM := /usr/bin/chromium

$(CHROMIUM):
	@if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null \
		|| echo "make: could not install chromium; browser tests skip, auto works as http"; \
	else echo "make: chromium is missing and cannot be installed here (needs apt-get as root); browser tests skip, auto works as http"; fi

# Redis (Debian's redis-server) for the shared frontier's tests (landing/sampler/frontier_redis.py), which start their own.
REDIS := /usr/bin/redis-server

$(REDIS):
	@if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null \
		|| echo "make: could not install redis-server; the shared-frontier tests skip"; \
	else echo "make: redis-server is missing and cannot be installed here (needs apt-get as root); the shared-frontier tests skip"; fi

test: $(STAMP) $(CHROMIUM) $(REDIS)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -q --doctest-modules landing/core tests

# The main job on the bundled offline sandbox: generate a world, serve it, crawl it, summarise.
demo: $(STAMP) $(CHROMIUM)
	$(BIN)/python -m landing_dev.demo

# The same, with the snapshots (bodies and their JSON) in S3: moto's S3 server, started on a free port.
demo-s3: $(STAMP) $(CHROMIUM)
	$(BIN)/python -m landing_dev.demo --s3

# A tour of the sandbox alone: its APIs through the proxy and what its truth says.
sandbox-demo: $(STAMP)
	$(BIN)/python -m landing_dev.sandbox.demo

bench: $(STAMP)
	$(BIN)/python bench/sandbox_scale.py

clean:
	rm -rf $(VENV) data .pytest_cache
