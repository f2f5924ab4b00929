// The test-only explorable `tempered` in the browser: its view (twin of
// tempered_view in ../explorable.py) and its controller, made of the
// package's own pieces (attention.js, controller.js, shared.js).
import {softmax, weightedSum} from "../../../src/attention_explorable/web/attention.js";
import {controller, sliderAction} from "../../../src/attention_explorable/web/controller.js";
import {formatG, formatNumber, readState, writeView} from "../../../src/attention_explorable/web/shared.js";

export const STATE_NAMES = ["temperature"];

/** tempered_view: the weights softmax(scores / T) and the output, as a readout. */
export function temperedView(st, config) {
  const weights = softmax(config.scores, st.temperature);
  const y = weightedSum(weights, config.values);
  const S = config.strings;
  const readout = `${S.readout_weights} α = [` + weights.map((a) => formatNumber(a, 3)).join(", ") + "] · " +
    `${S.readout_output} y = ${formatNumber(y, 3)}`;
  const t = st.temperature;
  return {sources: {}, ranges: {}, html: {readout},
    props: {temperature_slider: {value: t}, temperature_box: {value: formatG(t)}}};
}

export function draw(state, models, config) {
  writeView(models, temperedView(readState(state, STATE_NAMES), config));
}

export default controller("tempered", draw, (action) => { sliderAction(action); });
