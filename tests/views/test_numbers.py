"""Number formats and the answer parser of the views (twins in web/shared.js, held to these by the mirror tests)."""

import pytest

from attention_explorable.views.numbers import format_fixed, format_g, format_number, parse_number


@pytest.mark.parametrize(
    "x, out",
    [
        (0.5, "0.500"),  # three decimals (DECIMALS)
        (1.4e-87, "1.4×10<sup>−87</sup>"),  # a true minus, in the power too
        (float("nan"), "NaN"),
        (float("inf"), "∞"),
        (float("-inf"), "−∞"),
        (-0.0, "0.000"),
        (-0.5, "−0.500"),
        (-0.0004, "−4.0×10<sup>−4</sup>"),
        (2.5e191, "2.5×10<sup>191</sup>"),
        (999999.9, "999999.900"),
        (0.0005, "0.001"),
        (0.00049, "4.9×10<sup>−4</sup>"),
    ],
)
def test_format_number(x, out):
    assert format_number(x) == out
    assert "-" not in out  # a shown number never carries the hyphen


def test_format_number_plain_text_and_other_digits():
    assert (
        format_number(3.7e-44, html=False) == "3.7×10⁻⁴⁴"
    )  # a label holds no markup: the power in superscript characters
    assert format_number(0.125, 2) == "0.12" and format_number(0.375, 2) == "0.38"  # half to even, exact binary


def test_python_formats():
    assert format_g(1.8000000000000007) == "1.8" and format_g(1e-7) == "1e-07" and format_g(-0.0) == "−0"
    assert format_g(-2.5) == "−2.5" and parse_number(format_g(-2.5)) == -2.5  # a box's true minus reads back
    assert format_fixed(2.675, 2) == "2.67"  # 2.675 is 2.67499999... in binary


@pytest.mark.parametrize(
    "raw, value",
    [
        ("0,155", 0.155),
        ("０.１５５", 0.155),
        ("8。4", 8.4),  # a Chinese input method's full stop for "."
        ("42/5", 8.4),
        (" −2 ", -2.0),
        ("1e-3", 0.001),
        ("+.5", 0.5),
        ("5.", 5.0),
        (" 3 / 4 ", 0.75),
        ("16,777,216", 16_777_216),  # commas between thousands
        ("1,000", 1000.0),
        ("1,000.5", 1000.5),
        ("0,212", 0.212),  # a first group of 0: a decimal comma
        ("1,5", 1.5),
        ("2^24", 16_777_216),  # a power
        ("2^-1", 0.5),
        ("-2^2", -4.0),  # the sign after the power, as written
        ("1.28×10²", 128.0),  # scientific notation as the page writes it
        ("1.28×10^2", 128.0),
        ("1.28*10^2", 128.0),
        ("3.7 x 10⁻⁴⁴", 3.7e-44),
        ("10²", 100.0),
        ("4096*4096", 16_777_216),  # a product
        ("4096 × 4096", 16_777_216),
        ("16 777 216", 16_777_216),  # thousands grouped by spaces
        ("16\u2009777\u2009216", 16_777_216),
    ],
)
def test_parse_number_accepts_what_a_student_types(raw, value):
    assert parse_number(raw) == pytest.approx(value)


@pytest.mark.parametrize(
    "raw",
    ["", "  ", "abc", "inf", "nan", "0x10", "1_000", "1e999", "1/0", "2/3/4", "٣", "- 5", "\ufeff8.4"]
    + ["10^400", "0^-1", "2^", "^2", "2^3^4", "2^3/4", "1,00,000", "(-2)^2"]
    + ["2*3*4", "2*3^2", "1 2", "16 77 216", "×10^2", "1.2e3×10^2", "2×", "32 MiB", "70%"],
)
def test_parse_number_refuses_the_rest_quoting_it(raw):
    with pytest.raises(ValueError, match="answer must be a"):
        parse_number(raw)
