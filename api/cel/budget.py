"""A cost budget for one evaluation. cel-python estimates no cost, so the budget counts what it does
do: every node of the parse tree it visits (macros' bodies once per element) and, as a second fence,
the CPU time of the evaluating thread (not the wall clock: a process the machine did not run for a
quarter second, under load, refused a valid five-element `sortBy`). Kubernetes' limits are CEL cost
units (1,000,000 per call, 10,000,000 per object or
binding); a visit is about a tenth of a unit, a cap here of STEPS visits is the same order of work.
Exceeding it raises `CostExceeded`, which evaluation turns into Kubernetes' message. A library
function that costs more than a visit (an authorization check) `charge`s the running evaluation's
budget for it."""
from __future__ import annotations

import time
from contextvars import ContextVar

import lark
from celpy import InterpretedRunner
from celpy.evaluation import Evaluator

from api.cel.syntax import OptionalEvaluation

STEPS = 200_000  # parse-tree visits one expression may make
SECONDS = 0.25  # and the CPU time it may take


_RUNNING: ContextVar["Budget | None"] = ContextVar("cel_budget", default=None)


class CostExceeded(Exception):
    """The evaluation ran out of its budget (Kubernetes' `operation cancelled: actual cost limit exceeded`)."""


class Budget:
    def __init__(self, steps: int = STEPS, seconds: float = SECONDS, clock=time.thread_time) -> None:
        self.left = steps
        self.clock = clock
        self.deadline = clock() + seconds

    def spend(self, steps: int = 1) -> None:
        before, self.left = self.left, self.left - steps
        if self.left < 0 or (before // 256 != self.left // 256 and self.clock() > self.deadline):
            raise CostExceeded("operation cancelled: actual cost limit exceeded")


def charge(steps: int) -> None:
    """Spend `steps` of the budget of the evaluation running on this thread, if any."""
    budget = _RUNNING.get()
    if budget is not None:
        budget.spend(steps)


class _Metered(OptionalEvaluation, Evaluator):
    """cel-python's tree-walking evaluator (with the optional syntax and `sortBy`), charging each visit to its
    budget (macro bodies included)."""

    def __init__(self, ast: lark.Tree, activation, budget: Budget) -> None:
        super().__init__(ast, activation)
        self.budget = budget

    def _visit_tree(self, tree: lark.Tree):
        self.budget.spend()
        return super()._visit_tree(tree)

    def sub_evaluator(self, ast: lark.Tree) -> Evaluator:
        return _Metered(ast, self.activation, self.budget)


class MeteredRunner(InterpretedRunner):
    def evaluate(self, context, budget: Budget | None = None):
        budget = budget or Budget()
        token = _RUNNING.set(budget)
        try:
            return _Metered(self.ast, self.new_activation(), budget).evaluate(context)
        finally:
            _RUNNING.reset(token)
