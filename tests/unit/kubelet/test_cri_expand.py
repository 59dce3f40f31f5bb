"""$(VAR) expansion as Kubernetes' forked golang expansion does it (k8s-containers.md §4.5), with its own tests' cases."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from actors.kubelet.cri.expand import expand, expand_all

ENV = {"VAR_A": "A", "VAR_B": "B", "VAR_C": "C", "VAR_REF": "$(VAR_A)", "VAR_EMPTY": "", "BLOCK": "$$x"}


@pytest.mark.parametrize("text, expected", [
    pytest.param("$(VAR_A)", "A", id="whole"),
    pytest.param("___$(VAR_B)___", "___B___", id="inside"),
    pytest.param("$(VAR_A)-$(VAR_B)-$(VAR_C)", "A-B-C", id="several"),
    pytest.param("$(VAR_A)$(VAR_B)", "AB", id="adjacent"),
    pytest.param("$(VAR_REF)", "$(VAR_A)", id="not-recursive"),
    pytest.param("$(VAR_EMPTY)", "", id="empty-value"),
    pytest.param("$(UNKNOWN)", "$(UNKNOWN)", id="undefined-kept"),
    pytest.param("$()", "$()", id="empty-name-undefined"),
    pytest.param("$$(VAR_A)", "$(VAR_A)", id="escaped"),
    pytest.param("$$$(VAR_A)", "$A", id="escaped-then-ref"),
    pytest.param("$$$$(VAR_A)", "$$(VAR_A)", id="two-escapes"),
    pytest.param("$$", "$", id="escape-alone"),
    pytest.param("$", "$", id="lone-at-end"),
    pytest.param("foo$", "foo$", id="trailing"),
    pytest.param("$VAR_A", "$VAR_A", id="no-parens"),
    pytest.param("$(VAR_A", "$(VAR_A", id="unclosed"),
    pytest.param("$(VAR_A$(VAR_B)", "$(VAR_A$(VAR_B)", id="name-up-to-first-closer"),
    pytest.param("($(VAR_A))", "(A)", id="parens-around"),
    pytest.param("$(BLOCK)", "$$x", id="value-not-unescaped"),
    pytest.param("héllo $(VAR_A) ü$", "héllo A ü$", id="unicode"),
    pytest.param("", "", id="empty"),
])
def test_expand(text, expected):
    assert expand(text, ENV) == expected


def test_expand_all():
    assert expand_all(["sh", "-c", "echo $(VAR_A) $$HOME"], ENV) == ["sh", "-c", "echo A $HOME"]
    assert expand_all(None, ENV) == []


names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True)


@given(st.text().filter(lambda s: "$" not in s))
def test_text_without_dollar_is_unchanged(text):
    assert expand(text, ENV) == text


@given(names, st.text())
def test_a_defined_variable_becomes_its_value(name, value):
    assert expand(f"<$({name})>", {name: value}) == f"<{value}>"


@given(st.text(alphabet="ab$()", max_size=30))
def test_escaping_every_dollar_gives_the_text_back(text):
    assert expand(text.replace("$", "$$"), ENV) == text
