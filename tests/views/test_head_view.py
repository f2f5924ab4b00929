"""The head that learns, in Python (the oracle of web/head.js): its gradients, what it learns, and the
claim of 3.7 it is there to show."""

from __future__ import annotations

import numpy as np
import pytest

from attention_explorable.views import head

SEEDS = (0, 1, 2)


#: Random states of the gradient check: (seed, d_k, scaled, steps trained first): fresh and trained
#: parameters, both scalings, several sizes.
GRADIENT_STATES = [
    (int(seed), int(d_k), bool(scaled), int(steps))
    for seed, d_k, scaled, steps in zip(
        *np.random.default_rng(7).integers([0, 2, 0, 0], [10_000, 9, 2, 60], size=(8, 4)).T, strict=True
    )
]


@pytest.mark.parametrize("seed, d_k, scaled, steps", GRADIENT_STATES)
def test_the_gradients_are_the_losss_slopes(seed, d_k, scaled, steps):
    """Each hand-written gradient against a central difference of the loss, entry by entry, in float64:
    the relative error ||g - numeric|| / max(||g||, ||numeric||) of each matrix at most 1e-6."""
    run = head.start(seed=seed, d_k=d_k, scaled=scaled)
    for _ in range(steps):  # some states are trained a little: not only the initial parameters
        run.step()
    params = run.params
    batch = head.make_batch(seed=seed, step=10_000, size=6)
    _, grads = head.gradients(params, batch, scaled)
    h = 1e-6
    for name, p in params.items():
        numeric = np.zeros_like(p)
        for idx in np.ndindex(p.shape):
            saved = p[idx]
            p[idx] = saved + h
            up = head.forward(params, batch, scaled)["loss"]
            p[idx] = saved - h
            down = head.forward(params, batch, scaled)["loss"]
            p[idx] = saved
            numeric[idx] = (up - down) / (2 * h)
        scale = max(np.linalg.norm(grads[name]), np.linalg.norm(numeric))
        assert scale > 0, name
        assert np.linalg.norm(grads[name] - numeric) / scale <= 1e-6, (name, seed, d_k, scaled, steps)


def test_an_example_is_a_lookup_with_one_right_answer():
    batch = head.make_batch(seed=7, step=2, size=200)
    assert all(len(set(row)) == head.N_PAIRS for row in batch.keys.tolist())  # four different letters
    assert batch.keys.min() >= 0 and batch.keys.max() < head.N_LETTERS
    assert batch.values.min() >= 0 and batch.values.max() < head.N_DIGITS
    assert set(batch.asked.tolist()) == set(range(head.N_PAIRS))
    query, pairs = batch.inputs()
    assert query.sum(axis=1).tolist() == [1.0] * 200 and (pairs.sum(axis=2) == 2.0).all()
    # the query's letter is the asked pair's letter, and that pair holds the answer
    assert (query[:, : head.N_LETTERS].argmax(1) == batch.keys[np.arange(200), batch.asked]).all()
    assert not np.array_equal(head.make_batch(7, 3, 200).keys, batch.keys)  # each step its own examples


@pytest.mark.parametrize("seed", SEEDS)
def test_the_default_run_learns_the_lookup_within_a_few_hundred_steps(seed):
    run = head.start(seed=seed)
    for _ in range(300):
        run.step()
    assert run.losses[0] > 2.0
    assert np.mean(run.losses[-20:]) < 0.05
    assert np.mean(run.accuracies[-20:]) > 0.99
    # what it learned is a match table: each query letter scores its own key highest
    table = head.match_table(run.params)
    assert (table.argmax(axis=1) == np.arange(head.N_LETTERS)).all()
    # and W_V reads the value part of a position more than its key part
    reads = head.value_reads(run.params)
    assert reads[head.N_LETTERS :].mean() > 2 * reads[: head.N_LETTERS].mean()


def test_before_training_the_querys_weights_are_spread_and_after_they_are_on_the_matching_key():
    run = head.start(seed=0)
    batch = head.make_batch(seed=0, step=10_000, size=256)
    right = batch.asked

    def on_match(run):
        w = head.forward(run.params, batch, run.scaled)["weights"]
        return w[np.arange(256), right].mean()

    before = on_match(run)
    for _ in range(300):
        run.step()
    assert before < 0.5 and on_match(run) > 0.9


@pytest.mark.parametrize("seed", SEEDS)
def test_at_d_k_64_the_scaled_head_learns_faster_than_the_unscaled_one(seed):
    """3.7's claim, as the comparison run shows it: loss at step 50, scaled against unscaled."""
    losses = {}
    for scaled in (True, False):
        run = head.start(seed=seed, d_k=64, scaled=scaled)
        for _ in range(50):
            run.step()
        losses[scaled] = np.mean(run.losses[-5:])
    assert losses[True] * 5 < losses[False], losses


@pytest.mark.parametrize("learning_rate", [0.002, 0.003, 0.005, 0.01, 0.05])
def test_the_comparison_never_marks_a_misconception_across_the_learning_rates(learning_rate):
    """Wherever the learning-rate slider stands, the runs the comparison trains bear out B (the unscaled head
    falls, more slowly) or, where the scaled head itself has not learned in 100 steps, no option: never C
    (flat, no gradient) for a falling curve, nor D by a hair of noise."""
    for seed in range(8):
        scaled, unscaled = head.compare_losses(seed, learning_rate)
        outcome = head.compare_outcome(scaled, unscaled)
        learned = np.mean(scaled[-head.COMPARE_WINDOW :]) <= head.COMPARE_LEARNED * scaled[0]
        assert outcome == (1 if learned else None), (learning_rate, seed, outcome)


def test_a_typed_lookup_is_read_and_a_malformed_one_is_refused_by_name():
    batch = head.parse_lookup("C7 A2 D5 B9 | A")
    assert batch.keys.tolist() == [[2, 0, 3, 1]] and batch.answers.tolist() == [2]
    for bad, says in [
        ("C7 A2 D5 B9 A", "'|'"),
        ("C7 A2 D5 | A", "four pairs"),
        ("C7 C2 D5 B9 | C", "differ"),
        ("C7 A2 D5 B9 | E", "query"),
        ("Z7 A2 D5 B9 | A", "four pairs"),
    ]:
        with pytest.raises(ValueError, match=says):
            head.parse_lookup(bad)


@pytest.mark.parametrize(
    "kwargs, says",
    [
        ({"learning_rate": float("nan")}, "learning_rate"),
        ({"learning_rate": 0}, "learning_rate"),
        ({"learning_rate": "0.1"}, "learning_rate"),
        ({"d_k": 0}, "d_k"),
        ({"d_k": 2.5}, "d_k"),
        ({"seed": -1}, "seed"),
        ({"batch": 0}, "batch"),
    ],
)
def test_bad_settings_are_refused_naming_the_parameter(kwargs, says):
    with pytest.raises(ValueError, match=says):
        head.start(**kwargs)


def test_the_panel_view_shows_the_heads_insides_once_it_trains_and_keeps_the_prediction_from_then_on():
    """The untrained weights are half the first prediction's answer (as in web/head.js)."""
    config = head.head_config("en")
    state = {**head.DEFAULTS, "steps": 0, "playing": False, "prediction": "c", "skipped": False}
    state.pop("batch", None)
    before = head.head_view(state, config)["props"]
    assert not before["watched_plot"]["visible"] and not before["prediction_choice"]["disabled"]
    after = head.head_view({**state, "steps": 1}, config)["props"]
    assert all(after[f"{name}_plot"]["visible"] for name in ("watched", "table", "reads"))
    assert after["prediction_choice"]["disabled"]
