"""The name and label rules remember their answers for short strings only: a long invalid string,
however often sent, is checked each time and not kept."""
from api import names


def test_a_valid_name_is_answered_from_memory():
    assert names.label_errors("web") == () and names.label_errors("web") is names.label_errors("web")


def test_a_string_longer_than_any_valid_one_is_not_kept():
    long = "x" * (names.REMEMBERED_CHARS + 1)
    first, again = names.label_value_errors(long), names.label_value_errors(long)
    assert first == again and first is not again and "must be no more than 63 characters" in first
