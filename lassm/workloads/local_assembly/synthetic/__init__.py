# SPDX-License-Identifier: BSD-3-Clause
"""The synthetic generator's steps, one module each; :mod:`lassm.workloads.local_assembly.generate`
is the entry point and its docstring describes the model.
"""
