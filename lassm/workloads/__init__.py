# SPDX-License-Identifier: BSD-3-Clause
"""The kernels' data models: one package per kernel (``local_assembly``; the X-drop kernel next).

A kernel's package holds what the study knows about that kernel without a device: its
parameters and constants, its inputs and outputs, their file formats, its named datasets and how
they are made, and its work counts. It imports only the foundation (``lassm/*.py``); every stage
above it (backends, runs, analysis, book, cli) may import it. The name is not ``kernels``
because ``lassm.kernels`` is already the package of the kernel *sources* (``kernels/`` at the
repository root, shipped as package data).
"""
