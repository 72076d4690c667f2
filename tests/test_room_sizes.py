"""Small rooms: no module of ``trutnet`` over 600 lines, no function over 80 lines or
8 parameters (``self`` and ``cls`` not counted), so a reader holds each in view."""

from __future__ import annotations

import ast

from tests import ROOT

MODULE_LINES = 600
FUNCTION_LINES = 80
PARAMETERS = 8


def _modules():
    return sorted((ROOT / "trutnet").rglob("*.py"))


def test_no_module_is_over_600_lines():
    long = []
    for path in _modules():
        lines = len(path.read_text().splitlines())
        if lines > MODULE_LINES:
            long.append(f"{path.relative_to(ROOT)}: {lines} lines")
    assert not long, long


def test_no_function_is_over_80_lines_or_8_parameters():
    found = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"
            lines = node.end_lineno - node.lineno + 1
            if lines > FUNCTION_LINES:
                found.append(f"{where}: {lines} lines")
            args = node.args
            named = [*args.posonlyargs, *args.args, *args.kwonlyargs]
            count = len([a for a in named if a.arg not in ("self", "cls")])
            count += bool(args.vararg) + bool(args.kwarg)
            if count > PARAMETERS:
                found.append(f"{where}: {count} parameters")
    assert not found, found
