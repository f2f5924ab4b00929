// The one script a prebuilt page loads (built by scripts/build-web.mjs into
// src/attention_explorable/web/dist/bokeh-panel.min.js): BokehJS's document,
// embedding and views, with only the BokehJS and Panel models the pages use,
// instead of BokehJS, its widgets and tables parts and Panel's whole script
// (2.7 MB). It sets window.Bokeh (replacing any BokehJS loaded before it) with
// what the page's embedding script and web/when_seen.js use of bokeh.min.js's.
//
// A page whose document holds a model missing here cannot be drawn:
// tests/browser/test_static_site.py (test_every_model_of_every_page_is_in_the_page_bundle)
// lists every model of every prebuilt page and fails naming the one to add. Live Panel apps (panel serve, the
// instructor's page, notebooks) load BokehJS and Panel as Panel does.
import * as api from "@bokehjs/index";
import {register_models} from "@bokehjs/base";
import * as document_module from "@bokehjs/document";
import * as string_module from "@bokehjs/core/util/string";

// BokehJS
import {AllIndices} from "@bokehjs/models/filters/all_indices";
import {AllLabels} from "@bokehjs/models/policies/labeling";
import {Arrow} from "@bokehjs/models/annotations/arrow";
import {VeeHead} from "@bokehjs/models/annotations/arrow_head";
import {BasicTickFormatter} from "@bokehjs/models/formatters/basic_tick_formatter";
import {BasicTicker} from "@bokehjs/models/tickers/basic_ticker";
import {CategoricalAxis} from "@bokehjs/models/axes/categorical_axis";
import {CategoricalScale} from "@bokehjs/models/scales/categorical_scale";
import {CategoricalTickFormatter} from "@bokehjs/models/formatters/categorical_tick_formatter";
import {CategoricalTicker} from "@bokehjs/models/tickers/categorical_ticker";
import {CDSView} from "@bokehjs/models/sources/cds_view";
import {ColumnDataSource} from "@bokehjs/models/sources/column_data_source";
import {CustomJS} from "@bokehjs/models/callbacks/customjs";
import {DataRange1d} from "@bokehjs/models/ranges/data_range1d";
import {FactorRange} from "@bokehjs/models/ranges/factor_range";
import {Figure} from "@bokehjs/models/plots/figure";
import {FixedTicker} from "@bokehjs/models/tickers/fixed_ticker";
import {GlyphRenderer} from "@bokehjs/models/renderers/glyph_renderer";
import {Grid} from "@bokehjs/models/grids/grid";
import {HBar} from "@bokehjs/models/glyphs/hbar";
import {HoverTool} from "@bokehjs/models/tools/inspectors/hover_tool";
import {ImportedStyleSheet, InlineStyleSheet} from "@bokehjs/models/dom/stylesheets";
import {LabelSet} from "@bokehjs/models/annotations/label_set";
import {Legend} from "@bokehjs/models/annotations/legend";
import {LegendItem} from "@bokehjs/models/annotations/legend_item";
import {Line} from "@bokehjs/models/glyphs/line";
import {LinearAxis} from "@bokehjs/models/axes/linear_axis";
import {LinearScale} from "@bokehjs/models/scales/linear_scale";
import {LogAxis} from "@bokehjs/models/axes/log_axis";
import {LogScale} from "@bokehjs/models/scales/log_scale";
import {LogTickFormatter} from "@bokehjs/models/formatters/log_tick_formatter";
import {LogTicker} from "@bokehjs/models/tickers/log_ticker";
import {Notifications} from "@bokehjs/models/ui/notifications";
import {Patch} from "@bokehjs/models/glyphs/patch";
import {PointDrawTool} from "@bokehjs/models/tools/edit/point_draw_tool";
import {Range1d} from "@bokehjs/models/ranges/range1d";
import {Rect} from "@bokehjs/models/glyphs/rect";
import {Row} from "@bokehjs/models/layouts/row";
import {Scatter} from "@bokehjs/models/glyphs/scatter";
import {Segment} from "@bokehjs/models/glyphs/segment";
import {Selection} from "@bokehjs/models/selections/selection";
import {Span} from "@bokehjs/models/annotations/span";
import {Text} from "@bokehjs/models/glyphs/text";
import {Title} from "@bokehjs/models/annotations/title";
import {Toolbar} from "@bokehjs/models/tools/toolbar";
import {UnionRenderers} from "@bokehjs/models/selections/interaction_policy";
import {VBar} from "@bokehjs/models/glyphs/vbar";
// BokehJS's widgets
import {Button} from "@bokehjs/models/widgets/button";
import {Checkbox} from "@bokehjs/models/widgets/checkbox";
import {RadioButtonGroup} from "@bokehjs/models/widgets/radio_button_group";
import {RadioGroup} from "@bokehjs/models/widgets/radio_group";
import {Slider} from "@bokehjs/models/widgets/sliders/slider";
import {TextAreaInput} from "@bokehjs/models/widgets/textarea_input";
import {TextInput} from "@bokehjs/models/widgets/text_input";
// Panel
import {Column as PanelColumn} from "@panel/models/column";
import {HTML as PanelHTML} from "@panel/models/html";
import {ReactiveHTML} from "@panel/models/reactive_html";

register_models({
  AllIndices, AllLabels, Arrow, VeeHead, BasicTickFormatter, BasicTicker, CategoricalAxis, CategoricalScale,
  CategoricalTickFormatter, CategoricalTicker, CDSView, ColumnDataSource, CustomJS, DataRange1d, FactorRange,
  Figure, FixedTicker, GlyphRenderer, Grid, HBar, HoverTool, ImportedStyleSheet, InlineStyleSheet, LabelSet,
  Legend, LegendItem, Line, LinearAxis, LinearScale, LogAxis, LogScale, LogTickFormatter, LogTicker,
  Notifications, Patch, PointDrawTool, Range1d, Rect, Row, Scatter, Segment, Selection, Span, Text, Title,
  Toolbar, UnionRenderers, VBar,
  Button, Checkbox, RadioButtonGroup, RadioGroup, Slider, TextAreaInput, TextInput,
});
register_models({PanelColumn, PanelHTML, ReactiveHTML});  // named by their __module__: panel.models.*

// Bokeh.require of bokeh.min.js, for the two inner modules web/when_seen.js uses.
const inner = {"document": document_module, "core/util/string": string_module};
function require(name) {
  if (name in inner) return inner[name];
  throw new Error(`bokeh-panel.min.js has no module ${JSON.stringify(name)}`);
}

// A plain object, as bokeh.min.js's window.Bokeh is (a page's scripts may add to it).
window.Bokeh = {...api, require};
