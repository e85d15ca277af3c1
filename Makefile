# `make test` and `make demo` work on a fresh clone: they create .venv and install the pinned requirements.
# .venv's interpreter: the system's CPython 3.11 where there is one that can make a venv (a distribution builds its
# own with profile-guided and link-time optimisation), else python3 from the PATH. The service is CPU-bound Python: on
# this machine pyenv's build (no --enable-optimizations) answered new inputs at two thirds of Debian's rate (bench/
# README.md "service.py", the interpreter). `make PYTHON=...` picks another; `make clean` first to remake .venv.
SYSTEM_PYTHON := $(firstword $(foreach p,/usr/bin/python3.11 /usr/local/bin/python3.11,$(shell $(p) -c "import ensurepip, venv" 2>/dev/null && echo $(p))))
PYTHON ?= $(or $(SYSTEM_PYTHON),python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
WORKERS := $(shell echo $$(( $$(nproc) + 1 )))
# uv installs the pinned tree (parallel downloads, no resolver work to redo): a fresh .venv in seconds, where pip
# took minutes. pip installs uv itself, pinned here. The development tools (landing_dev/ and `scrapy sandbox`) are a
# distribution of their own, landing-dev (dev/pyproject.toml), installed editable beside the pinned tree; the project
# itself is not installed: Scrapy finds it beside scrapy.cfg, and the Scrapyd egg (setup.py) holds it alone.
UV := uv==0.13.9
# Bytecode is written by the first process that imports a module, for what is imported: compiling every installed
# file at install cost a fresh clone's `make test` 18 to 40 s, where writing it lazily costs a few. Where
# PYTHONDONTWRITEBYTECODE is set, nothing would write it, and each of the suite's hundreds of scrapy processes would
# compile Scrapy again: make's commands run without it.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: test demo demo-s3 sandbox-demo bench clean

$(STAMP): requirements.txt dev/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check $(UV)
	$(BIN)/uv pip install --quiet --python $(BIN)/python -r requirements.txt -e ./dev
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

# Debian's old headless shell: the browser driver's default Chromium where installed (landing.core.web.chromium), a
# fraction of the full browser's CPU per visit. chromium stays: the report's test opens report/index.html in it.
HEADLESS_SHELL := /usr/bin/chromium-headless-shell

$(HEADLESS_SHELL):
	@if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell >/dev/null \
		|| echo "make: could not install chromium-headless-shell; the browser driver runs chromium"; \
	else echo "make: chromium-headless-shell is missing and cannot be installed here (needs apt-get as root); the browser driver runs chromium"; fi

# Redis (Debian's redis-server) for the shared frontier's tests (landing/sampler/frontier_redis.py), which start their own.
REDIS := /usr/bin/redis-server

$(REDIS):
	@if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null \
		|| echo "make: could not install redis-server; the shared-frontier tests skip"; \
	else echo "make: redis-server is missing and cannot be installed here (needs apt-get as root); the shared-frontier tests skip"; fi

# The suite runs on every core (pytest-xdist), with one worker more than cores: its tests wait on the processes and
# servers they start about a fifth of the time, and a spare worker fills those waits. tests/conftest.py groups it so
# that a module's fixtures and each shared crawl are set up once, and hands out the longest groups first. Doctests are
# collected from every package's modules that have one (conftest.py): importing a module starts nothing.
test: $(STAMP) $(CHROMIUM) $(HEADLESS_SHELL) $(REDIS)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -q -n $(WORKERS) --dist loadgroup --no-loadscope-reorder --doctest-modules landing landing_dev bench tests

# The main job on the bundled offline sandbox: generate a world, serve it, crawl it into data/demo/ (its own store:
# scrapy crawl's default one, data/landing.db and data/blobs, is never touched), summarise, say what to run next.
demo: $(STAMP) $(CHROMIUM) $(HEADLESS_SHELL)
	$(BIN)/python -m landing_dev.demo

# The same, with the snapshots (bodies and their JSON) in S3: moto's S3 server, started on a free port; it keeps them
# in memory only, so the demo copies them to data/demo/blobs/ before it stops.
demo-s3: $(STAMP) $(CHROMIUM) $(HEADLESS_SHELL)
	$(BIN)/python -m landing_dev.demo --s3

# A tour of the sandbox alone: its APIs through the proxy and what its truth says.
sandbox-demo: $(STAMP)
	$(BIN)/python -m landing_dev.sandbox.demo

bench: $(STAMP)
	$(BIN)/python -m bench.sandbox_scale

clean:
	rm -rf $(VENV) data .pytest_cache dev/*.egg-info
