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
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[test,dask,glove,encoder,serve,udpipe,spacy]'
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
# gold tokens with the tag and lemma columns blanked, and each stage's speed.
bench-pipeline: install
	OMP_NUM_THREADS=1 taskset -c 0 $(BIN)/python bench/pipeline.py --model models/en_ewt_pipeline \
		--gold $(DATA)/ud/en_ewt/test.conllu

# The second English pipeline (an ensemble of two parsers) at the beam it is meant for.
bench-pipeline-ensemble: install
	OMP_NUM_THREADS=1 taskset -c 0 $(BIN)/python bench/pipeline.py --model models/en_ewt_pipeline_ensemble \
		--beam 4 --gold $(DATA)/ud/en_ewt/test.conllu

# The same for the shipped Hungarian pipeline (its own test set, the encoder's words in context).
bench-pipeline-hu: install
	OMP_NUM_THREADS=1 taskset -c 0 $(BIN)/python bench/pipeline.py --model models/hu_szeged_pipeline \
		--gold $(DATA)/ud/hu_szeged/test.conllu

# DyNet with its CUDA backend in .venv instead of the CPU-only dyNET38 wheel (the same Python API;
# docs/gpu.md): the dyNET source distribution on PyPI, built with CMake for one GPU architecture after
# five small fixes for CUDA 12-13 and Eigen 3.4 (Debian's libeigen3-dev), then its Cython extension
# for this Python.  Needs cmake, a C++ compiler and the CUDA toolkit with cuBLAS and cuRAND in
# CUDA_TOOLKIT_ROOT_DIR; about 12 minutes on one core.  Verified on an H100 (bench/RESULTS.md).
DYNET_VERSION ?= 2.1.2
EIGEN3_INCLUDE_DIR ?= /usr/include/eigen3
CUDA_TOOLKIT_ROOT_DIR ?= /usr/local/cuda
# the GPU's compute capability without the dot (nvidia-smi --query-gpu=compute_cap): 80 A100, 89 L4, 90 H100
CUDA_ARCH ?= 90
# the CPU code's -march: x86-64-v3 for a library built on one machine and run on another
DYNET_MARCH ?= native
JOBS ?= 2
GPU_BUILD := build/dynet-gpu
GPU_SRC := $(GPU_BUILD)/dyNET-$(DYNET_VERSION)
TENSOR_REDUCTION := $(GPU_BUILD)/eigen3/unsupported/Eigen/CXX11/src/Tensor/TensorReduction.h
dynet-gpu: install
	test -d $(EIGEN3_INCLUDE_DIR) || { echo "Eigen not found: apt-get install libeigen3-dev, or set EIGEN3_INCLUDE_DIR"; exit 1; }
	test -x $(CUDA_TOOLKIT_ROOT_DIR)/bin/nvcc || { echo "nvcc not found: set CUDA_TOOLKIT_ROOT_DIR"; exit 1; }
	rm -rf $(GPU_BUILD) && mkdir -p $(GPU_BUILD)
	$(BIN)/pip download --quiet --no-deps --no-binary :all: dyNET==$(DYNET_VERSION) -d $(GPU_BUILD)
	tar xzf $(GPU_BUILD)/dyNET-$(DYNET_VERSION).tar.gz -C $(GPU_BUILD)
	# CUDA 12 and later compile C++17 only; the CPU code's -march.
	sed -i 's/-std=c++11/-std=c++17/g; s/-march=native/-march=$(DYNET_MARCH)/' $(GPU_SRC)/CMakeLists.txt $(GPU_SRC)/dynet/CMakeLists.txt
	# Eigen 3.4 renamed CudaStreamDevice; CUDA 13 dropped cudaDeviceProp::memoryClockRate (only reported).
	sed -i 's/CudaStreamDevice/GpuStreamDevice/g' $(GPU_SRC)/dynet/devices.h $(GPU_SRC)/dynet/devices.cc
	sed -i 's/prop\.memoryClockRate/0/g' $(GPU_SRC)/dynet/cuda.cc
	# A quiet start, as the dyNET38 wheel's: DyNet's report (seed, memory, devices) would come before
	# lstmparse's own line on stderr.  Errors are exceptions, which still reach Python.
	sed -i -E 's/(^|[^:[:alnum:]_])cerr <</\1dynet_quiet <</' $(GPU_SRC)/dynet/init.cc $(GPU_SRC)/dynet/cuda.cc
	sed -i '/^using namespace std;/a namespace { std::ostream dynet_quiet(nullptr); }' $(GPU_SRC)/dynet/init.cc $(GPU_SRC)/dynet/cuda.cc
	# Eigen's recursive tree reduction makes ptxas refuse DyNet's reduction kernels (a callee needs more
	# registers than the kernel's launch bounds allow): the plain loop under nvcc, as Eigen does for HIP.
	cp -r $(EIGEN3_INCLUDE_DIR) $(GPU_BUILD)/eigen3
	sed -i 's/^#if !defined(EIGEN_HIPCC) *$$/#if !defined(EIGEN_HIPCC) \&\& !defined(EIGEN_CUDACC)/' $(TENSOR_REDUCTION)
	grep -q 'EIGEN_HIPCC) && !defined(EIGEN_CUDACC)' $(TENSOR_REDUCTION) || { echo "unexpected Eigen version: see docs/gpu.md"; exit 1; }
	cmake -S $(GPU_SRC) -B $(GPU_BUILD)/cmake -DBACKEND=cuda -DCUDA_ARCH=$(CUDA_ARCH) -DCMAKE_BUILD_TYPE=Release \
		-DEIGEN3_INCLUDE_DIR=$(abspath $(GPU_BUILD)/eigen3) -DCUDA_TOOLKIT_ROOT_DIR=$(CUDA_TOOLKIT_ROOT_DIR) \
		-DENABLE_CPP_EXAMPLES=OFF -DENABLE_BOOST=OFF
	cmake --build $(GPU_BUILD)/cmake --target dynet -j $(JOBS)
	$(BIN)/pip install --quiet -c constraints.txt cython
	$(BIN)/cython --cplus -X language_level=2 $(GPU_SRC)/python/_dynet.pyx -o $(GPU_BUILD)/_dynet.cpp
	$(BIN)/pip uninstall --yes dyNET38
	SITE=$$($(BIN)/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])") && \
	INCLUDE=$$($(BIN)/python -c "import sysconfig; print(sysconfig.get_paths()['include'])") && \
	EXT=$$($(BIN)/python -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))") && \
	cp $(GPU_BUILD)/cmake/dynet/libdynet.so $(GPU_SRC)/python/dynet_config.py $$SITE/ && \
	sed 's/$${HAVE_CUDA}/True/; s/$${GIT_DESCRIBE}/$(DYNET_VERSION)-cuda/' $(GPU_SRC)/python/dynet.py.in > $$SITE/dynet.py && \
	g++ -O2 -std=c++17 -shared -fPIC -w -I$$INCLUDE -I$(GPU_SRC) -I$(GPU_BUILD)/eigen3 $(GPU_BUILD)/_dynet.cpp \
		-L$$SITE -ldynet '-Wl,-rpath,$$ORIGIN' -o $$SITE/_dynet$$EXT
	$(BIN)/python -c "import dynet; print('DyNet', dynet.__gitversion__, 'built with CUDA:', dynet.HAVE_CUDA)"

# spaCy's nlp.pipe (lstmparse.spacy) against lstmparse parse on EWT test's raw text, one core: speed ratio, same trees.
bench-spacy: install
	OMP_NUM_THREADS=1 taskset -c 0 $(BIN)/python bench/spacy_speed.py --gold $(DATA)/ud/en_ewt/test.conllu

# Memory and start-up of every shipped model, each in a fresh process, one core: files, load, RSS, peak on its test set.
bench-memory: install
	OMP_NUM_THREADS=1 taskset -c 0 $(BIN)/python bench/memory.py

# lstmparse serve with 2 workers and the default model on 127.0.0.1: resident memory over 1,000 requests.
bench-serve: install
	$(BIN)/python bench/serve_memory.py --workers 2 --requests 1000
