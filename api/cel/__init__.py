"""CEL as Kubernetes uses it, over cel-python (`celpy`): `compile` once per (expression, environment)
and cache; a Program evaluates with Kubernetes' variables under a cost budget (`budget.py`), with
Kubernetes' library functions (`library.py`; the authz library, `authz.py`, where `authorizer` is
declared) and cel-go's compile-time refusals where an untyped parse tree shows them (`check.py`).
Errors carry Kubernetes' words: `ERROR: <input>:1:5: undeclared reference to 'x' (in container '')`
at compile, `no such key: x` at run time."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import celpy
from celpy import celtypes
from celpy.evaluation import CELEvalError

from api.cel import authz
from api.cel.budget import Budget, CostExceeded, MeteredRunner
from api.cel.check import CheckError, check
from api.cel.library import FUNCTIONS
from api.cel.syntax import Environment

__all__ = ["Budget", "CompileError", "CostExceeded", "EvalError", "Program", "compile_cel", "to_cel"]

MAX_LENGTH = 5 * 1024  # characters of one expression (Kubernetes bounds them by cost; this bounds the parse)
ENV = Environment(runner_class=MeteredRunner)


class CompileError(ValueError):
    """`ERROR: <input>:L:C: <what>` followed by the source line and a caret, as cel-go prints it."""


class EvalError(Exception):
    """An evaluation failed (a missing key, no overload, a bad argument)."""


@dataclass(frozen=True)
class Program:
    source: str
    result: str | None  # the type the tree shows, None when dyn
    runner: Any

    def evaluate(self, variables: dict[str, Any], budget: Budget | None = None) -> Any:
        """The result as a CEL value. `variables` are JSON-shaped, or CEL values already."""
        activation = {name: to_cel(value) for name, value in variables.items()}
        try:
            return self.runner.evaluate(activation, budget)
        except CELEvalError as exc:
            raise EvalError(_eval_message(exc)) from None
        except (TypeError, ValueError, KeyError, AttributeError, IndexError, ZeroDivisionError) as exc:
            raise EvalError(f"{type(exc).__name__}: {exc}") from None


def to_cel(value: Any) -> Any:
    if isinstance(value, (celtypes.BoolType, celtypes.IntType, celtypes.StringType, celtypes.MapType,
                          celtypes.ListType, celtypes.DoubleType)):
        return value
    return celpy.json_to_cel(value)


def compile_cel(source: str, variables: tuple[str, ...], schemas: dict[str, dict] | None = None) -> Program:
    """The program for `source` in an environment declaring `variables` (and, for a CRD rule, the
    schema `self` and `oldSelf` have). Raises CompileError."""
    frozen = tuple((name, json.dumps(schema, sort_keys=True)) for name, schema in (schemas or {}).items())
    return _compile(source, variables, frozen)


@lru_cache(maxsize=4096)
def _compile(source: str, variables: tuple[str, ...], schemas: tuple[tuple[str, str], ...]) -> Program:
    if len(source) > MAX_LENGTH:
        raise CompileError(f"ERROR: <input>:1:1: expression of {len(source)} characters exceeds the limit of "
                           f"{MAX_LENGTH}")
    try:
        ast = ENV.compile(source)
    except celpy.CELParseError as exc:
        raise CompileError(_located(source, exc.line or 1, exc.column or 1, _syntax(source, exc))) from None
    declared = {name: None for name in variables} | {name: json.loads(schema) for name, schema in schemas}
    functions = {**FUNCTIONS, **authz.FUNCTIONS} if "authorizer" in variables else FUNCTIONS
    try:
        result = check(ast, declared, set(functions))
    except CheckError as exc:
        raise CompileError(_located(source, exc.line, exc.column, exc.message)) from None
    if result is None and functions is not FUNCTIONS:
        result = authz.result_type(ast)
    return Program(source, result, ENV.program(ast, functions=functions))


def _syntax(source: str, exc: celpy.CELParseError) -> str:
    lines = source.splitlines() or [""]
    line = lines[min((exc.line or 1), len(lines)) - 1]
    rest = line[(exc.column or 1) - 1:].split()
    return f"Syntax error: mismatched input '{rest[0] if rest else '<EOF>'}'"


def _located(source: str, line: int, column: int, what: str) -> str:
    """cel-go's error: a 1-based line, a 0-based column, then the line and a caret under it."""
    text = (source.splitlines() or [""])[min(line, len(source.splitlines()) or 1) - 1]
    return f"ERROR: <input>:{line}:{column - 1}: {what}\n | {text}\n | {'.' * (column - 1)}^"


def _eval_message(exc: CELEvalError) -> str:
    """cel-go's words where cel-python's differ (`no such key: x`)."""
    text = str(exc.args[0]) if exc.args else "evaluation error"
    missing = re.match(r"no such member in mapping: '(.*)'$", text)
    return f"no such key: {missing.group(1)}" if missing else text
