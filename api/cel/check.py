"""What cel-go's checker would refuse before an expression is stored, as far as an untyped parse tree
shows it: names no environment declares (`undeclared reference to 'x' (in container '')`), functions
that do not exist, fields a CRD schema does not have (`undefined field 'x'`), operands whose literal
types no overload takes, and a result that cannot be the type asked for (the libraries' result types
included: `isCIDR(…)` is a bool, `a.?b` an optional). Anything the tree cannot show (a field's value, a
variable's type) is `dyn` and passes, as cel-go passes dyn."""
from __future__ import annotations

import lark
from celpy.evaluation import base_functions

MACROS = {"all", "exists", "exists_one", "map", "filter", "sortBy"}
BOOL_CALLS = {"all", "exists", "exists_one", "startsWith", "endsWith", "contains", "matches", "isSorted",
              "isURL", "isQuantity", "isGreaterThan", "isLessThan", "isInteger", "isIP", "ip.isCanonical",
              "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast",
              "isCIDR", "containsIP", "containsCIDR", "isSemver", "sets.contains", "sets.equivalent",
              "sets.intersects", "hasValue"}
TYPED_CALLS = {"has": "bool", "size": "int", "string": "string", "int": "int", "double": "double",
               "bool": "bool", "uint": "uint", "map": "list", "filter": "list", "findAll": "list",
               "find": "string", "lowerAscii": "string", "upperAscii": "string", "join": "string",
               "family": "int", "prefixLength": "int", "major": "int", "minor": "int", "patch": "int",
               "compareTo": "int", "slice": "list", "flatten": "list", "distinct": "list", "reverse": "list",
               "sort": "list", "sortBy": "list", "lists.range": "list", "optional.of": "optional",
               "optional.none": "optional", "optional.ofNonZeroValue": "optional", "format.named": "optional",
               "validate": "optional", "or": "optional"} | {name: "bool" for name in BOOL_CALLS}
LITERALS = {"INT_LIT": "int", "UINT_LIT": "uint", "FLOAT_LIT": "double", "STRING_LIT": "string",
            "MLSTRING_LIT": "string", "BYTES_LIT": "bytes", "BOOL_LIT": "bool", "NULL_LIT": "null_type"}
OPERATORS = {"addition_add": "_+_", "addition_sub": "_-_", "multiplication_mul": "_*_",
             "multiplication_div": "_/_", "multiplication_mod": "_%_"}
ARITHMETIC = {("int", "int"), ("uint", "uint"), ("double", "double"), ("string", "string"), ("list", "list"),
              ("bytes", "bytes")}


class CheckError(Exception):
    def __init__(self, where, message: str) -> None:
        super().__init__(message)
        self.line, self.column = (getattr(where, "line", None) or 1), (getattr(where, "column", None) or 1)
        self.message = message


def check(tree: lark.Tree, declared: dict[str, dict | None], functions: set[str]) -> str | None:
    """Raise CheckError for what cannot run; return the result's type when the tree shows it."""
    bound = {_macro_variable(node) for node in tree.iter_subtrees() if _macro_variable(node)}
    known = set(base_functions) | functions | MACROS | {"has", "dyn"}
    for node in tree.iter_subtrees():
        if node.data == "ident":
            name = str(node.children[0])
            if name not in declared and name not in bound:
                raise CheckError(node.children[0], f"undeclared reference to '{name}' (in container '')")
        elif node.data in ("ident_arg", "member_dot_arg"):
            token = node.children[0] if node.data == "ident_arg" else node.children[1]
            if str(token) not in known:
                raise CheckError(token, f"undeclared reference to '{token}' (in container '')")
        elif node.data in ("member_dot", "member_dot_opt"):
            _check_field(node, declared)
    return type_of(tree)


def _macro_variable(node: lark.Tree) -> str | None:
    if node.data != "member_dot_arg" or str(node.children[1]) not in MACROS or len(node.children) < 3:
        return None
    args = node.children[2]
    first = args.children[0] if isinstance(args, lark.Tree) and args.children else None
    leaf = _only_leaf(first)
    return str(leaf.children[0]) if leaf is not None and leaf.data == "ident" else None


def _only_leaf(node):
    while isinstance(node, lark.Tree) and len(node.children) == 1 and isinstance(node.children[0], lark.Tree):
        node = node.children[0]
    return node if isinstance(node, lark.Tree) else None


def _schema_of(node, declared: dict[str, dict | None]) -> dict | None:
    """The CRD schema node a chain `self.a.b` reaches, where every step is declared."""
    leaf = _only_leaf(node)
    if leaf is None:
        return None
    if leaf.data == "ident":
        return declared.get(str(leaf.children[0]))
    if leaf.data in ("member_dot", "member_dot_opt"):
        parent = _schema_of(leaf.children[0], declared)
        return ((parent or {}).get("properties") or {}).get(str(leaf.children[1]))
    return None


def _check_field(node: lark.Tree, declared: dict[str, dict | None]) -> None:
    parent = _schema_of(node.children[0], declared)
    if not parent or parent.get("type") != "object" or parent.get("x-kubernetes-preserve-unknown-fields"):
        return
    if "properties" not in parent:
        return
    name = str(node.children[1])
    if name not in parent["properties"] and not _root_meta(parent, name):
        raise CheckError(node.children[1], f"undefined field '{name}'")


def _root_meta(schema: dict, name: str) -> bool:
    return name in ("apiVersion", "kind", "metadata") and schema.get("x-kubernetes-embedded-resource", True)


def type_of(node) -> str | None:
    """The type the tree shows, or None (dyn)."""
    if isinstance(node, lark.Token):
        return LITERALS.get(node.type)
    data, kids = node.data, node.children
    if data in ("conditionalor", "conditionaland") and len(kids) == 2 or data.startswith("relation_"):
        return "bool"
    if data == "relation" and len(kids) == 2:
        return "bool"
    if data in ("addition", "multiplication") and len(kids) == 2:
        return _arithmetic(kids[0], kids[1])
    if data == "unary" and len(kids) == 2:
        return "bool" if kids[0].data == "unary_not" else type_of(kids[1])
    if data == "ident_arg":
        return TYPED_CALLS.get(str(kids[0]))
    if data == "member_dot_arg":
        return TYPED_CALLS.get(str(kids[1]))
    if data in ("member_dot_opt", "member_index_opt"):
        return "optional"
    if data in ("list_lit", "map_lit"):
        return data[:-4]
    if data == "expr" and len(kids) == 3:
        return None
    real = [k for k in kids if k is not None]
    return type_of(real[0]) if len(real) == 1 else None


def _arithmetic(op: lark.Tree, right) -> str | None:
    """`a + b` parses as addition(addition_add(a), b)."""
    if not isinstance(op, lark.Tree) or op.data not in OPERATORS:
        return None
    a, b = type_of(op.children[0]), type_of(right)
    if a is None or b is None:
        return None
    if (a, b) not in ARITHMETIC or (a in ("string", "list", "bytes") and op.data != "addition_add"):
        raise CheckError(_first_token(op), f"found no matching overload for '{OPERATORS[op.data]}' "
                                           f"applied to '({a}, {b})'")
    return a


def _first_token(node):
    for token in node.scan_values(lambda v: isinstance(v, lark.Token)):
        return token
    return None
