# SPDX-License-Identifier: BSD-3-Clause
"""The output rule (:mod:`lassm.outputs`) applied to every command from its options' roles
(:mod:`lassm.cli.args`), so a new command or option is guarded as soon as its types say what its
paths are: outputs checked against inputs, read results folders and each other, and an output
folder new, empty or this command's, all before the command's code runs."""
from __future__ import annotations

import argparse
from pathlib import Path

from .. import atomic, paths
from ..outputs import refuse_clashes


def leaf(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the subcommand ``args`` were parsed for (``lassm data shard``'s)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = getattr(args, action.dest, None)
            if chosen in action.choices:
                return leaf(action.choices[chosen], args)
    return parser


def option_name(action: argparse.Action) -> str:
    """How a line names an argument: its first option string, or a positional's name."""
    return action.option_strings[0] if action.option_strings else action.dest


def with_role(parser: argparse.ArgumentParser, args: argparse.Namespace, role: str) -> dict[str, list[str]]:
    """Each argument of ``parser`` whose type has ``role``, by :func:`option_name`: its values given."""
    found: dict[str, list[str]] = {}
    for action in parser._actions:
        if getattr(action.type, "role", None) != role:
            continue
        value = getattr(args, action.dest, None)
        values = value if isinstance(value, list) else [] if value is None else [value]
        found[option_name(action)] = [str(v) for v in values]
    return found


def maker(parser: argparse.ArgumentParser) -> str:
    """The command as a line names it, ``lassm data shard``: what marks the folders it makes."""
    return parser.prog


def check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuses, before any work, an output of command ``args`` that breaks the rule:
    :class:`LassmError` naming the option, the path and what it would overwrite."""
    command = leaf(parser, args)
    outputs = {option: values[0] for option, values in with_role(command, args, "output").items() if values}
    inputs = [value for values in with_role(command, args, "input").values() for value in values
              if Path(value).exists()]  # a dataset's name is no file
    own = tuple(getattr(args, "results_outputs", ()))
    folders = [(str(paths.machine_dir(name)), own) for values in with_role(command, args, "results").values()
               for name in values]
    refuse_clashes(outputs, inputs, folders)
    for action in command._actions:
        value = getattr(args, action.dest, None)
        if getattr(action.type, "role", None) == "output" and getattr(action.type, "folder", False) and value:
            atomic.refuse_foreign_folder(value, maker(command))


__all__ = ["check", "leaf", "maker", "option_name", "with_role"]
