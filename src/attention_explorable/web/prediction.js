// The student's typed prediction as a number (twin of views.steps.parse_prediction),
// shared by the steps explorable and the class's submission.
import {parseNumber, pyStrip} from "./shared.js";

/** views.steps.parse_prediction: the typed prediction, or null (empty, junk, out of bounds). */
export function parsePrediction(raw, [lo, hi]) {
  if (!pyStrip(raw)) return null;
  const v = parseNumber(raw);
  return v !== null && v >= lo && v <= hi ? v : null;
}
