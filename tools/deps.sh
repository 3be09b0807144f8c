#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# make deps: the Debian packages that let every CPU-side test run (book/install.md, "What each extra
# and package enables"). `make test` and `make book` call it first.
#
# It says what it is about to install, then installs it where it can: as root, or with
# passwordless sudo. Where it cannot (another user, no apt), it names what is missing and
# exits 0: the tests that need a package then skip, each naming it. LASSM_NO_DEPS=1 skips
# this step altogether (nothing is checked or installed).
#
#   tools/deps.sh            install what is missing, where possible
#   tools/deps.sh --list     print the packages, one per line, and exit
set -uo pipefail
# shellcheck source=tools/apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/apt.sh"

# package: what it enables (book/install.md's table says the same, and tests/whole/test_deps.py checks it).
PACKAGES=(
    "hipcc:tests/backends/test_hip_compile.py: the CUDA kernel compiled for AMD GPUs"
    "chromium:tests/book/test_built_book.py: the built book opened in a browser"
    "poppler-utils:tests/book/test_built_book.py: pdftotext, which reads back where the PDF's words lie"
    "libseqan2-dev:tests/backends/test_xdrop_seqan.py: SeqAn 2, the X-drop oracle's reference (lassm xdrop align --backend seqan)"
    "libtbb-dev:tests/backends/test_hip_cpu.py: TBB, which ROCm's HIP-CPU runs blocks on (the hip-cpu backend)"
    "pocl-opencl-icd:tests/backends/test_pocl.py: PoCL, a second OpenCL implementation for the opencl backend (LASSM_OPENCL_DEVICE=pocl)"
    "pbsim:lassm xdrop real: long reads simulated from a genome (tests/workloads/test_xdrop_real.py)"
    "megahit:lassm data real: contigs from simulated reads"
    "art-nextgen-simulation-tools:lassm data real: simulated Illumina reads (art_illumina)"
    "minimap2:lassm data real: reads aligned to contigs"
    "samtools:lassm data real: alignments sorted and read"
    "bowtie2-examples:lassm data real --preset tiny: the phage lambda genome"
    "shovill-examples:lassm data real --preset tiny: the plasmid MP1 genome"
    "bowtie-examples:lassm data real --preset mock5: genomes of the mock community"
    "kleborate-examples:lassm data real --preset mock5: genomes of the mock community"
    "ragout-examples:lassm data real --preset mock5: genomes of the mock community"
    "slurmctld:tests/runs/test_slurm.py: a real one-node Slurm (tools/slurm_single_node.sh) for --cluster slurm:..."
    "slurmd:tests/runs/test_slurm.py: the node's daemon of that Slurm"
    "munge:tests/runs/test_slurm.py: Slurm's authentication"
    "slurm-client:tests/runs/test_slurm.py: sbatch, squeue, scancel and scontrol"
)

names() { local p; for p in "${PACKAGES[@]}"; do printf '%s\n' "${p%%:*}"; done; }

if [[ ${1:-} == --list ]]; then
    names
    exit 0
fi
if [[ -n ${LASSM_NO_DEPS:-} && ${LASSM_NO_DEPS} != 0 ]]; then
    echo "make deps: LASSM_NO_DEPS is set: no system package checked or installed"
    exit 0
fi
if ! command -v dpkg >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    echo "make deps: not a Debian-like system (no dpkg/apt-get): install by hand what book/install.md lists;"
    echo "           until then the tests that need a package skip, naming it"
    exit 0
fi

mapfile -t missing < <(missing_packages $(names))
# `make venv` needs Python's venv module with ensurepip: Debian ships it apart.
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    missing+=("python3-venv")
fi
if ((${#missing[@]} == 0)); then
    echo "make deps: all ${#PACKAGES[@]} system packages are installed"
    exit 0
fi

if ! root_runner; then
    echo "make deps: cannot install ${missing[*]}"
    echo "           (not root and no passwordless sudo); the tests that need them skip, each naming its package."
    echo "           To install them: sudo apt-get install ${missing[*]}"
    exit 0
fi

echo "make deps: about to install ${#missing[@]} Debian package(s): ${missing[*]}"
log=$(mktemp "${TMPDIR:-/tmp}/lassm-deps.XXXXXX")
if apt_install "$log" "${missing[@]}"; then
    echo "make deps: installed ${missing[*]}"
    rm -f "$log"
else
    status=$?
    tail -n 20 "$log" >&2
    echo "make deps: WARNING: apt-get failed (exit $status; its output: $log);" \
         "the tests that need ${missing[*]} will skip, each naming its package" >&2
fi
exit 0
