from decimal import Decimal

import pytest

from api.quantity import milli, parse_quantity, value


@pytest.mark.parametrize("text,expected", [
    ("100m", Decimal("0.1")), ("1.5", Decimal("1.5")), ("128Mi", 128 * 2**20), ("1G", 10**9),
    ("1e3", 1000), ("2Ki", 2048), (2, 2), (0.5, Decimal("0.5")), ("500u", Decimal("0.0005")), ("1E2", 100),
])
def test_parse(text, expected):
    assert parse_quantity(text) == expected


@pytest.mark.parametrize("bad", ["", "lots", "1.2.3", "Mi", "1 Gi", "1iB", True])
def test_malformed(bad):
    with pytest.raises(ValueError):
        parse_quantity(bad)


def test_milli_and_value_round_up_like_kubernetes():
    assert milli("100m") == 100 and milli("1.5") == 1500 and milli("0.0001") == 1
    assert value("1.5Gi") == 3 * 2**29 and value("0.1") == 1
