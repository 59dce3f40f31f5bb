"""kubectl's output templates: `-o jsonpath=TEMPLATE` (text with `{expr}` blocks, `{range …}{end}`,
`{"\\n"}` literals), `-o custom-columns=NAME:expr,…` and `--sort-by=expr`. The expressions are
evaluated by jsonpath-ng; only kubectl's template around them is parsed here."""
from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from jsonpath_ng.exceptions import JsonPathParserError
from jsonpath_ng.ext import parse

BLOCK = re.compile(r"\{((?:[^{}\"]|\"(?:[^\"\\]|\\.)*\")*)\}")


class TemplateError(ValueError):
    """A template kubectl would refuse (`error: error parsing jsonpath …`)."""


@lru_cache(maxsize=256)
def expression(text: str):
    """kubectl's `.a.b[*]` (or `$.a`, `{.a}`) as a jsonpath-ng expression."""
    text = text.strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1].strip()
    try:
        return parse("$" + text if text.startswith((".", "[")) else text)
    except (JsonPathParserError, Exception) as exc:
        raise TemplateError(f"error parsing jsonpath {text}, {exc}") from None


def values(expr: str, obj: Any) -> list[Any]:
    return [match.value for match in expression(expr).find(obj)]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def _tokens(template: str) -> list[tuple[str, str]]:
    """("text", …) and ("expr", …) pieces, in order."""
    out, at = [], 0
    for block in BLOCK.finditer(template):
        if block.start() > at:
            out.append(("text", template[at:block.start()]))
        out.append(("expr", block.group(1).strip()))
        at = block.end()
    if at < len(template):
        out.append(("text", template[at:]))
    return out


def render(template: str, obj: Any) -> str:
    """The template applied to `obj`, as kubectl prints it (a list of results space-separated)."""
    out, _ = _render(_tokens(template), 0, obj)
    return out


def _render(tokens: list[tuple[str, str]], at: int, obj: Any) -> tuple[str, int]:
    out: list[str] = []
    while at < len(tokens):
        kind, value = tokens[at]
        if kind == "text":
            out.append(value)
        elif value == "end":
            return "".join(out), at
        elif value.startswith("range "):
            body_end = _end_of(tokens, at + 1)
            for item in values(value[len("range "):], obj):
                out.append(_render(tokens[at + 1:body_end + 1], 0, item)[0])
            at = body_end
        elif value.startswith('"'):
            out.append(json.loads(value, strict=False))
        else:
            out.append(" ".join(_text(v) for v in values(value, obj)))
        at += 1
    return "".join(out), at


def _end_of(tokens: list[tuple[str, str]], at: int) -> int:
    depth = 0
    for i in range(at, len(tokens)):
        kind, value = tokens[i]
        if kind == "expr" and value.startswith("range "):
            depth += 1
        elif kind == "expr" and value == "end":
            if depth == 0:
                return i
            depth -= 1
    raise TemplateError("error parsing jsonpath: not closed range")


def custom_columns(spec: str, items: list[dict]) -> list[list[str]]:
    """`NAME:.metadata.name,NODE:.spec.nodeName`: a header row, then one row per item (`<none>` where
    the expression finds nothing, several values joined with `,`)."""
    columns = []
    for part in spec.split(","):
        header, sep, expr = part.partition(":")
        if not sep or not expr:
            raise TemplateError(f'unexpected custom-columns spec: {part}, expected <header>:<json-path-expr>')
        columns.append((header, expr))
    rows = [[header for header, _ in columns]]
    for obj in items:
        rows.append([",".join(_text(v) for v in values(expr, obj)) or "<none>" for _, expr in columns])
    return rows


def sort_by(expr: str, items: list[dict]) -> list[dict]:
    """Items ordered by the expression's first value (numbers as numbers; items without one first)."""
    def key(obj: dict) -> tuple:
        found = values(expr, obj)
        if not found:
            return (0, 0, "")
        value = found[0]
        return (1, 0, value) if isinstance(value, (int, float)) and not isinstance(value, bool) else (1, 1, _text(value))
    return sorted(items, key=key)
