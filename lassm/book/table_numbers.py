# SPDX-License-Identifier: BSD-3-Clause
"""Tables numbered and captioned as tables: a Sphinx extension the book loads (``_config.yml``).

myst-nb captions a cell output only as a figure. An output whose caption ``name`` starts with
:data:`PREFIX` is turned by :class:`TablesFromFigures` into a :class:`table_output` node, numbered
with the tables ("Table 17.1", ``{numref}``), caption above. Markdown tables use MyST's
``{table}``; ``tests/book/test_book_tables.py`` holds both."""
from __future__ import annotations

from docutils import nodes
from docutils.transforms import Transform

#: The start of a captioned output's ``name`` that makes it a table.
PREFIX = "tbl-"


class table_output(nodes.General, nodes.Element):  # noqa: N801 (docutils names node classes in lower case)
    """A code cell's table with its caption above it, numbered as a table (not a figure: HTML's
    ``<figure>`` would hold the table inside its ``<figcaption>``)."""


def is_table_name(name: str) -> bool:
    """Whether a caption's ``name`` marks a table (names are compared as docutils normalises them)."""
    return nodes.fully_normalize_name(name).startswith(PREFIX)


class TablesFromFigures(Transform):
    """Every figure named :data:`PREFIX`... becomes a :class:`table_output`, its caption first."""

    default_priority = 500

    def apply(self) -> None:
        for node in list(self.document.findall(nodes.figure)):
            if type(node) is not nodes.figure or not any(is_table_name(n) for n in node["names"]):
                continue
            node.__class__ = table_output  # in place: the document's ids and names keep pointing at it
            node["classes"].append("lassm-table")
            for caption in [c for c in node.children if isinstance(c, nodes.caption)]:
                node.remove(caption)
                node.insert(0, caption)


def _visit_html(self, node: table_output) -> None:
    self.body.append(self.starttag(node, "div"))


def _depart_html(self, node: table_output) -> None:
    self.body.append("</div>\n")


def _pass(self, node: table_output) -> None:
    """Other writers render the caption and the output as they are."""


def setup(app) -> dict:
    """Register the node as a numbered table and the transform that makes it."""
    app.add_enumerable_node(table_output, "table", html=(_visit_html, _depart_html), text=(_pass, _pass))
    app.add_transform(TablesFromFigures)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


__all__ = ["PREFIX", "TablesFromFigures", "is_table_name", "setup", "table_output"]
