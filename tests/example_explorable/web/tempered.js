// The test-only explorable `tempered` as one module in the anywidget front-end form: its view (twin of
// tempered_view in ../explorable.py) and `render({model, el})`, made of the package's own parts
// (attention.js, parts.js, shared.js).
import {softmax, weightedSum} from "../../../src/attention_explorable/web/attention.js";
import {drawView, modelSlider, moduleRoot, noticePart, readout} from "../../../src/attention_explorable/web/parts.js";
import {formatG, formatNumber, onGrid} from "../../../src/attention_explorable/web/shared.js";

/** tempered_view: the weights softmax(scores / T) and the output, as a readout. */
export function temperedView(st, config) {
  const weights = softmax(config.scores, st.temperature);
  const y = weightedSum(weights, config.values);
  const S = config.strings;
  const readout = `${S.readout_weights} α = [` + weights.map((a) => formatNumber(a, 3)).join(", ") + "] · " +
    `${S.readout_output} y = ${formatNumber(y, 3)}`;
  return {html: {readout}};
}

function render({model, el: host}) {
  const config = model.get("config");
  const root = moduleRoot(host, "ae-tempered", model.get("lang"), model.get("theme"));
  const notice = noticePart();
  const slider = modelSlider("temperature", "ae-tempered-temperature", config, model, {say: notice.say, toGrid: onGrid});
  const parts = {...slider, readout: readout("ae-tempered-readout", {live: true})};
  root.append(slider.el, notice.el, parts.readout.el);
  return drawView(model, ["temperature"], parts, (st) => ({
    ...temperedView(st, config),
    props: {temperature_slider: {value: st.temperature}, temperature_box: {value: formatG(st.temperature)}},
  }));
}

export default {render};
