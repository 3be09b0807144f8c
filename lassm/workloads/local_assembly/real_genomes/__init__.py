# SPDX-License-Identifier: BSD-3-Clause
"""The real-genome pipeline's parts, one module each; :mod:`lassm.workloads.local_assembly.real`
runs them in order and its docstring describes the pipeline.
"""
