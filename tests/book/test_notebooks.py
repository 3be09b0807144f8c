# SPDX-License-Identifier: BSD-3-Clause
"""Every notebook of _toc.yml executes with its default parameters (Papermill, inside pytest).

`make book` executes them again in the build; this test finds a broken chapter without a build.
Skips when papermill or ipykernel is absent.
"""
from __future__ import annotations

import pytest

from .test_book import ROOT, _rel, _toc_notebooks

papermill = pytest.importorskip("papermill", reason="needs papermill: pip install 'lassm[book]'")
pytest.importorskip("ipykernel", reason="needs ipykernel: pip install 'lassm[book]'")

#: Parameters overriding a notebook's defaults to keep this test fast: every chapter reads recorded
#: data, the datasets chapter runs the CPU backend on the sample; the solutions run the kernel on
#: each CPU runtime present with one protocol rather than two (each is a compile).
TINY: dict[str, dict] = {"solutions": {"runtime_protocols": ["casptr"]}}


@pytest.mark.parametrize("path", _toc_notebooks(), ids=_rel)
def test_notebook_executes(path, tmp_path):
    out = tmp_path / path.name
    papermill.execute_notebook(str(path), str(out), parameters=TINY.get(path.stem, {}), kernel_name="python3",
                               cwd=str(path.parent), progress_bar=False, log_output=False)
    assert out.is_file()
    assert str(ROOT)
