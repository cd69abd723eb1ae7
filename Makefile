# Two commands on a fresh machine:  make run  and  make test.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
HOME_DIR ?= .ltm
STAMP  := $(VENV)/.installed

.PHONY: run test install browser bench clean reliability

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall when pyproject.toml changes. torch==2.13.0 (CPU) is taken from the machine's wheel folder.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[local,static,dev,ui,dask]'
	touch $(STAMP)

install: $(STAMP)

## make run: set up, ingest this repository into ./.ltm, print what it found and one answer
run: install
	$(BIN)/ltm ingest . --home $(HOME_DIR)
	$(BIN)/ltm stats --home $(HOME_DIR)
	$(BIN)/ltm reconcile --home $(HOME_DIR)
	$(BIN)/ltm query "how is the Kuzu graph built from the lake" --home $(HOME_DIR) --top-k 3

# The web UI test drives Debian's chromium (never a browser download): install it where it is
# missing and we may (root with apt-get); elsewhere the test says what to install.
CHROMIUM ?= /usr/bin/chromium
browser:
	@if [ ! -x $(CHROMIUM) ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing chromium and chromium-driver (for the web UI test)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	fi

## make test: set up and run the whole suite, then the graph, retrieval, memory and reconciliation
## tests again on the LadybugDB engine (#23; about 35 s on 2 cores)
LADYBUG_TESTS ?= tests/graph tests/retrieval tests/memory tests/server tests/test_vectors.py
test: install browser
	$(BIN)/python -m pytest
	LTM_GRAPH_ENGINE=ladybug $(BIN)/python -m pytest -q $(LADYBUG_TESTS)

clean:
	rm -rf $(VENV) $(HOME_DIR) .pytest_cache

## make reliability: the whole reliability suite, heavy cases included (kill -9, full disk, 50,000 commits; RELIABILITY.md)
reliability: install
	$(BIN)/python -m pytest tests/reliability -m "slow or not slow" -s --durations=0
