"""Issue 23, finding 12 in the app: ids and model names holding '__' are safe in component keys,
and bidirectional control characters are shown as code points, never reordering the text."""

import pytest

from pages.widgets.context import component_key, escaped, literal

BIDI = [
    "\u202a",
    "\u202b",
    "\u202c",
    "\u202d",
    "\u202e",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
    "\u200e",
    "\u200f",
]


@pytest.mark.parametrize("control", BIDI)
def test_a_bidirectional_control_is_shown_as_its_code_point(control):
    text = f"(visual, 0:01){control} reads right"
    shown = f"[U+{ord(control):04X}]"
    assert control not in escaped(text) and shown in escaped(text)
    assert control not in literal(text) and "U\\+" + f"{ord(control):04X}" in literal(text)


def test_component_keys_never_hold_two_underscores_in_a_row():
    assert "__" not in component_key("players:m__x/r1|s0|verifiable") and "__" not in component_key(
        "a_" + "_b"
    )
    assert component_key("a__b") != component_key("a_b")
