# SPDX-License-Identifier: BSD-3-Clause
"""Kernel sources, shipped in the wheel as the package ``lassm.kernels`` (see pyproject.toml).

``cuda/`` holds the CUDA sources (``*.cu``, ``*.cuh``) and ``opencl/`` the OpenCL C sources
(``*.cl``). Find them with :func:`lassm.paths.kernel_source`, never by path.
"""
