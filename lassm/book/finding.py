# SPDX-License-Identifier: BSD-3-Clause
"""A finding as a value: its numbers, its scope, and one template that makes it a sentence.

Numbers stay numbers (a test re-derives each by a second path), the scope lists what they cover
(devices, datasets, backends, variants, record files, commits), and :func:`render` is the one way
to a sentence; :func:`markdown` shows each scope on hover."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Union

Number = Union[int, float, str]


def _names(values: Iterable) -> tuple[str, ...]:
    """Distinct non-empty names, sorted, as one scope field holds them."""
    return tuple(sorted({str(v) for v in values if v is not None and str(v) not in ("", "nan", "None")}))


@dataclass(frozen=True)
class Scope:
    """What a finding's numbers cover: each field the distinct names, sorted."""

    devices: tuple[str, ...] = ()
    datasets: tuple[str, ...] = ()
    backends: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    commits: tuple[str, ...] = ()

    @classmethod
    def of(cls, *, devices=(), datasets=(), backends=(), variants=(), files=(), commits=()) -> "Scope":
        """A scope from any iterables; commits are cut to 7 characters, as ``git log --oneline`` shows them."""
        return cls(_names(devices), _names(datasets), _names(backends), _names(variants), _names(files),
                   _names(str(c)[:7] for c in commits if c is not None and str(c) not in ("", "nan")))

    def text(self) -> str:
        """The scope in one line: ``devices: ...; datasets: ...`` (empty fields left out)."""
        parts = [f"{name}: {', '.join(vals)}" for name, vals in
                 (("devices", self.devices), ("datasets", self.datasets), ("backends", self.backends),
                  ("variants", self.variants), ("records", self.files), ("commits", self.commits)) if vals]
        return "; ".join(parts) or "the paper's published data only"


@dataclass(frozen=True)
class Finding:
    """One finding: ``template`` filled from ``numbers`` (``str.format`` fields), the chapter that
    shows it (``link``), whether the records hold its data (``measured``), and its ``scope``."""

    key: str
    template: str
    link: str
    measured: bool
    numbers: dict[str, Number] = field(default_factory=dict)
    scope: Scope = Scope()
    #: Where its numbers come from: ``measured: <records>`` or ``published: <source>``.
    source: str = ""
    #: The one number that sums it up (for tables and tests), where there is one.
    value: float | None = None

    @property
    def sentence(self) -> str:
        return render(self)

    @property
    def device(self) -> str | None:
        """The devices of its scope, as one string (``"; "`` between two)."""
        return "; ".join(self.scope.devices) or None

    @property
    def backend(self) -> str | None:
        return ", ".join(self.scope.backends) or None


def render(f: Finding) -> str:
    """The finding's sentence: its template with its numbers in place (the one template step)."""
    return f.template.format(**f.numbers)


def markdown(items: list[Finding]) -> str:
    """A MyST bullet list, one ``- sentence ({doc}`/link`; {abbr}`scope (...)`)`` line per finding: the
    scope in an ``{abbr}`` title, so a finding's reach is read where it stands."""
    return "\n".join(f"- {f.sentence} ({{doc}}`/{f.link}`; {{abbr}}`scope ({_role_text(f.scope.text())})`)"
                     for f in items)


def _role_text(text: str) -> str:
    """Text safe inside a role's backticks."""
    return text.replace("`", "'")


__all__ = ["Finding", "Number", "Scope", "markdown", "render"]
