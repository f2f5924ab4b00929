"""Bokeh figure builders.

Each builder takes the ``ColumnDataSource`` objects it draws and returns a
figure; it is called once per component instance. Components change what
is drawn only by assigning fresh ``source.data`` dicts (and range bounds),
never by building a figure again.
"""

from __future__ import annotations

from bokeh.models import (
    ColumnDataSource,
    HoverTool,
    LabelSet,
    Range1d,
)
from bokeh.plotting import figure

PALETTE = {
    "value": "#4C72B0",
    "output": "#DD8452",
    "prediction": "#55A868",
    "interval": "#B3CDE3",
    "weight": "#8172B2",
    "curve": "#4C72B0",
}

_FONT = "'Noto Sans CJK SC', 'Noto Sans SC', 'PingFang SC', 'Microsoft YaHei', sans-serif"


def _base_figure(title: str, **kw):
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
    fig = _base_figure(title, height=190, x_range=Range1d(0, 12), y_range=Range1d(-1.3, 1.4))
    fig.yaxis.visible = False
    fig.ygrid.visible = False
    fig.hbar(y=0, left="x0", right="x1", height=0.35, source=interval,
             color=PALETTE["interval"], legend_label=labels["interval"])
    fig.scatter("x", 0, source=values, size=14, color=PALETTE["value"], legend_label=labels["value"])
    fig.add_layout(LabelSet(x="x", y=0, text="label", source=values, y_offset=12,
                            text_align="center", text_font_size="12px", text_color=PALETTE["value"]))
    fig.scatter("x", 0.75, source=output, marker="inverted_triangle", size=18,
                color=PALETTE["output"], legend_label=labels["output"])
    fig.add_layout(LabelSet(x="x", y=0.75, text="label", source=output, y_offset=10,
                            text_align="center", text_font_size="12px", text_color=PALETTE["output"]))
    fig.scatter("x", -0.75, source=prediction, marker="triangle", size=16,
                color=PALETTE["prediction"], legend_label=labels["prediction"])
    fig.add_layout(LabelSet(x="x", y=-0.75, text="label", source=prediction, y_offset=-22,
                            text_align="center", text_font_size="12px",
                            text_color=PALETTE["prediction"]))
    fig.add_layout(fig.legend[0], "below")
    fig.legend.orientation = "horizontal"
    fig.legend.label_text_font = _FONT
    fig.legend.label_text_font_size = "11px"
    fig.legend.background_fill_alpha = 0.6
    fig.legend.padding = 2
    fig.legend.spacing = 6
    return fig


def weights_figure(weights: ColumnDataSource, title: str, y_label: str):
    """Bar chart of attention weights.

    Parameters
    ----------
    weights : ColumnDataSource
        Columns ``name`` (category, e.g. ``"a₁"``), ``weight`` in [0, 1] and
        ``label`` (the formatted number drawn above the bar).
    title, y_label : str
        Figure title and y-axis label.
    """
    names = list(weights.data["name"])
    fig = _base_figure(title, height=200, x_range=names, y_range=Range1d(0, 1.15))
    fig.vbar(x="name", top="weight", width=0.6, source=weights, color=PALETTE["weight"])
    fig.add_layout(LabelSet(x="name", y="weight", text="label", source=weights, y_offset=4,
                            text_align="center", text_font_size="12px"))
    fig.yaxis.axis_label = y_label
    fig.xgrid.visible = False
    return fig


def temperature_curve_figure(curve: ColumnDataSource, point: ColumnDataSource,
                             title: str, x_label: str, y_label: str,
                             t_range: tuple[float, float]):
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
    fig = _base_figure(title, height=200, x_axis_type="log",
                       x_range=Range1d(*t_range), y_range=Range1d(0.4, 1.03))
    fig.line("t", "weight", source=curve, line_width=2, color=PALETTE["curve"])
    fig.scatter("t", "weight", source=point, size=11, color=PALETTE["output"])
    fig.add_tools(HoverTool(tooltips=[("T", "@t{0.000}"), ("a", "@weight{0.0000}")]))
    fig.xaxis.axis_label = x_label
    fig.yaxis.axis_label = y_label
    return fig
