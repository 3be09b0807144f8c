# SPDX-License-Identifier: BSD-3-Clause
#
#   make test         the test suite on every core (GPU tests skip themselves without a GPU)
#   make book         the main job (lassm run: the campaign), then the Jupyter Book into _build/html,
#                     then its print view (_build/html/print.html and _build/lassm-book.pdf)
#   make deps         the Debian packages the tests use, installed where root or sudo allows
#                     (tools/deps.sh says what it installs; `make test` and `make book` call it)
#   make slurm        a real one-node Slurm on this machine for tests/runs/test_slurm.py, where root or
#                     sudo allows (tools/slurm_single_node.sh; `make test` calls it; left running)
#   make hip-cpu      ROCm's HIP-CPU runtime at its pinned commit, for the hip-cpu backend and
#                     tests/backends/test_hip_cpu.py: from LASSM_HIP_CPU (a folder) or the cache, else
#                     downloaded into the cache where the network allows (`make test` calls it;
#                     where it cannot, it says why and those tests skip, naming it; `make book`
#                     calls it too: on an AMD GPU, lassm run checks hip against hip-cpu first)
#   make venv         .venv with lassm installed editable, with the extras that fit this machine:
#                     its platform's and its GPU's (NVIDIA, AMD or Intel), as tools/extras.py finds;
#                     on an NVIDIA GPU, the GPU commands' kernels built for it (lassm build-kernels)
#   make extras       prints those extras on one line (`python3 tools/extras.py --why` says why)
#   make html         the Jupyter Book alone, from the records already under data/results/
#   make chapters     one machine chapter per folder under data/results/ (machines/*.ipynb)
#   make print        the print view of the book already built: every page in one HTML file, and
#                     a PDF of it where Chromium is installed (lassm.book.printview)
#   make wheelhouse   wheels for a GPU node without internet (see below and book/install.md)
#   make clean        removes build outputs and built wheels (never .venv, never data/results)

PYTHON   ?= python3
VENV     ?= .venv
BIN      := $(VENV)/bin
# The extras that fit this machine, chosen by tools/extras.py (`make extras` prints them; the
# script's --why says why): the platform's -- Intel's OpenCL CPU driver (the intel extra) exists
# for x86-64 Linux only; Dask and pyopencl (the opencl backend: tested on the CPU driver that
# intel brings, timed on a GPU's own OpenCL) everywhere -- plus the GPU's runtime: cuda12 or
# cuda13 by the NVIDIA driver's CUDA version, rocm for ROCm 7.0, intel for an Intel GPU.
# `make test EXTRAS=test,book` installs what it names instead. Set once, here: a recursive
# `?=` would run the script at every use.
ifeq ($(origin EXTRAS),undefined)
EXTRAS   := $(shell $(PYTHON) tools/extras.py)
EXTRAS_WHY = $(PYTHON) tools/extras.py --why
else
EXTRAS_WHY = echo "$(EXTRAS)"; echo "  EXTRAS set by the $(origin EXTRAS)"
endif
ifeq ($(strip $(EXTRAS)),)
$(error tools/extras.py printed no extras (is $(PYTHON) installed?); set EXTRAS=... to choose them)
endif
# Extra arguments of every pip install, e.g. a node without internet installing from the
# wheelhouse: make venv EXTRAS=cuda13,opencl PIP_ARGS="--no-index --find-links wheelhouse"
PIP_ARGS ?=
comma    := ,
# The stamp names the extras, so asking for other extras installs again; editing
# pyproject.toml installs again too.
STAMP    := $(VENV)/.lassm-installed-$(subst $(comma),-,$(EXTRAS))
# Python keeps the bytecode of what it imports, even where PYTHONDONTWRITEBYTECODE is set: the
# venv is installed without bytecode (pip --no-compile: compiling every module it installs took
# about 25 s of a 2-core box's set-up, most of them modules nothing here imports), and the suite
# and the book start many Python processes (command-line runs, notebook kernels, Dask and Slurm
# workers) that would each compile lassm's modules and the venv's again (__pycache__ is ignored
# by git). The first process to import a module writes its bytecode, the others read it.
unexport PYTHONDONTWRITEBYTECODE

# Extra pytest arguments, e.g. `make test PYTEST_ARGS="-m 'not slow'"`.
PYTEST_ARGS ?=
# The suite runs on every core (pytest-xdist, -n auto): a module whose tests share a fixture set
# up once per module goes to one worker whole, the other tests are dealt one by one
# (tests/conftest.py's scheduler). PYTEST_WORKERS=0 runs it in one process.
PYTEST_WORKERS ?= auto
# Arguments of the main job, e.g. `make book RUN_ARGS="--quick"` (the sample alone) or "--backends cpu".
# `lassm run` is the campaign: every dataset, backend and protocol this machine can run, timed,
# checked against the CPU oracle, then counters, ceilings and metrics; resumable (a second run
# skips what is recorded). Without a GPU it times each point once after a warm-up, the OpenCL
# CPU driver skips the x20 scale point and times casptr and fast only (lassm/campaign/assembly_plan.py), and
# X-drop's OpenCL on it runs once per X (lassm/campaign/xdrop_plan.py): `lassm run --dry-run`
# prints these rules. A fresh clone's `make book` on a 2-core box without a GPU, set-up and book
# included, took 4 to 5 minutes and about 280 s of CPU there.
RUN_ARGS ?=
# -W: a warning fails the build; --keep-going: report every warning, not just the first.
JB_ARGS  ?= -W --keep-going --all

.PHONY: all deps slurm hip-cpu venv extras test book run html chapters print wheelhouse clean
all: test

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	@echo "extras:"; $(EXTRAS_WHY)
	$(BIN)/python -m pip install --quiet $(PIP_ARGS) --upgrade pip
	$(BIN)/python -m pip install --quiet --no-compile $(PIP_ARGS) --editable ".[$(EXTRAS)]"
	$(BIN)/lassm build-kernels --where-a-gpu
	rm -f $(VENV)/.lassm-installed-*
	touch $@

deps:
	@bash tools/deps.sh

# Elsewhere (not root, LASSM_NO_DEPS with the packages missing) it says why, and the Slurm tests skip.
slurm:
	@bash tools/slurm_single_node.sh start || echo "make slurm: no Slurm here (above: why); tests/runs/test_slurm.py skips or fails, saying so"

# lassm.backends.hip_cpu_build checks the pinned HIP-CPU (SHA-256 of every header the drivers read)
# and exits 0 whether or not it could have it.
hip-cpu: $(STAMP)
	@$(BIN)/python -m lassm.backends.hip_cpu_build

venv: $(STAMP)

# The extras `make venv` would install here, on one line.
extras:
	@echo "$(EXTRAS)"

# pytest's exit code 5 (no test collected) is a failure like any other.
test: deps slurm $(STAMP) hip-cpu
	status=0; $(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) $(PYTEST_ARGS) || status=$$?; \
	if [ $$status -eq 5 ]; then echo "make test: pytest collected no test (exit code 5)" >&2; fi; \
	exit $$status

run: $(STAMP)
	$(BIN)/lassm run $(RUN_ARGS)

# The machine chapters are generated, never edited: notebooks/machine.ipynb with each folder of
# data/results/ as its parameter, into machines/ (a glob of _toc.yml); the build executes them.
chapters: $(STAMP)
	$(BIN)/python -m lassm.book.machines

html: chapters
	$(BIN)/jupyter-book build . $(JB_ARGS)
	$(BIN)/python -m lassm.book.printview
	$(BIN)/python -m lassm.book.handout

# The whole book as one page and as a PDF, and each lab's handout, from _build/html (no notebook
# is executed again).
print: $(STAMP)
	$(BIN)/python -m lassm.book.printview
	$(BIN)/python -m lassm.book.handout

book: deps $(STAMP) hip-cpu
	$(BIN)/lassm run $(RUN_ARGS)
	$(BIN)/python -m lassm.book.machines
	$(BIN)/jupyter-book build . $(JB_ARGS)
	$(BIN)/python -m lassm.book.printview
	$(BIN)/python -m lassm.book.handout

# --------------------------------------------------------------------------------------------
# Wheelhouse: every wheel a GPU node without internet needs, built here for its Python and
# platform. On the node:  python3 -m pip install --no-index --find-links wheelhouse lassm
#
#   make wheelhouse PY=3.12 WHEELS=core
#   make wheelhouse PY=3.12 WHEELS=runtime+cuda13+opencl   # a bare venv on a CUDA 13 node
#
# WHEELS picks the set, or several joined by + (each is also the project's own wheel, built
# with pip wheel):
#   lassm      lassm alone: the node already has numpy, numba, pyarrow, pandas and rich
#   core       lassm + numba + llvmlite: the node has numpy, pyarrow, pandas and rich (most GPU images do)
#   runtime    core + numpy + pyarrow + pandas + rich and their dependencies: all that `lassm` imports,
#              and setuptools, which an editable install of the clone builds with (make venv PIP_ARGS=...)
#   notebooks  runtime + papermill, ipykernel and nbclient, with all their dependencies
#   cuda12     CuPy for CUDA 12 (the cuda12 extra), cuda13 CuPy for CUDA 13 (the cuda13 extra):
#              the GPU backend, for the driver `make extras` names on the node
#   opencl     pyopencl and its dependencies (pytools, platformdirs, siphash24), for the opencl
#              backend (NVIDIA's OpenCL driver is found without an .icd file):
#              make wheelhouse WHEELS=opencl WHEELHOUSE=wheelhouse-opencl
# Each set is downloaded with its dependencies resolved for the target, then the packages the
# sets expect on the node (and no chosen set brings) are dropped.
#
# SHRINK=lzma (the default) recompresses every wheel over 1 MiB with LZMA instead of deflate:
# the files inside, their RECORD hashes and the wheel's name are unchanged, pip installs it as
# usual (Python's zipfile reads LZMA), and llvmlite goes from 57 to 39 MiB, so the core set fits
# a 64 MiB transfer together with the repository. It costs about two minutes of one core.
# Installers other than pip may not read LZMA wheels: SHRINK=none keeps PyPI's files as they are.
PY        ?= 3.12
# pip matches each manylinux tag exactly; the list covers glibc 2.17 to 2.28 wheels.
PLATFORM  ?= manylinux2014_x86_64 manylinux_2_17_x86_64 manylinux_2_27_x86_64 manylinux_2_28_x86_64
WHEELS    ?= core
WHEELHOUSE ?= wheelhouse
SHRINK    ?= lzma

WHEELS_ROOTS_lassm     :=
WHEELS_DROP_lassm      :=
WHEELS_ROOTS_core      := numba
WHEELS_DROP_core       := numpy
WHEELS_ROOTS_runtime   := numba numpy pyarrow pandas rich setuptools
WHEELS_DROP_runtime    :=
WHEELS_ROOTS_notebooks := numba numpy pyarrow pandas rich setuptools papermill ipykernel nbclient
WHEELS_DROP_notebooks  :=
WHEELS_ROOTS_cuda12    := cupy-cuda12x
WHEELS_DROP_cuda12     := numpy
WHEELS_ROOTS_cuda13    := cupy-cuda13x
WHEELS_DROP_cuda13     := numpy
WHEELS_ROOTS_opencl    := pyopencl
WHEELS_DROP_opencl     := numpy

WHEEL_SETS   := $(subst +, ,$(WHEELS))
WHEEL_ROOTS  := $(sort $(foreach w,$(WHEEL_SETS),$(WHEELS_ROOTS_$(w))))
WHEEL_DROPS  := $(filter-out $(WHEEL_ROOTS),$(sort $(foreach w,$(WHEEL_SETS),$(WHEELS_DROP_$(w)))))
WHEEL_UNKNOWN := $(foreach w,$(WHEEL_SETS),$(if $(filter undefined,$(origin WHEELS_ROOTS_$(w))),$(w)))
ifneq ($(strip $(WHEEL_UNKNOWN)),)
$(if $(filter wheelhouse,$(MAKECMDGOALS)),$(error WHEELS=$(WHEELS): $(WHEEL_UNKNOWN) is not a set; use lassm, core, runtime, notebooks, cuda12, cuda13 or opencl, joined by +))
endif

define SHRINK_PY
import os, sys, zipfile
for path in sys.argv[1:]:
    if os.path.getsize(path) < 1 << 20:
        continue
    tmp = path + ".part"
    with zipfile.ZipFile(path) as old, zipfile.ZipFile(tmp, "w", zipfile.ZIP_LZMA) as new:
        for entry in old.infolist():
            info = zipfile.ZipInfo(entry.filename, entry.date_time)
            info.external_attr = entry.external_attr
            info.compress_type = zipfile.ZIP_LZMA
            new.writestr(info, old.read(entry))
    os.replace(tmp, path)
endef
export SHRINK_PY

ifeq ($(filter $(SHRINK),lzma none),)
$(if $(filter wheelhouse,$(MAKECMDGOALS)),$(error SHRINK=$(SHRINK): use lzma or none))
endif

PIP_TARGET := --only-binary=:all: --implementation cp --python-version $(PY) \
              $(foreach p,$(PLATFORM),--platform $(p))

# The wheels already in $(WHEELHOUSE) are replaced (other files there are left alone).
wheelhouse: | $(BIN)/python
	mkdir -p $(WHEELHOUSE)
	rm -f $(WHEELHOUSE)/*.whl $(WHEELHOUSE)/*.whl.part
	rm -rf build  # setuptools would pack stale modules left in build/lib
	$(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir $(WHEELHOUSE) .
	$(if $(strip $(WHEEL_ROOTS)),$(BIN)/python -m pip download --quiet $(PIP_TARGET) \
	    --dest $(WHEELHOUSE) $(WHEEL_ROOTS))
	$(foreach d,$(WHEEL_DROPS),rm -f $(WHEELHOUSE)/$(d)-*.whl;)
	$(if $(filter lzma,$(SHRINK)),$(BIN)/python -c "$$SHRINK_PY" $(WHEELHOUSE)/*.whl)
	@ls -l $(WHEELHOUSE)
	@du -ch $(WHEELHOUSE)/*.whl | tail -n 1 | sed 's/total/total, WHEELS=$(WHEELS) PY=$(PY)/'

clean:
	rm -rf _build build dist .pytest_cache *.egg-info machines
	rm -f $(WHEELHOUSE)/*.whl
	find lassm tests kernels -name __pycache__ -type d -prune -exec rm -rf {} +
