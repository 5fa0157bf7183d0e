# Two set-up commands: `make demo` and `make test`. Both create .venv and install the project into it.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEMO_OUT ?= out/demo

.PHONY: demo test test-fast typecheck venv install-dev lint clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

venv: $(BIN)/python

# The core, the two adapter distributions and the study (packages/README.md), all editable and in one pip
# command, so that the core's langchain/llamaindex/eval extras resolve to the distributions here rather than
# to an index.
DISTS := packages/langchain-cbmemory packages/llama-index-memory-cbmemory packages/cbmemory-eval

$(VENV)/.installed-dev: pyproject.toml $(DISTS:%=%/pyproject.toml) | $(BIN)/python
	$(BIN)/pip install --quiet -e ".[dev]" $(DISTS:%=-e %)
	touch $@

install-dev: $(VENV)/.installed-dev

# What `make demo` needs, much less than the dev install: the core (with langchain-openai, for a real model)
# and the LangChain adapter; nothing when the dev install is already there.
$(VENV)/.installed-demo: pyproject.toml packages/langchain-cbmemory/pyproject.toml | $(BIN)/python
	if [ ! -f $(VENV)/.installed-dev ]; then $(BIN)/pip install --quiet -e ".[openai]" -e packages/langchain-cbmemory; fi
	touch $@

# The agent demo, offline: the package's own conversation, a LangChain agent with memory, a scripted model
# (a real one with CBMEMORY_LLM_BASE_URL). With the study installed it is also `cbmemory demo`; the LoCoMo
# demo is `cbmemory demo --data FILE` (make install-dev).
demo: $(VENV)/.installed-demo
	$(BIN)/python -m langchain_cbmemory.demo --out $(DEMO_OUT)

# Every tier but the slow soaks (tiers: tests/conftest.py; README "Testing").
test: install-dev
	$(BIN)/python -m pytest -q -m "not slow"

# The fast tier: pure unit tests and the store contract (no model, no subprocess), less those marked as over
# 2 s (heavy; slow, process, packaging are never unit or contract); under a minute on 2 cores.
test-fast: install-dev
	$(BIN)/python -m pytest -q -m "(unit or contract) and not (slow or heavy or process or packaging)"

typecheck: install-dev
	$(BIN)/mypy

lint: install-dev
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) out .pytest_cache
