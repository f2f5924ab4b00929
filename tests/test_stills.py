"""The still pictures of the first paint (attention_explorable.stills): the view's numbers, drawn where the live page draws them."""

from __future__ import annotations

import logging
import re
import xml.etree.ElementTree as ET

import pytest
from bokeh.models import ColumnDataSource
from bokeh.plotting import figure

from attention_explorable import stills
from attention_explorable.explorables.matrix import MatrixExplorer
from attention_explorable.explorables.selfcross import SelfCrossExplorer
from attention_explorable.explorables.steps import StepsExplorer
from attention_explorable.explorables.vector import VectorExplorer


def _svg(picture: str) -> ET.Element:
    """The frame's SVG of a picture, parsed (the picture's HTML around it is not XML)."""
    match = re.search(r"(<svg xmlns='http://www.w3.org/2000/svg'.*?</svg>)</div>", picture, re.S)
    assert match, picture[:200]
    return ET.fromstring(match.group(1))


def _pct(value: str) -> float:
    assert value.endswith("%"), value
    return float(value[:-1]) / 100


NS = "{http://www.w3.org/2000/svg}"


def test_the_weight_bars_are_as_tall_as_the_views_weights():
    ex = StepsExplorer()
    weights = ex.view()["sources"]["weights"]["weight"]
    frame = _svg(stills.figure_svg(ex._weights_fig))
    bars = [r for r in frame.iter(f"{NS}rect")]
    top = ex._weights_fig.y_range.end  # the bars stand on 0 in a range 0 .. end
    assert [round(_pct(r.get("height")) * top, 4) for r in bars] == pytest.approx(weights, abs=1e-4)
    # α₂ is the second factor: its bar is right of the middle.
    assert _pct(bars[1].get("x")) > 0.5 > _pct(bars[0].get("x"))


def test_the_output_marker_stands_at_the_views_output_on_the_number_line():
    ex = StepsExplorer()
    ex.go_to_step(2)
    ex.demonstrate()
    y = ex.view()["sources"]["output"]["x"][0]
    fig = ex._line_fig
    picture = stills.figure_svg(fig)
    frame = _svg(picture)
    output = [m for m in frame.iter(f"{NS}svg") if m.find(f"{NS}path") is not None
              and m.find(f"{NS}path").get("fill") == "#DD8452"]
    assert len(output) == 1
    x = fig.x_range.start + _pct(output[0].get("x")) * (fig.x_range.end - fig.x_range.start)
    assert x == pytest.approx(y, abs=1e-3)
    assert f"y={y:.2f}" in picture  # its label, as the live plot writes it


def test_a_hidden_plot_has_no_picture_until_it_is_shown():
    ex = StepsExplorer()
    ex.go_to_step(3)
    title = ex._curve_fig.title.text
    assert title not in stills.still_html(ex)  # step 3's curve comes with its demonstration
    ex.demonstrate()
    assert title in stills.still_html(ex)


def test_a_sliders_handle_stands_at_its_value():
    ex = StepsExplorer(temperature=2.5)
    slider, _, _ = ex._sliders["temperature"]
    still = stills.still_html(ex)
    lo, hi = slider.start, slider.end
    handles = [float(v) / 100 for v in re.findall(r"ae-still-handle' style='left:([\d.]+)%'", still)]
    assert (2.5 - lo) / (hi - lo) == pytest.approx(handles[1], abs=1e-4)  # the second slider: the temperature


@pytest.mark.parametrize("explorer", [MatrixExplorer, SelfCrossExplorer])
def test_every_heatmap_cell_is_drawn_with_its_number_and_colour(explorer):
    ex = explorer()
    fig = ex._weight_fig if explorer is MatrixExplorer else ex._figure
    cells = fig.renderers[0].data_source.data
    frame = _svg(stills.figure_svg(fig))
    fills = [r.get("fill") for r in frame.iter(f"{NS}rect") if r.get("fill") != "none"]
    texts = [t.text for t in frame.iter(f"{NS}text")]
    assert fills == list(cells["fill"])
    assert texts == list(cells["text"])


def test_the_vector_pictures_arrows_end_at_the_keys_and_the_query():
    ex = VectorExplorer(query_x=1.5, query_y=-0.5)
    frame = _svg(stills.figure_svg(ex._figure))
    arrows = [line for line in frame.iter(f"{NS}line") if line.get("marker-end")]
    assert len(arrows) == 4  # three keys and the query
    query = arrows[-1]
    # The query's end lies right of and below the origin's, as (1.5, -0.5) does.
    assert _pct(query.get("x2")) > _pct(query.get("x1")) and _pct(query.get("y2")) > _pct(query.get("y1"))


def test_the_still_carries_no_class_a_live_control_or_readout_is_found_by():
    still = stills.still_html(StepsExplorer())
    for live in ("ae-readouts", "ae-score-diff", "ae-demonstrate", "ae-question", "ae-live", "ae-step-1",
                 "ae-temperature-readout", "ae-output", "ae-weight-1"):  # the last: inside a readout's HTML
        assert not re.search(rf"class='[^']*\b{live}\b", still), live
    assert "第 1 步" in still and "0.7311" in still  # but the step's buttons and the readouts' numbers


def test_ticks_are_bokehs():
    assert stills._nice_ticks(0, 12, 6) == [0, 2, 4, 6, 8, 10, 12]
    assert stills._nice_ticks(0, 1.15, 6) == pytest.approx([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    assert stills._tick_labels([-2.0, -1.0, 0.0, 1.0]) == ["\u22122", "\u22121", "0", "1"]
    assert stills._tick_labels([0.0, 0.2, 0.4]) == ["0", "0.2", "0.4"]
    fig = figure(x_axis_type="log", x_range=(0.01, 10))
    fig.line([0.1, 1], [0, 1])
    x = stills._Axis1d(fig.x_range, fig.x_scale, [])
    assert [label for _, label in x.ticks(fig.xaxis[0])] == ["0.01", "0.1", "1", "10"]


def test_a_glyph_the_pictures_do_not_draw_is_left_out_with_a_warning(caplog):
    fig = figure(x_range=(0, 1), y_range=(0, 1), title="t")
    fig.wedge(x=[0.5], y=[0.5], radius=0.2, start_angle=0, end_angle=1)
    fig.scatter(x="x", y="y", source=ColumnDataSource({"x": [0.25], "y": [0.75]}), size=10)
    with caplog.at_level(logging.WARNING, logger="attention_explorable.stills"):
        picture = stills.figure_svg(fig)
    assert "Wedge" in caplog.text
    frame = _svg(picture)
    marker = frame.find(f"{NS}svg")
    assert (marker.get("x"), marker.get("y")) == ("25.000%", "25.000%")  # y up: 0.75 is a quarter from the top


def test_a_first_paints_picture_frame_is_an_image_of_the_same_svg():
    from urllib.parse import unquote

    ex = VectorExplorer()
    inline = stills.figure_svg(ex._figure)
    image = stills.figure_svg(ex._figure, image=True)
    src = re.search(r'<img alt=\'\' src="data:image/svg\+xml,([^"]*)">', image).group(1)
    assert '"' not in src and "#" not in src and re.search(r"%(?![0-9A-F]{2})", src) is None  # all escaped
    assert unquote(src) == re.search(r"(<svg xmlns='http://www.w3.org/2000/svg'.*?</svg>)</div>", inline, re.S).group(1)
