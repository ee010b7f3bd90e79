# Everything runs inside .venv, created on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DATA := ../shared/data
MODEL ?= models/en_ewt_wp

.PHONY: install test test-all lint docs bench bench-spacy bench-memory bench-serve bench-confidence bench-training bench-systems bench-constituency bench-corpus bench-pipeline bench-pipeline-ensemble bench-pipeline-hu clean dynet-gpu

$(BIN)/lstmparse: setup.cfg setup.py pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[test,dask,glove,serve,udpipe,spacy]'
	touch $@

install: $(BIN)/lstmparse

# The fast suite (a few minutes on 2 cores); test-all adds the slow end-to-end tests (what CI runs).
test: install
	$(BIN)/python -m pytest -q -n 2 --dist loadfile -m "not slow"

test-all: install
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m mypy

# The documentation site (docs/, mkdocs.yml) into site/; strict: a broken link or API reference fails.
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The speed suite on EWT (parsing modes, training batch sizes, cost per sentence length):
# a Markdown table on stdout, the figures in bench/results.json (see bench/RESULTS.md).
bench: install
	$(BIN)/python bench/suite.py --model $(MODEL) --treebank $(DATA)/ud/en_ewt --json bench/results.json

# Training throughput of the stack-LSTM parser, one core: sentences per CPU-second and peak RSS by
# batching (one graph per sentence or lock-step), batch size and batch order, two settings (bench/RESULTS.md).
bench-training: install
	$(BIN)/python bench/training.py --treebank $(DATA)/ud/en_ewt --sentences 1000 --json bench/training.json

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache

# Every transition system on Hungarian Szeged (non-projective), two rows at a time.
bench-systems: install
	$(BIN)/python bench/transition_systems.py --treebank $(DATA)/ud/hu_szeged --epochs 20 --jobs 2

# parse-corpus on EWT train in 8 shards: 1 and 2 local workers, a 2-worker Dask cluster.
bench-corpus: install
	$(BIN)/python bench/corpus.py --treebank $(DATA)/ud/en_ewt/train.conllu --shards 8 --json bench/corpus.json

# The seq2seq constituency parser on GUM test: F1, repairs, F1 by length, speed at beam 1 and 10.
# the shipped constituency model on GUM test, one core (CONSTITUENCY_MODEL=DIR for another)
CONSTITUENCY_MODEL ?= models/en_gum_seq2seq
bench-constituency: install
	OMP_NUM_THREADS=1 taskset -c 0 $(BIN)/python bench/constituency.py --model $(CONSTITUENCY_MODEL) \
		--gold $(DATA)/const/gum/test.ptb

# How well parse --confidence is calibrated: reliability tables (greedy and k-best) on EWT dev.
bench-confidence: install
	OMP_NUM_THREADS=1 taskset -c 0 $(BIN)/python bench/confidence.py --model models/en_ewt \
		--gold $(DATA)/ud/en_ewt/dev.conllu

# Raw text to trees with the shipped pipelines, one core: CoNLL 2018 scores from raw text and from
# gold tokens with the tag and lemma columns blanked, and each stage's speed (models/README.md).
bench-pipeline: install
	OMP_NUM_THREADS=1 taskset -c 0 $(BIN)/python bench/pipeline.py --model models/en_ewt_pipeline \
		--gold $(DATA)/ud/en_ewt/test.conllu

# The second English pipeline (an ensemble of two parsers) at the beam it is meant for.
bench-pipeline-ensemble: install
	OMP_NUM_THREADS=1 taskset -c 0 $(BIN)/python bench/pipeline.py --model models/en_ewt_pipeline_ensemble \
		--beam 4 --gold $(DATA)/ud/en_ewt/test.conllu

# The same for Hungarian Szeged; its pipeline is not shipped (the treebank is CC BY-NC-SA), so it is
# trained first if HU_PIPELINE does not hold it (at most 80 minutes on one core, the whole pipeline's budget).
HU_PIPELINE ?= runs/hu_szeged_pipeline
$(HU_PIPELINE)/config.json:
	OMP_NUM_THREADS=1 taskset -c 0 $(BIN)/lstmparse train --arch pipeline --train $(DATA)/ud/hu_szeged/train.conllu \
		--dev $(DATA)/ud/hu_szeged/dev.conllu --model-dir $(HU_PIPELINE) --features words,pos,feats,chars \
		--system arc-swap --epochs 60 --max-minutes 80 --seed 1 --resume
bench-pipeline-hu: install $(HU_PIPELINE)/config.json
	OMP_NUM_THREADS=1 taskset -c 0 $(BIN)/python bench/pipeline.py --model $(HU_PIPELINE) \
		--gold $(DATA)/ud/hu_szeged/test.conllu

# DyNet with its CUDA backend, built from the dyNET source distribution on PyPI into .venv,
# replacing the CPU-only dyNET38 wheel (same Python API). Needs cmake, a C++ compiler,
# Debian's libeigen3-dev and the CUDA toolkit; about 20 minutes.
DYNET_VERSION ?= 2.1.2
EIGEN3_INCLUDE_DIR ?= /usr/include/eigen3
CUDA_TOOLKIT_ROOT_DIR ?= /usr/local/cuda
dynet-gpu: install
	test -d $(EIGEN3_INCLUDE_DIR) || { echo "Eigen not found: apt-get install libeigen3-dev, or set EIGEN3_INCLUDE_DIR"; exit 1; }
	test -x $(CUDA_TOOLKIT_ROOT_DIR)/bin/nvcc || { echo "nvcc not found: set CUDA_TOOLKIT_ROOT_DIR"; exit 1; }
	$(BIN)/pip install --quiet cython numpy cmake
	$(BIN)/pip uninstall --yes dyNET38
	BACKEND=cuda EIGEN3_INCLUDE_DIR=$(EIGEN3_INCLUDE_DIR) CUDA_TOOLKIT_ROOT_DIR=$(CUDA_TOOLKIT_ROOT_DIR) \
		$(BIN)/pip install --no-binary :all: --no-build-isolation dyNET==$(DYNET_VERSION)
	$(BIN)/python -c "import dynet_config; dynet_config.set_gpu(); import dynet; print(dynet.available_devices())"

# spaCy's nlp.pipe (lstmparse.spacy) against lstmparse parse on EWT test's raw text, one core: speed ratio, same trees.
bench-spacy: install
	OMP_NUM_THREADS=1 taskset -c 0 $(BIN)/python bench/spacy_speed.py --gold $(DATA)/ud/en_ewt/test.conllu

# Memory and start-up of every shipped model, each in a fresh process, one core: files, load, RSS, peak on its test set.
bench-memory: install
	OMP_NUM_THREADS=1 taskset -c 0 $(BIN)/python bench/memory.py

# lstmparse serve with 2 workers and the default model on 127.0.0.1: resident memory over 1,000 requests.
bench-serve: install
	$(BIN)/python bench/serve_memory.py --workers 2 --requests 1000
