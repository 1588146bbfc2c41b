"""Amounts as a person types them: GNOT with up to six decimals, exactly in ugnot."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from c4cli.coins import MAX_AMOUNT, parse_amount
from c4cli.errors import BadInput


@given(
    ugnot=st.integers(min_value=0, max_value=MAX_AMOUNT),
    zeros=st.integers(min_value=0, max_value=4),
    leading=st.booleans(),
)
def test_gnot_text_is_exactly_its_ugnot(ugnot: int, zeros: int, leading: bool) -> None:
    """Decimal, the slow exact reference, agrees with the string arithmetic c4 does."""
    whole, fraction = divmod(ugnot, 1_000_000)
    text = f"{whole if whole or leading else ''}.{fraction:06d}{'0' * zeros}gnot"
    assert parse_amount(text) == {"ugnot": ugnot}
    assert Decimal(text.removesuffix("gnot")) * 1_000_000 == ugnot


@pytest.mark.parametrize("text", ["0.0000001gnot", "1.2345678gnot", "1..5gnot", "1.5.gnot"])
def test_more_than_six_decimals_or_a_second_point_is_refused(text: str) -> None:
    with pytest.raises(BadInput):
        parse_amount(text)
