"""What cel-python's parser and evaluator lack of the CEL Kubernetes speaks, added from outside celpy:

- the optional syntax `a.?f` and `m[?k]` (cel-go's parser options), as two rules `%extend`ing cel-python's
  own `cel.lark` (read from celpy, not copied) — `member_dot_opt` and `member_index_opt`;
- namespaced functions (`sets.contains(…)`, `optional.of(…)`, `format.named(…)`, `ip.isCanonical(…)`,
  `lists.range(…)`): the parse tree of `ns.f(args)` is rewritten into a call of the function `ns.f`;
- an evaluator mixin that evaluates those nodes, a field or index selected from an optional (which stays
  optional), and the lists macro `sortBy(e, key)`."""
from __future__ import annotations

import logging
import re
import sys
from pathlib import Path

import celpy
import lark
from celpy.celparser import CELParseError, CELParser
from lark.exceptions import LexError, ParseError, UnexpectedCharacters, UnexpectedToken

from api.cel import lists, optional

NAMESPACES = frozenset({"sets", "lists", "optional", "format", "ip"})
OPTIONAL_RULES = """
%extend member: member_dot_opt | member_index_opt
member_dot_opt : member "." "?" IDENT
member_index_opt : member "[" "?" expr "]"
"""
GRAMMAR = (Path(celpy.__file__).parent / "cel.lark").read_text() + OPTIONAL_RULES
# Lark's analysis of the grammar (its LALR tables: 0.7 s at every start of a process that speaks CEL), kept in a
# file of the user's own (Lark checks the grammar's and options' hash in it; not its /tmp default: a pickle
# another user could have put there would be loaded)
TABLES = Path.home() / ".cache" / "kubus" / "cel-lark-tables.pickle"


class Parser(CELParser):
    """cel-python's parser over its grammar with the optional rules, in a Lark instance of its own (cel-python
    keeps its one parser in a class attribute, which this leaves alone)."""

    def __init__(self, tree_class: type = lark.Tree) -> None:
        self.lark = lark.Lark(GRAMMAR, parser="lalr", start="expr", g_regex_flags=re.M,
                              lexer_callbacks={"IDENT": self.ambiguous_literals}, propagate_positions=True,
                              maybe_placeholders=False, priority="invert", tree_class=tree_class, cache=_tables())

    def parse(self, text: str) -> lark.Tree:
        self.text = text
        try:
            return qualify(self.lark.parse(text))
        except (UnexpectedToken, UnexpectedCharacters) as ex:
            raise CELParseError(ex.get_context(text), *ex.args, line=ex.line, column=ex.column) from None
        except (LexError, ParseError) as ex:
            raise CELParseError(ex.args[0].splitlines()[0], *ex.args) from None


def _tables() -> str | bool:
    try:
        TABLES.parent.mkdir(parents=True, exist_ok=True)
        return str(TABLES)
    except OSError:  # no home to keep it in: analysed at every start
        return False


class Environment(celpy.Environment):
    def __init__(self, runner_class: type) -> None:
        # not super().__init__: it builds cel-python's own parser (0.6 s) only for it to be replaced; what it sets
        sys.setrecursionlimit(2500)  # as cel-python's: CEL's defined nesting minimums
        self.logger = logging.getLogger(f"celpy.{type(self).__name__}")
        self.package, self.annotations, self.runner_class = None, dict(celpy.googleapis), runner_class
        self.cel_parser = Parser(tree_class=runner_class.tree_node_class)


def qualify(tree: lark.Tree) -> lark.Tree:
    """`sets.contains(a, b)` parses as the method `contains` of a variable `sets`: make it a call of
    `sets.contains`, in place (a `primary` holding an `ident_arg`, what `f(a, b)` parses as)."""
    for node in tree.iter_subtrees():
        if node.data != "member_dot_arg":
            continue
        namespace = _bare_ident(node.children[0])
        if namespace is None or str(namespace) not in NAMESPACES:
            continue
        name = lark.Token.new_borrow_pos("IDENT", f"{namespace}.{node.children[1]}", namespace)
        node.data, node.children = "primary", [lark.Tree("ident_arg", [name, *node.children[2:]], node.meta)]
    return tree


def _bare_ident(member) -> lark.Token | None:
    """The token of a member that is a lone identifier (`member > primary > ident`)."""
    if isinstance(member, lark.Tree) and member.data == "member" and len(member.children) == 1:
        primary = member.children[0]
        if isinstance(primary, lark.Tree) and primary.data == "primary":
            ident = primary.children[0]
            if isinstance(ident, lark.Tree) and ident.data == "ident":
                return ident.children[0]
    return None


def through_optional(member) -> bool:
    """Whether a member chain passes an optional selection (`a.?b.c`: `.c` selects from an optional)."""
    while isinstance(member, lark.Tree) and member.data == "member":
        step = member.children[0]
        if step.data in ("member_dot_opt", "member_index_opt"):
            return True
        if step.data not in ("member_dot", "member_index"):
            return False
        member = step.children[0]
    return False


class OptionalEvaluation:
    """Mixed into cel-python's Evaluator (before it)."""

    def member_dot_opt(self, tree: lark.Tree):
        return optional.select(self.visit(tree.children[0]), str(tree.children[1]))

    def member_index_opt(self, tree: lark.Tree):
        return optional.index(self.visit(tree.children[0]), self.visit(tree.children[1]))

    def member_dot(self, tree: lark.Tree):
        if not through_optional(tree.children[0]):
            return super().member_dot(tree)
        return optional.select(self.visit(tree.children[0]), str(tree.children[1]))

    def member_index(self, tree: lark.Tree):
        if not through_optional(tree.children[0]):
            return super().member_index(tree)
        return optional.index(self.visit(tree.children[0]), self.visit(tree.children[1]))

    def member_dot_arg(self, tree: lark.Tree):
        if str(tree.children[1]) != "sortBy":
            return super().member_dot_arg(tree)
        items = self.visit(tree.children[0])
        if isinstance(items, celpy.evaluation.CELEvalError):
            return items
        key = self.build_macro_eval(tree)
        try:
            keys = [key(item) for item in items]
        except celpy.evaluation.CELEvalError as exc:
            return exc
        return lists.sort_by_keys(items, keys)
