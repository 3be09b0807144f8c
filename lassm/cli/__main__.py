# SPDX-License-Identifier: BSD-3-Clause
"""``python -m lassm.cli``: the ``lassm`` command."""
import sys

from . import main

sys.exit(main())
