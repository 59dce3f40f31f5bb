import pytest

from api.selectors import from_label_selector, parse, requirement

LABELS = {"app": "web", "tier": "front", "version": "3"}


@pytest.mark.parametrize("text,matches", [
    ("", True), ("app=web", True), ("app==web", True), ("app!=web", False), ("app!=db", True),
    ("missing!=x", True), ("app in (web,api)", True), ("app notin (web)", False), ("missing notin (x)", True),
    ("tier", True), ("!tier", False), ("!missing", True), ("app=web,tier=back", False),
    ("app in (web), tier notin (back)", True),
])
def test_string_selectors(text, matches):
    assert parse(text).matches(LABELS) is matches


@pytest.mark.parametrize("bad", ["app in web", "app in (web", "app ~ web"])
def test_bad_selectors_raise(bad):
    with pytest.raises(ValueError):
        parse(bad)


def test_label_selector_nil_matches_nothing_empty_everything():
    assert not from_label_selector(None).matches(LABELS)
    assert from_label_selector({}).matches(LABELS)
    sel = from_label_selector({"matchLabels": {"app": "web"},
                               "matchExpressions": [{"key": "tier", "operator": "In", "values": ["front"]}]})
    assert sel.matches(LABELS) and not sel.matches({"app": "web"})


@pytest.mark.parametrize("op,values,labels,matches", [
    ("Gt", ["2"], {"version": "3"}, True), ("Gt", ["3"], {"version": "3"}, False),
    ("Lt", ["4"], {"version": "3"}, True), ("Gt", ["2"], {"version": "x"}, False),
    ("Exists", [], {"version": ""}, True), ("DoesNotExist", [], {}, True),
])
def test_requirements(op, values, labels, matches):
    assert requirement("version", op, values).matches(labels) is matches


@pytest.mark.parametrize("op,values", [("In", []), ("Exists", ["x"]), ("Gt", ["1", "2"]), ("Gt", ["x"]),
                                       ("Near", ["x"])])
def test_requirement_value_counts(op, values):
    with pytest.raises(ValueError):
        requirement("k", op, values)
