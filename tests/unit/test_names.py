import pytest

from api import names


@pytest.mark.parametrize("name,ok", [
    ("web", True), ("web-1.example.com", True), ("Web", False), ("web_1", False), ("-web", False),
    ("a" * 253, True), ("a" * 254, False), ("", False),
])
def test_subdomain(name, ok):
    assert (not names.subdomain_errors(name)) is ok


@pytest.mark.parametrize("name,ok", [("team-a", True), ("a" * 63, True), ("a" * 64, False), ("a.b", False)])
def test_label(name, ok):
    assert (not names.label_errors(name)) is ok


@pytest.mark.parametrize("key,ok", [
    ("app", True), ("example.com/app", True), ("app.kubernetes.io/name", True), ("/app", False),
    ("Example.com/app", False), ("a" * 64, False), ("x/" + "a" * 63, True), ("bad key", False),
])
def test_qualified_names(key, ok):
    assert (not names.qualified_name_errors(key)) is ok


@pytest.mark.parametrize("value,ok", [("", True), ("v1.2_x", True), ("-v", False), ("a" * 64, False)])
def test_label_values(value, ok):
    assert (not names.label_value_errors(value)) is ok


def test_generate_name_prefix_may_end_with_dash():
    assert not names.generate_name_prefix_errors("web-")
    assert names.generate_name_prefix_errors("Web-")
