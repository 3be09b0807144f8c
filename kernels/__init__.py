# SPDX-License-Identifier: BSD-3-Clause
"""Kernel sources, shipped in the wheel as the package ``lassm.kernels`` (see pyproject.toml).

One folder per kernel (``local_assembly/``); in it ``cuda/`` holds the CUDA sources (``*.cu``,
``*.cuh``) and ``opencl/`` the OpenCL C sources (``*.cl``, ``*.h``). Find them with :func:`lassm.paths.kernel_source`, never by path.
"""
