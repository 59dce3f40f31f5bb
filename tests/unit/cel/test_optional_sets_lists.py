"""Optional types (functions and the `.?` / `[?` syntax), cel-go's sets and lists (v3) extensions — the
lists cases are cel-go's own (`ext/lists_test.go`) — and what the checker now knows of them."""
from __future__ import annotations

import pytest

from api.cel import CompileError, EvalError, compile_cel

VAP = ("object", "oldObject", "params", "request", "namespaceObject", "variables")
OBJECT = {"object": {"spec": {"replicas": 3, "ports": [80], "labels": {"app": "web"}}}}


def run(expression: str, variables: dict | None = None):
    return compile_cel(expression, VAP).evaluate(OBJECT if variables is None else variables)


@pytest.mark.parametrize("expression,want", [
    pytest.param("optional.of(1).value()", 1, id="of"),
    pytest.param("optional.of(1).hasValue() && !optional.none().hasValue()", True, id="hasValue"),
    pytest.param("optional.none().orValue(5)", 5, id="orValue-none"),
    pytest.param("optional.of(1).orValue(5)", 1, id="orValue-some"),
    pytest.param("optional.none().or(optional.of(2)).value()", 2, id="or"),
    pytest.param("optional.of(1).or(optional.of(2)).value()", 1, id="or-first"),
    pytest.param("optional.ofNonZeroValue('').hasValue() || optional.ofNonZeroValue(0).hasValue() "
                 "|| optional.ofNonZeroValue([]).hasValue()", False, id="ofNonZeroValue-zero"),
    pytest.param("optional.ofNonZeroValue('a').value()", "a", id="ofNonZeroValue"),
    pytest.param("optional.none() == optional.none() && optional.of(1) == optional.of(1)", True, id="equality"),
    pytest.param("object.?spec.?replicas.orValue(0)", 3, id="select"),
    pytest.param("object.?spec.?paused.orValue(false)", False, id="select-absent"),
    pytest.param("object.?status.?phase.orValue('none')", "none", id="select-through-none"),
    pytest.param("object.?spec.labels.app.value()", "web", id="chain-after-optional"),
    pytest.param("object.?spec.labels.missing.hasValue()", False, id="chain-absent"),
    pytest.param("object.spec.labels[?'app'].value()", "web", id="index-map"),
    pytest.param("object.spec.labels[?'tier'].orValue('none')", "none", id="index-map-absent"),
    pytest.param("object.spec.ports[?0].value() + object.spec.ports[?3].orValue(0)", 80, id="index-list"),
    pytest.param("object.?spec[?'replicas'].value()", 3, id="index-after-optional"),
    pytest.param("true ? object.spec.replicas : 0", 3, id="ternary-still-parses"),
])
def test_optional(expression, want):
    assert run(expression) == want


def test_an_absent_value_is_an_error():
    with pytest.raises(EvalError, match=r"optional.none\(\) dereference"):
        run("object.?status.value()")


@pytest.mark.parametrize("expression,want", [
    pytest.param("sets.contains([], [])", True, id="contains-empty"),
    pytest.param("sets.contains([1, 2, 3, 4], [2, 3])", True, id="contains"),
    pytest.param("sets.contains([1, 2, 3], [3, 4])", False, id="contains-not"),
    pytest.param("sets.contains([1, 2.0, 3u], [1.0, 2u, 3])", True, id="contains-numbers"),
    pytest.param("sets.contains([[1], [2, 3]], [[2, 3.0]])", True, id="contains-lists"),
    pytest.param("sets.equivalent([1, 2, 3], [3u, 2.0, 1])", True, id="equivalent"),
    pytest.param("sets.equivalent([1, 2], [1, 2, 3])", False, id="equivalent-not"),
    pytest.param("sets.equivalent([1, 1, 2], [2, 1])", True, id="equivalent-duplicates"),
    pytest.param("sets.intersects([1], [1.0, 2])", True, id="intersects"),
    pytest.param("sets.intersects([1], [])", False, id="intersects-empty"),
    pytest.param("sets.intersects([true], [1])", False, id="bool-is-no-number"),
    pytest.param("sets.contains(['a', 1], [1]) && !sets.contains(['a'], [1])", True, id="mixed-types"),
])
def test_sets(expression, want):
    assert run(expression) == want


@pytest.mark.parametrize("expression", [
    "lists.range(4) == [0,1,2,3]", "lists.range(0) == []", "[5,1,2,3].reverse() == [3,2,1,5]", "[].reverse() == []",
    "['are', 'you', 'as', 'bored', 'as', 'I', 'am'].reverse() == ['am', 'I', 'as', 'bored', 'as', 'you', 'are']",
    "[false, true, true].reverse().reverse() == [false, true, true]",
    "[1,2,3,4].slice(0, 4) == [1,2,3,4]", "[1,2,3,4].slice(0, 0) == []", "[1,2,3,4].slice(4, 4) == []",
    "[1,2,3,4].slice(1, 3) == [2, 3]",
    "dyn([]).flatten() == []", "dyn([1,2,3,4]).flatten() == [1,2,3,4]", "[1,[2,[3,4]]].flatten() == [1,2,[3,4]]",
    "[1,2,[],[],[3,4]].flatten() == [1,2,3,4]", "[1,[2,[3,4]]].flatten(2) == [1,2,3,4]",
    "[].sort() == []", "[1].sort() == [1]", "[4, 3, 2, 1].sort() == [1, 2, 3, 4]",
    '["d", "a", "b", "c"].sort() == ["a", "b", "c", "d"]',
    "[].sortBy(e, e) == []", '["a"].sortBy(e, e) == ["a"]',
    "[-3, 1, -5, -2, 4].sortBy(e, -(e * e)) == [-5, 4, -3, -2, 1]",
    "[-3, 1, -5, -2, 4].map(e, e * 2).sortBy(e, -(e * e)) == [-10, 8, -6, -4, 2]",
    "lists.range(3).sortBy(e, -e) == [2, 1, 0]",
    '["a", "c", "b", "first"].sortBy(e, e == "first" ? "" : e) == ["first", "a", "b", "c"]',
    "[{'field': 'lo'}, {'field': 'hi'}].sortBy(m, m.field) == [{'field': 'hi'}, {'field': 'lo'}]",
    "[].distinct() == []", "[-2, 5, -2, 1, 1, 5, -2, 1].distinct() == [-2, 5, 1]",
    "['c', 'a', 'a', 'b', 'a', 'b', 'c', 'c'].distinct() == ['c', 'a', 'b']",
    '[1, 2.0, "c", 3, "c", 1].distinct() == [1, 2.0, "c", 3]', "[1, 1.0, 2].distinct() == [1, 2]",
    "[[1], [1], [2]].distinct() == [[1], [2]]",
])
def test_lists_cel_go_cases(expression):
    assert run(expression) is not None and bool(run(expression)) is True


@pytest.mark.parametrize("expression,message", [
    pytest.param("[1,2,3,4].slice(3, 0)", "cannot slice(3, 0), start index must be less than or equal to end index",
                 id="slice-order"),
    pytest.param("[1,2,3,4].slice(0, 10)", "cannot slice(0, 10), list is length 4", id="slice-length"),
    pytest.param("[1,2,3,4].slice(-5, 10)", "cannot slice(-5, 10), negative indexes not supported", id="slice-neg"),
    pytest.param("[1,[2,[3,[4]]]].flatten(-1)", "level must be non-negative", id="flatten-level"),
    pytest.param("dyn({}).flatten()", "no such overload", id="flatten-map"),
    pytest.param('["d", 3, 2, "c"].sort()', "list elements must have the same type", id="sort-mixed"),
])
def test_lists_errors(expression, message):
    with pytest.raises(EvalError) as err:
        run(expression)
    assert message in str(err.value)


@pytest.mark.parametrize("expression,shown", [
    pytest.param("isCIDR(object.x)", "bool", id="isCIDR"), pytest.param("ip('::1').family()", "int", id="family"),
    pytest.param("sets.contains(object.a, object.b)", "bool", id="sets"),
    pytest.param("object.?spec", "optional", id="optional-select"),
    pytest.param("object[?'spec']", "optional", id="optional-index"),
    pytest.param("format.dns1123Label().validate(object.x)", "optional", id="validate"),
    pytest.param("object.?spec.orValue(1)", None, id="orValue-dyn"),
    pytest.param("[3, 1].sortBy(x, x)", "list", id="sortBy"),
])
def test_the_checker_knows_the_libraries(expression, shown):
    assert compile_cel(expression, VAP).result == shown


def test_the_checker_sees_through_optional_selection():
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {"cidr": {"type": "string"}}}}}
    assert compile_cel("self.?spec.?cidr.orValue('') != ''", ("self",), {"self": schema}).result == "bool"
    with pytest.raises(CompileError, match="undefined field 'cidrs'"):
        compile_cel("self.spec.?cidrs.hasValue()", ("self",), {"self": schema})
    with pytest.raises(CompileError, match="undeclared reference to 'sets.nope'"):
        compile_cel("sets.nope([1], [2])", ("self",), {"self": schema})
