// The mirror tests' entry (tests/browser/mirror.py): every twin's view and
// the pieces the tests compare with their Python originals, under one name
// each. It is bundled beside the pages' modules but no page loads it, so the
// modules the pages run export only what the pages use.
export * from "./attention.js";
export * from "./shared.js";
export * from "./links.js";
export {parsePrediction} from "./prediction.js";
export {interpolate, outcome, replayFrames, stepsView} from "./steps.js";
export {attend, convexHull, labelOffsets, pointToQuery, vectorView} from "./vector.js";
export {
  attentionMatrices, checkState, heatCells, heatmapSources, irwinHallNormals, mulberry32, ramp, randomQKV, matrixView,
} from "./matrix.js";
export {attentionWeights, selfcrossView, selfcrossWeights} from "./selfcross.js";
export {exerciseView, judge} from "./exercise.js";
export {attendQKV, qkvView} from "./qkv.js";
export {contextsView, readContext} from "./contexts.js";
export {h, morph, patch} from "./dom.js";
