# SPDX-License-Identifier: BSD-3-Clause
"""The kernels' data models: one package per kernel (``local_assembly``, ``xdrop``).

A kernel's package holds what is known without a device: parameters and constants, inputs and
outputs, file formats, named datasets and how they are made, work counts. It imports only the
foundation (``lassm/*.py``). Not ``kernels``: ``lassm.kernels`` is the kernel sources' package.
"""
