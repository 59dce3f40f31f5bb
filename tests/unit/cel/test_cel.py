"""The CEL wrapper: Kubernetes' library functions, cel-go's compile-time refusals, the cost budget."""
from __future__ import annotations

import time

import pytest

from api.cel import Budget, CompileError, CostExceeded, EvalError, compile_cel

VAP = ("object", "oldObject", "params", "request", "namespaceObject", "variables")
SCHEMA = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
    "replicas": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}}}}}


@pytest.mark.parametrize("expression,variables,want", [
    pytest.param("object.spec.replicas <= 5", {"object": {"spec": {"replicas": 7}}}, False, id="field"),
    pytest.param("has(object.spec.paused)", {"object": {"spec": {}}}, False, id="has"),
    pytest.param("oldObject == null", {"oldObject": None}, True, id="null-old"),
    pytest.param("[1, 3, 3].isSorted() && ![2, 1].isSorted()", {}, True, id="isSorted"),
    pytest.param("[1, 2, 3].sum()", {}, 6, id="sum"),
    pytest.param("[4, 2, 9].min() + [4, 2, 9].max()", {}, 11, id="min-max"),
    pytest.param("['a', 'b', 'a'].indexOf('a') + ['a', 'b', 'a'].lastIndexOf('a')", {}, 2, id="list-indexOf"),
    pytest.param("'abcab'.indexOf('b') + 'abcab'.lastIndexOf('b')", {}, 5, id="string-indexOf"),
    pytest.param("'abc 123 def 456'.find('[0-9]+')", {}, "123", id="find"),
    pytest.param("'abc 123 def 456'.findAll('[0-9]+')", {}, ["123", "456"], id="findAll"),
    pytest.param("'a1b2c3'.findAll('[0-9]', 2)", {}, ["1", "2"], id="findAll-limit"),
    pytest.param("url('https://example.com:8443/p?x=1&x=2').getHost()", {}, "example.com:8443", id="url-host"),
    pytest.param("url('https://example.com:8443/p').getPort()", {}, "8443", id="url-port"),
    pytest.param("url('https://[::1]/p').getHostname()", {}, "::1", id="url-hostname-v6"),
    pytest.param("url('https://e.com/p?x=1&x=2').getQuery()['x']", {}, ["1", "2"], id="url-query"),
    pytest.param("isURL('not a url') || isURL('/relative')", {}, True, id="isURL"),
    pytest.param("quantity('1Gi').isGreaterThan(quantity('1000Mi'))", {}, True, id="quantity-compare"),
    pytest.param("quantity('500m').add(quantity('1500m')) == quantity('2')", {}, True, id="quantity-add"),
    pytest.param("isQuantity('1Zi')", {}, False, id="isQuantity"),
    pytest.param("'a,b,c'.split(',').join('-').upperAscii()", {}, "A-B-C", id="strings-ext"),
    pytest.param("object.metadata.labels.all(k, k.startsWith('app'))",
                 {"object": {"metadata": {"labels": {"app": "x", "apps": "y"}}}}, True, id="macro-over-map"),
])
def test_evaluates(expression, variables, want):
    assert compile_cel(expression, VAP).evaluate(variables) == want


@pytest.mark.parametrize("expression,schemas,message", [
    pytest.param("object.spec.replicas +", None, "ERROR: <input>:1:21: Syntax error: mismatched input '+'",
                 id="syntax"),
    pytest.param("foo > 1", None, "ERROR: <input>:1:0: undeclared reference to 'foo' (in container '')",
                 id="undeclared-variable"),
    pytest.param("object.frobnicate()", None, "ERROR: <input>:1:7: undeclared reference to 'frobnicate' "
                                              "(in container '')", id="undeclared-function"),
    pytest.param("1 + 'a'", None, "found no matching overload for '_+_' applied to '(int, string)'",
                 id="no-overload"),
    pytest.param("self.spec.replicsa > 1", {"self": SCHEMA}, "ERROR: <input>:1:10: undefined field 'replicsa'",
                 id="undefined-field"),
    pytest.param("x" * 6000, None, "exceeds the limit of 5120", id="too-long"),
])
def test_refused_at_compile(expression, schemas, message):
    variables = ("self", "oldSelf") if schemas else VAP
    with pytest.raises(CompileError) as err:
        compile_cel(expression, variables, schemas)
    assert message in str(err.value)


def test_macro_variables_and_declared_fields_compile():
    program = compile_cel("self.spec.tags.all(t, t.size() < 5) && self.spec.replicas >= 0", ("self",),
                          {"self": SCHEMA})
    assert program.result == "bool"
    assert program.evaluate({"self": {"spec": {"tags": ["ok"], "replicas": 1}}}) is not None


@pytest.mark.parametrize("expression,shown", [
    pytest.param("'text'", "string", id="string"), pytest.param("1 + 2", "int", id="int"),
    pytest.param("object.x", None, id="dyn"), pytest.param("size(object) > 1", "bool", id="bool"),
])
def test_the_result_type_the_tree_shows(expression, shown):
    assert compile_cel(expression, VAP).result == shown


@pytest.mark.parametrize("expression,variables,message", [
    pytest.param("object.spec.missing == 1", {"object": {"spec": {}}}, "no such key: missing", id="no-key"),
    pytest.param("[].max()", {}, "max called on empty list", id="empty-max"),
])
def test_runtime_errors(expression, variables, message):
    with pytest.raises(EvalError, match=message):
        compile_cel(expression, VAP).evaluate(variables)


def test_a_hostile_expression_runs_out_of_budget():
    ten = "[1,2,3,4,5,6,7,8,9,10]"
    hostile = f"{ten}.map(a, {ten}.map(b, {ten}.map(c, {ten}.map(d, {ten}.map(e, a*b*c*d*e))))).size() > 0"
    with pytest.raises(CostExceeded, match="operation cancelled: actual cost limit exceeded"):
        compile_cel(hostile, VAP).evaluate({})


def test_the_cpu_time_fences_too():
    ticks = iter(range(0, 10**9, 10))
    budget = Budget(steps=10**9, seconds=5, clock=lambda: next(ticks))
    with pytest.raises(CostExceeded):
        compile_cel("[1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, a*b)).size() > 0",
                    VAP).evaluate({}, budget)


def test_time_the_thread_did_not_run_is_not_spent():
    budget = Budget(steps=10**9, seconds=0.05)
    time.sleep(0.1)  # the machine running something else: a quarter second of it refused a valid sortBy
    for _ in range(1024):
        budget.spend()


def test_compiled_once():
    assert compile_cel("object.a > 1", VAP) is compile_cel("object.a > 1", VAP)
