"""Bokeh figure builders.

Each builder takes the ``ColumnDataSource`` objects it draws and returns a
figure; it is called once per component instance. Components change what
is drawn only by assigning fresh ``source.data`` dicts (and range bounds),
never by building a figure again.
"""

from __future__ import annotations

import math

from bokeh.models import (
    Arrow,
    ColumnDataSource,
    DataRange1d,
    FixedTicker,
    GlyphRenderer,
    HoverTool,
    LabelSet,
    PointDrawTool,
    Range1d,
    Span,
    VeeHead,
)
from bokeh.plotting import figure

from .ui import FONT_FAMILY

PALETTE = {
    "value": "#4C72B0",
    "output": "#DD8452",
    "prediction": "#55A868",
    "interval": "#B3CDE3",
    "weight": "#8172B2",
    "curve": "#4C72B0",
    "earlier": "#333333",
    "sure": "#2E6B3F",
}

_FONT = FONT_FAMILY


def _base_figure(title: str, **kw):
    # No default tools: with the toolbar hidden they would only let a stray
    # drag pan a plot away, and each costs models in every session.
    kw.setdefault("tools", "")
    fig = figure(
        title=title,
        toolbar_location=None,
        sizing_mode="stretch_width",
        min_width=260,
        **kw,
    )
    fig.title.text_font = _FONT
    fig.title.text_font_size = "13px"
    for axis in (fig.xaxis, fig.yaxis):
        axis.axis_label_text_font = _FONT
        axis.axis_label_text_font_style = "normal"
    return fig


def _slim(fig):
    """Drop the per-renderer copies of each glyph that ``figure`` makes for
    unselected and muted points: nothing here is selected or muted, and
    BokehJS derives them ("auto") if ever needed. Returns ``fig``."""
    for r in fig.renderers:
        if isinstance(r, GlyphRenderer):
            r.nonselection_glyph = "auto"
            r.muted_glyph = "auto"
    return fig


def _legend_below(fig, **style) -> None:
    """Move the figure's legend under the plot, in one horizontal band."""
    fig.add_layout(fig.legend[0], "below")
    fig.legend.orientation = "horizontal"
    fig.legend.label_text_font = _FONT
    fig.legend.label_text_font_size = "14px"  # readable on a phone
    fig.legend.padding = 2
    if len(fig.legend[0].items) > 2:  # two columns: fits a phone's width
        fig.legend.ncols = 2
    for name, value in style.items():
        setattr(fig.legend, name, value)


def number_line_figure(
    values: ColumnDataSource,
    interval: ColumnDataSource,
    output: ColumnDataSource,
    prediction: ColumnDataSource,
    title: str,
    labels: dict,
):
    """The number line: values ``v_1, v_2``, their interval, output and prediction.

    Parameters
    ----------
    values : ColumnDataSource
        Columns ``x`` (value positions) and ``label`` (text drawn above).
    interval : ColumnDataSource
        Columns ``x0``, ``x1``: ends of the convex interval ``[min v, max v]``.
    output : ColumnDataSource
        Columns ``x``, ``label``: the output ``y`` (empty while hidden).
    prediction : ColumnDataSource
        Columns ``x``, ``label``: the student's prediction (may be empty).
    title : str
        Figure title.
    labels : dict
        Legend labels: keys ``interval``, ``value``, ``output``, ``prediction``.

    Returns
    -------
    bokeh.plotting.figure
        Its ``x_range`` is a :class:`~bokeh.models.Range1d` the caller may
        move to keep every marker in view.
    """
    # Rows, from the top: the output y and its label, the values and their labels,
    # the prediction and its label below; far enough apart that no label covers
    # another marker, and inside the frame.
    fig = _base_figure(title, height=250, x_range=Range1d(0, 12), y_range=Range1d(-2.2, 2.8))
    fig.yaxis.visible = False
    fig.ygrid.visible = False
    fig.hbar(
        y=0,
        left="x0",
        right="x1",
        height=0.35,
        source=interval,
        color=PALETTE["interval"],
        legend_label=labels["interval"],
    )
    fig.scatter("x", 0, source=values, size=14, color=PALETTE["value"], legend_label=labels["value"])
    fig.add_layout(
        LabelSet(
            x="x",
            y=0,
            text="label",
            source=values,
            y_offset=12,
            text_align="center",
            text_font_size="12px",
            text_color=PALETTE["value"],
        )
    )
    fig.scatter(
        "x",
        1.6,
        source=output,
        marker="inverted_triangle",
        size=18,
        color=PALETTE["output"],
        legend_label=labels["output"],
    )
    fig.add_layout(
        LabelSet(
            x="x",
            y=1.6,
            text="label",
            source=output,
            y_offset=10,
            text_align="center",
            text_font_size="12px",
            text_color=PALETTE["output"],
        )
    )
    fig.scatter("x", -0.85, source=prediction, marker="triangle", size=16, color=PALETTE["prediction"])
    # The legend's entry has its marker before a prediction too: Bokeh draws an entry's swatch from its
    # renderer's data, and the prediction's is empty until the student predicts (a point never on the plot).
    fig.scatter(
        [math.nan],
        [math.nan],
        marker="triangle",
        size=16,
        color=PALETTE["prediction"],
        legend_label=labels["prediction"],
    )
    fig.add_layout(
        LabelSet(
            x="x",
            y=-0.85,
            text="label",
            source=prediction,
            y_offset=-24,
            text_align="center",
            text_font_size="12px",
            text_color=PALETTE["prediction"],
        )
    )
    _legend_below(fig, spacing=6, background_fill_alpha=0.6)
    return _slim(fig)


def weights_figure(weights: ColumnDataSource, title: str, y_label: str):
    """Bar chart of attention weights.

    Parameters
    ----------
    weights : ColumnDataSource
        Columns ``name`` (category, e.g. ``"α₁"``), ``weight`` in [0, 1] and
        ``label`` (the formatted number drawn above the bar).
    title, y_label : str
        Figure title and y-axis label.
    """
    names = list(weights.data["name"])
    fig = _base_figure(title, height=200, x_range=names, y_range=Range1d(0, 1.15))
    fig.vbar(x="name", top="weight", width=0.6, source=weights, color=PALETTE["weight"])
    fig.add_layout(
        LabelSet(
            x="name", y="weight", text="label", source=weights, y_offset=4, text_align="center", text_font_size="12px"
        )
    )
    fig.yaxis.axis_label = y_label
    fig.xgrid.visible = False
    return _slim(fig)


def temperature_curve_figure(
    curve: ColumnDataSource,
    point: ColumnDataSource,
    title: str,
    x_label: str,
    y_label: str,
    t_range: tuple[float, float],
):
    """Weight of the larger score as a function of the temperature.

    Parameters
    ----------
    curve : ColumnDataSource
        Columns ``t`` (temperatures, > 0) and ``weight``.
    point : ColumnDataSource
        Columns ``t``, ``weight``: the current setting, one row.
    t_range : (float, float)
        Bounds of the log-scaled temperature axis.
    """
    fig = _base_figure(title, height=200, x_axis_type="log", x_range=Range1d(*t_range), y_range=Range1d(0.4, 1.03))
    fig.line("t", "weight", source=curve, line_width=2, color=PALETTE["curve"])
    fig.scatter("t", "weight", source=point, size=11, color=PALETTE["output"])
    fig.add_tools(HoverTool(tooltips=[("T", "@t{0.000}"), ("a", "@weight{0.0000}")]))
    fig.xaxis.axis_label = x_label
    fig.yaxis.axis_label = y_label
    return _slim(fig)


# --- section 3.7 explorables: vector, matrix, self/cross ----------------------

PALETTE_37 = {
    "query": "#C44E52",
    "key": "#7F7F7F",
    "value": "#4C72B0",
    "hull": "#B3CDE3",
    "output": "#DD8452",
    "scaled": "#4C72B0",
    "unscaled": "#DD8452",
    "masked": "#E4E4E4",
    "highlight": "#C44E52",
}


def vector_figure(
    query: ColumnDataSource,
    keys: ColumnDataSource,
    values: ColumnDataSource,
    hull: ColumnDataSource,
    output: ColumnDataSource,
    title: str,
    labels: dict,
    extent: float = 2.0,
):
    """The plane of the 3.7 worked example: query, keys, values, their hull, the output.

    Parameters
    ----------
    query : ColumnDataSource
        Columns ``x``, ``y``, ``label`` and the label's ``dx``, ``dy`` (px) and ``align``; one row, the
        tip of the query arrow.
        A :class:`~bokeh.models.PointDrawTool` (active, no adding) lets the
        student drag it; the caller listens to ``query.on_change("data")``.
    keys : ColumnDataSource
        Columns ``x``, ``y`` (key tips, drawn as arrows from the origin),
        ``label``, ``lx``, ``ly`` (where the label is anchored), ``dx``,
        ``dy`` (its offset in pixels) and ``align`` (its text alignment).
    values : ColumnDataSource
        Columns ``x``, ``y``, ``size`` (value points, size ~ weight) and
        ``label``, ``dx``, ``dy``, ``align`` as for the keys.
    hull : ColumnDataSource
        Columns ``x``, ``y``: vertices of the convex hull of the values, in order.
    output : ColumnDataSource
        Columns ``x``, ``y``, ``label``: the output point ``y``.
    title : str
        Figure title.
    labels : dict
        Legend labels: keys ``query``, ``key``, ``value``, ``hull``, ``output``.
    extent : float, default 2.0
        Half-width of the square kept in view (the bounds of the query).
    """
    fig = _base_figure(
        title,
        height=500,
        max_width=520,
        match_aspect=True,
        tools="",
        x_range=DataRange1d(range_padding=0.02),
        y_range=DataRange1d(range_padding=0.02),
    )
    pad = extent + 0.1
    fig.scatter([-pad, pad], [-pad, pad], alpha=0)  # keeps the square [-pad, pad]² in view
    for dim in ("width", "height"):
        fig.add_layout(Span(location=0, dimension=dim, line_color="#999", line_width=1))
    c = PALETTE_37
    fig.patch(
        "x",
        "y",
        source=hull,
        fill_color=c["hull"],
        fill_alpha=0.6,
        line_color=c["value"],
        line_dash="dashed",
        legend_label=labels["hull"],
    )

    def from_origin(source: ColumnDataSource, color: str, width: float, head: int, alpha: float = 1.0) -> Arrow:
        """Arrows from the origin to each point of ``source`` (as figures.js ``arrow``)."""
        end = VeeHead(size=head, fill_color=color, line_color=color)
        return Arrow(
            end=end,
            x_start=0,
            y_start=0,
            x_end="x",
            y_end="y",
            source=source,
            line_color=color,
            line_alpha=alpha,
            line_width=width,
        )

    # The query's arrow wide and see-through, under the keys' thin ones: a query on a key (the worked
    # example opens on q = k₁) leaves the key in sight inside it.
    fig.add_layout(from_origin(query, c["query"], 5, 14, alpha=0.8))
    fig.add_layout(from_origin(keys, c["key"], 2, 10))
    fig.line([0, 0], [0, 0], color=c["key"], line_width=2, legend_label=labels["key"])  # legend entry only
    fig.add_layout(
        LabelSet(
            x="lx",
            y="ly",
            text="label",
            source=keys,
            x_offset="dx",
            y_offset="dy",
            text_align="align",
            text_baseline="middle",
            text_font_size="12px",
            text_color="#555",
        )
    )
    fig.scatter("x", "y", source=values, size="size", color=c["value"], fill_alpha=0.8, legend_label=labels["value"])
    fig.add_layout(
        LabelSet(
            x="x",
            y="y",
            text="label",
            source=values,
            x_offset="dx",
            y_offset="dy",
            text_align="align",
            text_baseline="middle",
            text_font_size="12px",
            text_color=c["value"],
        )
    )
    fig.scatter(
        "x",
        "y",
        source=output,
        marker="star",
        size=20,
        color=c["output"],
        line_color="#333",
        legend_label=labels["output"],
    )
    fig.add_layout(
        LabelSet(
            x="x",
            y="y",
            text="label",
            source=output,
            x_offset="dx",
            y_offset="dy",
            text_align="align",
            text_baseline="middle",
            text_font_size="13px",
            text_color="#8a4a12",
            text_font_style="bold",
        )
    )
    tip = fig.scatter(
        "x", "y", source=query, size=18, color=c["query"], fill_alpha=0.3, line_width=2, legend_label=labels["query"]
    )
    fig.add_layout(
        LabelSet(
            x="x",
            y="y",
            text="label",
            source=query,
            x_offset="dx",
            y_offset="dy",
            text_align="align",
            text_baseline="middle",
            text_font_size="14px",
            text_color=c["query"],
            text_font_style="bold",
        )
    )
    drag = PointDrawTool(renderers=[tip], add=False, num_objects=1)
    fig.add_tools(drag)
    fig.toolbar.active_tap = drag
    fig.toolbar.active_drag = drag
    _legend_below(fig, spacing=4, ncols=2)
    return _slim(fig)


def heatmap_figure(
    cells: ColumnDataSource,
    title: str,
    x_label: str,
    y_label: str,
    highlight: ColumnDataSource | None = None,
    n: int = 4,
    height: int = 300,
):
    """A matrix drawn as coloured cells with its numbers written in.

    Row ``i`` (a query) runs downwards from the top, column ``j`` (a key)
    to the right, both numbered from 1, as the matrix is written on paper.

    Parameters
    ----------
    cells : ColumnDataSource
        Columns ``x`` (column j), ``y`` (row i), ``fill`` (colour),
        ``text`` (number shown) and ``text_color``.
    title, x_label, y_label : str
        Figure title and axis titles (the x axis is drawn above the matrix).
    highlight : ColumnDataSource, optional
        Columns ``x``, ``y``, ``width``, ``height``: outlined rectangles,
        e.g. one selected row.
    n : int, default 4
        Initial number of rows and columns; the caller moves ``x_range`` and
        ``y_range`` (``Range1d``; y runs from ``n + 0.5`` down to ``0.5``).
    height : int, default 300
        Figure height in pixels.
    """
    fig = _base_figure(
        title,
        height=height,
        tools="",
        x_axis_location="above",
        x_range=Range1d(0.5, n + 0.5),
        y_range=Range1d(n + 0.5, 0.5),
    )
    cell = fig.rect("x", "y", width=0.96, height=0.96, source=cells, fill_color="fill", line_color=None)
    fig.text(
        "x",
        "y",
        text="text",
        source=cells,
        text_color="text_color",
        text_align="center",
        text_baseline="middle",
        text_font_size="13px",
    )
    if highlight is not None:
        fig.rect(
            "x",
            "y",
            width="width",
            height="height",
            source=highlight,
            fill_alpha=0,
            line_color=PALETTE_37["highlight"],
            line_width=3,
        )
    fig.add_tools(HoverTool(renderers=[cell], tooltips=[("i", "@y"), ("j", "@x"), ("", "@text")]))
    for axis, label in ((fig.xaxis, x_label), (fig.yaxis, y_label)):
        axis.ticker = FixedTicker(ticks=list(range(1, 17)))
        axis.axis_label = label
        axis.major_label_text_font = _FONT
        axis.major_label_text_font_size = "12px"
        axis.minor_tick_line_color = None
    fig.grid.visible = False
    fig.min_border_right = 12
    return _slim(fig)


def saturation_figure(
    curve: ColumnDataSource,
    mark: ColumnDataSource,
    title: str,
    x_label: str,
    y_label: str,
    labels: dict,
    d_max: int = 64,
):
    """Mean largest softmax weight against the dimension ``d_k``, scaled and not.

    Parameters
    ----------
    curve : ColumnDataSource
        Columns ``d``, ``scaled``, ``unscaled``: the precomputed curves.
    mark : ColumnDataSource
        Columns ``d``, ``scaled``, ``unscaled``, ``current``, ``y0``,
        ``y1``: one row, the current ``d_k`` (a vertical line from ``y0``
        to ``y1``, a dot on each curve and the current matrix's value).
    labels : dict
        Legend labels: keys ``scaled``, ``unscaled``, ``current``.
    d_max : int, default 64
        Right end of the ``d_k`` axis.
    """
    c = PALETTE_37
    fig = _base_figure(title, height=260, tools="", x_range=Range1d(0, d_max + 1), y_range=Range1d(0.0, 1.03))
    fig.segment("d", "y0", "d", "y1", source=mark, line_color="#999", line_dash="dashed")
    fig.line("d", "unscaled", source=curve, line_width=2, color=c["unscaled"], legend_label=labels["unscaled"])
    fig.line("d", "scaled", source=curve, line_width=2, color=c["scaled"], legend_label=labels["scaled"])
    fig.scatter("d", "unscaled", source=mark, size=9, color=c["unscaled"])
    fig.scatter("d", "scaled", source=mark, size=9, color=c["scaled"])
    fig.scatter("d", "current", source=mark, size=12, marker="diamond", color="#333", legend_label=labels["current"])
    fig.add_tools(HoverTool(tooltips=[("d_k", "@d"), ("÷√d_k", "@scaled{0.000}"), ("×1", "@unscaled{0.000}")]))
    fig.xaxis.axis_label = x_label
    fig.yaxis.axis_label = y_label
    _legend_below(fig, spacing=6)
    return _slim(fig)


def histogram_figure(
    bars: ColumnDataSource,
    answer: Span,
    x_label: str,
    y_label: str,
    before: ColumnDataSource | None = None,
    sure: ColumnDataSource | None = None,
):
    """The room's predictions as bars, for a projector (24 px text); ``answer`` marks the true y.

    ``bars`` holds :func:`histogram_data`: the bars' edges in units of y,
    their counts of students, and a hatch for an overflow bar; ``before``
    (the same columns) an earlier round's bars, drawn as dashed outlines
    behind them; ``sure`` (the same columns) the part of each bar whose
    students said they were sure, darker, from the axis up; ``answer`` is a vertical :class:`Span` the caller
    shows (``visible``, ``location``) once the instructor reveals the answer.
    """
    fig = _base_figure("", height=240, y_range=DataRange1d(start=0, min_interval=1, range_padding=0.1))
    fig.quad(
        left="left",
        right="right",
        top="count",
        bottom=0,
        source=bars,
        fill_color=PALETTE["prediction"],
        line_color="white",
        fill_alpha=0.85,
        hatch_pattern="hatch",
        hatch_color="white",
        hatch_alpha=0.9,
    )
    if sure is not None:
        fig.quad(
            left="left",
            right="right",
            top="count",
            bottom=0,
            source=sure,
            fill_color=PALETTE["sure"],
            line_color="white",
            fill_alpha=0.95,
        )
    if before is not None:
        fig.quad(
            left="left",
            right="right",
            top="count",
            bottom=0,
            source=before,
            fill_color=None,
            line_color=PALETTE["earlier"],
            line_width=3,
            line_dash="dashed",
        )
    fig.add_layout(answer)
    fig.xaxis.axis_label, fig.yaxis.axis_label = x_label, y_label
    for axis in (fig.xaxis, fig.yaxis):
        axis.axis_label_text_font_size = "24px"
        axis.major_label_text_font_size = "24px"
    fig.yaxis.ticker.desired_num_ticks = 5
    fig.yaxis.ticker.min_interval = 1  # whole students
    fig.yaxis.minor_tick_line_color = None
    fig.xgrid.visible = False
    return fig


def histogram_data(bars: dict, drop_empty: bool = False) -> dict:
    """The columns of :func:`histogram_figure`'s source from the bars of
    :func:`attention_explorable.classroom.stats.histogram`: theirs, and ``hatch`` (``"/"`` for an overflow bar,
    ``" "`` for none); ``drop_empty`` leaves out the bars of no student (an outline would draw them as a line
    along the axis)."""
    data = {**bars, "hatch": ["/" if edge else " " for edge in bars["edge"]]}
    if drop_empty:
        keep = [i for i, n in enumerate(bars["count"]) if n]
        data = {key: [column[i] for i in keep] for key, column in data.items()}
    return data


def answer_span() -> Span:
    """The revealed answer on :func:`histogram_figure`: hidden, placed nowhere, until the reveal."""
    return Span(location=None, dimension="height", line_color=PALETTE["output"], line_width=5, visible=False)


def training_curve_figure(curve: ColumnDataSource, title: str, x_label: str, column: str, log: bool, height: int = 220):
    """A training curve that grows as the run trains (its source is streamed to).

    Parameters
    ----------
    curve : ColumnDataSource
        Columns ``step`` and ``column`` (one row per step trained).
    title, x_label : str
        Figure title and x axis title.
    column : str
        The column drawn: ``"loss"`` (nats, on a log axis from 1e-5 to 5 when ``log``) or ``"accuracy"``
        (a share, 0 to 1).
    log : bool
        A log y axis (losses) instead of a linear one from 0 to 1.
    height : int, default 220
        Figure height in pixels.
    """
    fig = _base_figure(
        title,
        height=height,
        y_axis_type="log" if log else "linear",
        x_range=DataRange1d(start=0, range_padding=0.02, min_interval=300),
        y_range=Range1d(1e-5, 5) if log else Range1d(0, 1.02),
    )
    fig.line("step", column, source=curve, line_color=PALETTE["curve"], line_width=2)
    fig.xaxis.axis_label = x_label
    return _slim(fig)


def bars_figure(bars: ColumnDataSource, title: str, n: int, height: int = 150):
    """Bars of weights (0 to 1) with a label under each: columns ``x`` (1 to ``n``), ``top``, ``fill``,
    ``label``."""
    fig = _base_figure(title, height=height, x_range=Range1d(0.3, n + 0.7), y_range=Range1d(-0.22, 1.05))
    fig.vbar("x", top="top", width=0.8, source=bars, fill_color="fill", line_color=None)
    fig.text("x", -0.04, text="label", source=bars, text_align="center", text_baseline="top", text_font_size="13px")
    fig.xaxis.visible = False
    fig.yaxis.ticker = FixedTicker(ticks=[0, 0.5, 1])
    fig.xgrid.visible = False
    return _slim(fig)


def enlarge(fig, factor: float) -> None:
    """Draw every text of ``fig`` (its title, axes, legends, labels) and its height ``factor`` times their
    own size: 1 gives the sizes the figure was made with back (each model keeps its own,
    ``_ae_font_sizes``). For a page projected in a hall (the instructor's projector mode).

    Raises ValueError for a ``factor`` that is not a positive number.
    """
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not 0 < factor < 10:
        raise ValueError(f"factor must be a positive number below 10, got {factor!r}")
    for model in fig.references():
        kept = getattr(model, "_ae_font_sizes", None)
        if kept is None:
            kept = {}
            for name in model.properties():
                if name.endswith("font_size"):
                    value = getattr(model, name)
                    size = value.get("value") if isinstance(value, dict) else value
                    if isinstance(size, str) and size.endswith("px"):
                        kept[name] = float(size[:-2])
            model._ae_font_sizes = kept
        for name, px in kept.items():
            setattr(model, name, f"{px * factor:g}px")
    if not hasattr(fig, "_ae_height"):
        fig._ae_height = fig.height
    if fig._ae_height:
        fig.height = round(fig._ae_height * factor)
