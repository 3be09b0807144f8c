#!/bin/bash
# The four small Table II sets against ht_loc again, five timed runs each instead of three: the
# whole-command times of the 10d5542 call spread by up to 30 % on the node (against-ht-loc-reduce-add.log).
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "git ${LASSM_GIT_SHA:-unknown}"
timeout 400 python3 tools/against_original.py --source .originals/gpu_local_ht --machine nvidia-h200 \
  --datasets gen-k21,gen-k33,gen-k55,gen-k77 --repeats 5 --force 2>&1 | grep -v Warning
