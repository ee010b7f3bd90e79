# Everything runs inside .venv, created on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DATA := ../shared/data
MODEL ?= models/en_ewt_upos

.PHONY: install test lint bench bench-systems clean

$(BIN)/lstmparse: setup.cfg setup.py pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

install: $(BIN)/lstmparse

test: install
	$(BIN)/python -m pytest -q

lint: install
	$(BIN)/ruff check .

# Parsing speed on EWT test, one core (see bench/README.md).
bench: install
	OMP_NUM_THREADS=1 taskset -c 0 $(BIN)/python bench/parse_speed.py --model $(MODEL) --input $(DATA)/ud/en_ewt/test.conllu

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache

# Every transition system on Hungarian Szeged (non-projective), two rows at a time.
bench-systems: install
	$(BIN)/python bench/transition_systems.py --treebank $(DATA)/ud/hu_szeged --epochs 20 --jobs 2
