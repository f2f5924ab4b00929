"""Every number the course text quotes, recomputed by the core, in both editions.

:func:`figures` lists, for each section, what the text writes (the quoted
string, exactly as in the Markdown source) beside the same string produced
from :mod:`attention_explorable.core` (or from the scenarios and explorables
the text describes). Three checks hold it together:

* each computed string equals the quoted one;
* each quoted string appears in the section, in every language;
* every decimal number in a section is covered: it is one of the quoted
  figures (or appears inside one), or a given input listed in :data:`GIVEN`.

So a number added to the text without a check here fails the third test,
and a change of the core that moves a quoted number fails the first.
"""

from __future__ import annotations

import functools
import math
import re

import numpy as np
import pytest

from attention_explorable import content, core, scenarios
from attention_explorable.strings import text
from attention_explorable.explorables.vector import VectorExplorer
from attention_explorable.views import head, qkv

LANGUAGES = ("zh", "en")
EDITIONS = {lang: {s.id: s for s in content.load_sections(lang)} for lang in LANGUAGES}

#: Decimal numbers the text takes as inputs, not results: weights and
#: temperatures chosen for an example.
GIVEN = {
    "sec-3-7": {"0.5", "0.02", "0.01"},
    # (0.5 and 9.5 are also Exercise 3.8.5's two options outside the values' range [1, 9])
    "sec-3-8": {"0.75", "0.25", "0.2", "0.8", "0.5", "9.5", "0.02", "0.01"},
}
#: Section numbers look like decimals; the text refers to these.
SECTION_REFS = {"3.5", "3.7", "3.8"}
#: arXiv numbers of the references.
CITATIONS = {"1409.0473", "1706.03762"}

# Section 3.7.6 (and the vector explorable's default state).
Q = [[1.0, 0.0]]
K = V = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
# Section 3.8, example 3.8.3: scaled scores of three tokens.
S = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0], [1.0, 0.0, 1.0]])


def f(x: float, decimals: int) -> str:
    return f"{float(x):.{decimals}f}"


def _layer_sizes() -> list[tuple[str, str]]:
    d, h = TRANSFORMER_D_MODEL, TRANSFORMER_HEADS
    d_v = d // h
    w_o = np.zeros((h * d_v, d)).size  # the concatenated heads' outputs -> d_model
    projection = np.zeros((d, d_v)).size  # one head's W_Q (or W_K, W_V)
    assert 3 * h * projection == 3 * w_o  # the heads' three projections: three times W_O, as the answer says
    return [
        (f"d_v={d}/{h}={d_v}", f"d_v={d}/{h}={d // h}"),
        ("512\\times512=262144", f"{h * d_v}\\times{d}={w_o}"),
        ("---hint-32768", f"---hint-{projection}"),
        ("---hint-4096\n", f"---hint-{d_v * d_v}\n"),
        ("---hint-2097152", f"---hint-{h * d * d}"),
    ]


def section_source(lang: str, section_id: str) -> str:
    section = EDITIONS[lang][section_id]
    return "\n".join(b.body + "\n" + "\n".join(b.parts.values()) for b in section.blocks)


def two_values(score_diff: float, temperature: float, values=(2.0, 10.0)):
    """Weights and output of the two-value model of 3.8 (scores 0 and ``score_diff``)."""
    w = core.softmax([0.0, score_diff], temperature=temperature)
    return w, float(core.weighted_sum(w, list(values)))


def sci(x: float, digits: int = 1) -> str:
    """``x`` as the text writes it: mantissa\\times10^{exponent}."""
    m, e = f"{x:.{digits}e}".split("e")
    return f"{m}\\times10^{{{int(e)}}}"


#: Exercise 3.8.4: the variance of q . k in the head's comparison (views/head.py): d_k = 64 terms, each
#: the product of a query component (one entry of W_Q: variance 1) and a key component (the sum of two
#: entries of W_K, a letter's and a digit's: variance 2).
HEAD_SCORE_VARIANCE = 64 * 1.0 * (1.0 + 1.0)
#: Exercise 3.8.6 and 3.8.3's sizes: the original Transformer's d_model and number of heads.
TRANSFORMER_D_MODEL, TRANSFORMER_HEADS = 512, 8


@functools.cache
def head_figures() -> dict:
    """The head that learns (views/head.py), as the text of 3.8 reports it: a default run, tested on fresh
    examples before and after 300 steps; the comparison at d_k = 64 (mean loss of steps 96-100) for seed 0
    and for each seed 0-19 (benchmarks/head.py's figure)."""
    run = head.start()
    assert (run.seed, run.d_k, run.learning_rate, run.batch, run.scaled) == (0, 16, 0.01, 64, True)
    before = head.evaluate(run)
    reads_before = head.value_reads(run.params)
    for _ in range(300):
        run.step()
    after = head.evaluate(run)
    reads = head.value_reads(run.params)  # the 8 letters' rows of W_V, then the 10 digits'
    table = head.match_table(run.params, run.scaled)
    means, curves = {}, {}
    for seed in range(20):
        for scaled, losses in zip((True, False), head.compare_losses(seed)):
            means[seed, scaled] = float(np.mean(losses[95:100]))
            curves[seed, scaled] = losses
    # "It depends on how the head starts": seed 0 again, W_Q and W_K started at variance 1/18 instead of 1
    # (both runs from the same small start; Adam's moments are zero either way).
    small = {}
    for scaled in (True, False):
        r = head.start(seed=0, d_k=64, scaled=scaled)
        for name in ("W_Q", "W_K"):
            r.params[name] = r.params[name] / np.sqrt(18)
        for _ in range(100):
            r.step()
        small[scaled] = float(np.mean(r.losses[95:100]))
    return {
        "small_start_ratio": small[False] / small[True],
        "first": run.losses[0],
        "at_100": run.losses[99],
        "before": before,
        # how much longer W_V's digit rows are than its letter rows, before and after 300 steps
        "reads_ratio_before": float(reads_before[8:].mean() / reads_before[:8].mean()),
        "reads_ratio": float(reads[8:].mean() / reads[:8].mean()),
        "diagonal_strongest": bool(all(table[i].argmax() == i for i in range(len(table)))),
        "after": after,
        "scaled": means[0, True],
        "unscaled": means[0, False],
        "seeds_2x": sum(means[seed, False] >= 2 * means[seed, True] for seed in range(20)),
        "ratios": [means[seed, False] / means[seed, True] for seed in range(20)],
        "outcomes": [head.compare_outcome(curves[seed, True], curves[seed, False]) for seed in range(20)],
    }


def figures(lang: str) -> dict[str, list[tuple[str, str]]]:
    """``section id -> [(quoted, computed), ...]`` for ``lang``."""
    zh = lang == "zh"
    scores = core.dot_product_scores(Q, K, scale=1.0)[0]
    out, w = core.scaled_dot_product_attention(Q, K, V, scale=1.0)
    exps = np.exp(scores)
    rounded_w = [round(x, 3) for x in w[0]]
    _, w_cold = core.scaled_dot_product_attention(Q, K, V, scale=1.0, temperature=0.5)
    _, w_warm = core.scaled_dot_product_attention(Q, K, V, scale=1.0, temperature=2.0)
    # Order-blindness: the positions of 3.7.6 in another order give the same output.
    order = [2, 0, 1]
    out_perm, w_perm = core.scaled_dot_product_attention(Q, np.take(K, order, 0), np.take(V, order, 0), scale=1.0)
    assert np.allclose(w_perm[0], w[0][order]) and np.allclose(out_perm, out)
    # Cost: n = 1000 tokens give an n x n score matrix; twice as many, four times the scores.
    n = 1000
    n_scores = core.dot_product_scores(np.zeros((n, 1)), np.zeros((n, 1))).size
    n_scores_2 = core.dot_product_scores(np.zeros((2 * n, 1)), np.zeros((2 * n, 1))).size
    assert n_scores == 10**6
    # sqrt(d_k): unit-variance components give dot products of standard deviation sqrt(d_k).
    d_k = 64
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((20000, d_k)), rng.standard_normal((20000, d_k))
    raw = np.einsum("ij,ij->i", q, k)  # 20000 independent dot products
    assert raw.std() == pytest.approx(math.sqrt(d_k), rel=0.02)
    assert core.dot_product_scores(q[:200], k[:200]).std() == pytest.approx(1.0, rel=0.1)  # scaled by 1/sqrt(d_k)

    # The tie of 3.7.6: s_1 = s_3, so as T -> 0 the output goes to the midpoint of v_1 and v_3.
    out_tie, w_tie = core.scaled_dot_product_attention(Q, K, V, scale=1.0, temperature=1e-3)
    t_lowest = VectorExplorer.param.temperature.bounds[0]
    out_lowest, _ = core.scaled_dot_product_attention(Q, K, V, scale=1.0, temperature=t_lowest)
    assert w_tie[0].tolist() == [0.5, 0.0, 0.5] and np.allclose(out_lowest, out_tie, atol=1e-8)
    # The qkv explorable (section 3.7.8): W_V changed alone keeps the weights; W_Q doubled sharpens them.
    qkv_state = {"w_q": "identity", "w_k": "identity", "w_v": "identity", "causal": False}
    qkv_plain = qkv.attend(qkv_state, qkv.qkv_config("zh"))["weights"][0]
    qkv_double = qkv.attend({**qkv_state, "w_q": "double"}, qkv.qkv_config("zh"))["weights"][0]
    qkv_out = qkv.attend(qkv_state, qkv.qkv_config("zh"))["output"][0]
    assert np.array_equal(qkv.attend({**qkv_state, "w_v": "swap"}, qkv.qkv_config("zh"))["weights"][0], qkv_plain)
    # Exercise q2: the keys of 3.7.6 with the query [1, 1].
    _, w_q2 = core.scaled_dot_product_attention([[1.0, 1.0]], K, V, scale=1.0)
    assert w_q2[0, 1] == pytest.approx(1 / (2 + math.e)) and w_q2[0, 2] == pytest.approx(math.e / (2 + math.e))
    # Exercise q5: the fp16 score matrix of one head over n = 4096 tokens.
    n_mem = 4096
    entries = n_mem**2
    mib = entries * np.dtype(np.float16).itemsize / 2**20

    fig37 = [
        ("e\\approx 2.718", f"e\\approx {f(math.exp(scores[0]), 3)}"),
        ("e+1+e\\approx6.437", f"e+1+e\\approx{f(exps.sum(), 3)}"),
        ("\\approx 0.422", f"\\approx {f(w[0, 0], 3)}"),
        ("\\approx 0.155", f"\\approx {f(w[0, 1], 3)}"),
        ("$0.999$", f"${f(sum(rounded_w), 3)}$"),
        ("y \\approx [0.845, 0.578]", f"y \\approx [{f(out[0, 0], 3)}, {f(out[0, 1], 3)}]"),
        ("$0.063$", f"${f(w_cold[0, 1], 3)}$"),
        ("$0.233$", f"${f(w_warm[0, 1], 3)}$"),
        ("$[0.845, 0.578]$", f"$[{f(out_perm[0, 0], 3)}, {f(out_perm[0, 1], 3)}]$"),
        ("$n=1000$", f"$n={n}$"),
        ("$10^6$", f"$10^{round(math.log10(n_scores))}$"),
        ("$4$ 倍" if zh else "$4$ times", ("${}$ 倍" if zh else "${}$ times").format(n_scores_2 // n_scores)),
        ("$d_k=64$", f"$d_k={d_k}$"),
        (
            "标准差是 $8$" if zh else "standard deviation of $8$",
            ("标准差是 ${:g}$" if zh else "standard deviation of ${:g}$").format(round(raw.std())),
        ),
        # The tie, after the vector explorable.
        ("$[1, 0.5]$", "$[{:g}, {:g}]$".format(*out_tie[0])),
        ("$T=0.05$", f"$T={t_lowest:g}$"),
        # The qkv explorable's check: row 1 of the weights, W_Q the identity, then doubled.
        ("$0.401, 0.198, 0.401$", "${}, {}, {}$".format(*(f(x, 3) for x in qkv_plain))),
        ("$0.446, 0.108, 0.446$", "${}, {}, {}$".format(*(f(x, 3) for x in qkv_double))),
        # ... and its first row's output, scaled by sqrt(2) where 3.7.6 was not.
        ("$[0.802, 0.599]$", "$[{}, {}]$".format(*(f(x, 3) for x in qkv_out))),
        # Exercises q2 and q5.
        ("1/(2+e)\\approx0.212", f"1/(2+e)\\approx{f(w_q2[0, 1], 3)}"),
        ("\\alpha_3=e/(2+e)\\approx0.576", f"\\alpha_3=e/(2+e)\\approx{f(w_q2[0, 2], 3)}"),
        ("4096^2=2^{24}=16777216", f"{n_mem}^2=2^{{{round(math.log2(entries))}}}={entries}"),
        ("2^{25}/2^{20}=32", f"2^{{{round(math.log2(entries * 2))}}}/2^{{20}}={mib:g}"),
        ("$8192$", f"${2 * n_mem}$"),
        ("$128$ MiB", f"${(2 * n_mem) ** 2 * 2 / 2**20:g}$ MiB"),
        # ... and the mistakes that have a hint of their own: megabytes for MiB, 4 bytes an entry for 2.
        ("---hint-33.55", f"---hint-{f(entries * np.dtype(np.float16).itemsize / 10**6, 2)}"),
        ("---hint-64\n", f"---hint-{entries * np.dtype(np.float32).itemsize / 2**20:g}\n"),
        ("---hint-4096\n", f"---hint-{n_mem}\n"),
        ("---hint-16\n", f"---hint-{entries * np.dtype(np.int8).itemsize / 2**20:g}\n"),  # one byte an entry
        ("---hint-33554432\n", f"---hint-{entries * np.dtype(np.float16).itemsize}\n"),  # bytes, not MiB
    ]

    step1, step2, step3 = scenarios.STEPS
    r1, r2, r3 = (scenarios.outcome(s.target) for s in scenarios.STEPS)
    s1, s2, t_low = (
        step3.target["score_1"],
        step3.target["score_1"] + step3.target["score_diff"],
        step3.target["temperature"],
    )
    w_neg, y_neg = two_values(-2.0, 1.0)
    w_t2, y_t2 = two_values(s2 - s1, 2.0)
    w_equal, y_equal = two_values(0.0, 1.0, values=(4.0, 16.0))
    assert float(core.weighted_sum(core.softmax([7.0, 7.0]), [4.0, 16.0])) == y_equal
    table = {t: two_values(s2 - s1, t) for t in (0.5, 1.0, 10.0)}
    masked = core.softmax(np.where(core.causal_mask(3), S, -np.inf))  # (3, 3), rows sum to 1
    big = np.finfo(np.float64).max
    # Exercise 3.8.2: a causal row of four tokens, the row of token 3.
    row = np.array([1.0, 3.0, 4.0, 6.0])
    w_row = core.softmax(np.where(core.causal_mask(4)[2], row, -np.inf))  # (4,), the future entry exactly 0
    exps_row = np.exp(row[:3])
    # Exercise 3.8.3: a tie at the top under T = 3: the weights of 3.7.6; T -> 0 averages the tied values,
    # T -> infinity all three.
    tie_scores, tie_values = [2.0, 2.0, -1.0], [1.0, 5.0, 9.0]
    w_tie_3 = core.softmax(tie_scores, temperature=3.0)
    y_tie_3 = float(core.weighted_sum(w_tie_3, tie_values))
    assert np.allclose(w_tie_3, [math.e / (2 * math.e + 1)] * 2 + [1 / (2 * math.e + 1)])
    y_tie_0 = float(core.weighted_sum(core.softmax(tie_scores, temperature=1e-3), tie_values))
    y_tie_inf = float(core.weighted_sum(core.softmax(tie_scores, temperature=1e6), tie_values))
    # Exercise 3.8.5: equal scores, whatever the temperature, give y = 5; finite scores never give 9 exactly
    # (each weight is positive), though floating point does once a weight underflows.
    equal_y = {round(float(core.weighted_sum(core.softmax([s, s, s], temperature=t), [1.0, 5.0, 9.0])), 12)
               for s in (-3.0, 0.0, 2.0) for t in (0.05, 1.0, 20.0)}  # fmt: skip
    assert len(equal_y) == 1, equal_y  # the same output whatever the equal scores and the temperature
    # the smallest whole gap at T = 1 whose output prints as exactly 9, its weights all still positive
    exact_nine = next(
        g for g in range(1, 100) if float(core.weighted_sum(core.softmax([0.0, 0.0, float(g)]), [1.0, 5.0, 9.0])) == 9
    )
    assert core.softmax([0.0, 0.0, float(exact_nine)]).min() > 0
    assert y_tie_0 == 3.0 and round(y_tie_inf, 4) == 5.0

    hf = head_figures()
    # The steps of 3.7.5 (two scalar values): the text describes the scenarios the explorable runs.
    fig37 += [
        ("$e^{1100}$", f"$e^{{{s2 / t_low:g}}}$"),
        ("1.8\\times10^{308}", sci(big)),
        ("e^{709.78}", f"e^{{{f(math.log(big), 2)}}}"),
        # Checks of the three steps.
        ("0.5\\times2+0.5\\times10=6", f"{r1['weights'][0]:g}\\times2+{r1['weights'][1]:g}\\times10={r1['output']:g}"),
        ("0.5\\times4+0.5\\times16=10", f"{w_equal[0]:g}\\times4+{w_equal[1]:g}\\times16={y_equal:g}"),
        ("\\approx0.881", f"\\approx{f(r2['weights'][1], 3)}"),
        ("\\alpha_1\\approx0.119", f"\\alpha_1\\approx{f(r2['weights'][0], 3)}"),
        ("\\approx9.05", f"\\approx{f(r2['output'], 2)}"),
        ("\\approx2.95", f"\\approx{f(y_neg, 2)}"),
        ("\\alpha_1\\approx0.881", f"\\alpha_1\\approx{f(w_neg[0], 3)}"),
        ("2/0.02=100", f"{s2 - s1:g}/{t_low:g}={(s2 - s1) / t_low:g}"),
        ("3.7\\times10^{-44}", sci(r3["weights"][0])),
        ("\\alpha_1\\approx0.450", f"\\alpha_1\\approx{f(table[10.0][0][0], 3)}"),
        ("\\alpha_2\\approx0.550", f"\\alpha_2\\approx{f(table[10.0][0][1], 3)}"),
        (
            "输出约为 $6.40$" if zh else "the output is about $6.40$",
            ("输出约为 ${}$" if zh else "the output is about ${}$").format(f(table[10.0][1], 2)),
        ),
        ("\\alpha_2=1/(1+e^{-1})\\approx0.731", f"\\alpha_2=1/(1+e^{{-1}})\\approx{f(w_t2[1], 3)}"),
        ("\\alpha_1\\approx0.269", f"\\alpha_1\\approx{f(w_t2[0], 3)}"),
        ("\\approx7.85", f"\\approx{f(y_t2, 2)}"),
        (
            "第一步开始时（分数差 $1$、$T=1$）读数里的 $7.85$"
            if zh
            else "the $7.85$ the readouts showed at the start of step 1 (score difference $1$, $T=1$)",
            (
                "第一步开始时（分数差 ${:g}$、$T={:g}$）读数里的 ${}$"
                if zh
                else "the ${2}$ the readouts showed at the start of step 1 (score difference ${0:g}$, $T={1:g}$)"
            ).format(
                step1.start["score_diff"], step1.start["temperature"], f(scenarios.outcome(step1.start)["output"], 2)
            ),
        ),
    ]
    fig38 = [
        # Example 3.8.1 and exercise 3.8.1: two values.
        (
            "0.75\\times 2 + 0.25\\times 10 = 1.5 + 2.5 = 4",
            f"0.75\\times 2 + 0.25\\times 10 = {0.75 * 2:g} + {0.25 * 10:g} = {float(core.weighted_sum([0.75, 0.25], [2, 10])):g}",
        ),
        (
            "0.2\\times 2 + 0.8\\times 10 = 0.4 + 8 = 8.4",
            f"0.2\\times 2 + 0.8\\times 10 = {0.2 * 2:g} + {0.8 * 10:g} = {float(core.weighted_sum([0.2, 0.8], [2, 10])):g}",
        ),
        # Example 3.8.2: the temperature's two limits, with one finite row between them, with the step's scores.
        *[
            (
                row,
                "| ${:g}$ | ${:g}$ | ${}$ | ${}$ | ${}$ |".format(
                    t, (s2 - s1) / t, f(table[t][0][0], 3), f(table[t][0][1], 3), f(table[t][1], 2)
                ),
            )
            for t, row in [
                (0.5, "| $0.5$ | $4$ | $0.018$ | $0.982$ | $9.86$ |"),
            ]
        ],
        # Example 3.8.3: the causal mask over three tokens, row by row.
        ("$(1, 0, 0)$", "$({:g}, {:g}, {:g})$".format(*masked[0])),
        ("$(0.269, 0.731, 0)$", "$({}, {}, {:g})$".format(f(masked[1, 0], 3), f(masked[1, 1], 3), masked[1, 2])),
        ("$(0.422, 0.155, 0.422)$", "$({}, {}, {})$".format(*(f(x, 3) for x in masked[2]))),
        (
            "最大的分数 $3$" if zh else "The largest score of this row, $3$",
            ("最大的分数 ${:g}$" if zh else "The largest score of this row, ${:g}$").format(
                S[1][~core.causal_mask(3)[1]].max()
            ),
        ),
        # Exercises 3.8.2 and 3.8.3.
        ("$(1, 3, 4, 6)$", "$({:g}, {:g}, {:g}, {:g})$".format(*row)),
        ("$2.718$", f"${f(exps_row[0], 3)}$"),
        ("$20.086$", f"${f(exps_row[1], 3)}$"),
        ("$54.598$", f"${f(exps_row[2], 3)}$"),
        ("$77.402$", f"${f(exps_row.sum(), 3)}$"),
        ("$(0.035, 0.259, 0.705, 0)$", "$({}, {}, {}, {:g})$".format(*(f(x, 3) for x in w_row[:3]), w_row[3])),
        ("\\alpha_{33}\\approx0.705", f"\\alpha_{{33}}\\approx{f(w_row[2], 3)}"),
        ("e/(2e+1)\\approx0.422", f"e/(2e+1)\\approx{f(w_tie_3[0], 3)}"),
        ("1/(2e+1)\\approx0.155", f"1/(2e+1)\\approx{f(w_tie_3[2], 3)}"),
        (
            "y\\approx0.422\\times(1+5)+0.155\\times9\\approx3.93",
            f"y\\approx{f(w_tie_3[0], 3)}\\times(1+5)+{f(w_tie_3[2], 3)}\\times9\\approx{f(y_tie_3, 2)}",
        ),
        ("y\\to3", f"y\\to{y_tie_0:g}"),
        # The mistakes of exercises 3.8.1 to 3.8.4 that have a hint of their own: the weights paired with
        # the other values; the row without its mask; the temperature left out; keys of variance 1.
        ("---hint-3.6", f"---hint-{float(core.weighted_sum([0.8, 0.2], [2, 10])):g}"),
        ("---hint-0.114", f"---hint-{f(core.softmax(row)[2], 3)}"),
        ("---hint-3.15", f"---hint-{f(core.weighted_sum(core.softmax(tie_scores), tie_values), 2)}"),
        ("---hint-64\n", f"---hint-{HEAD_SCORE_VARIANCE / 2:g}\n"),  # a key component of variance 1, not 2
        ("---hint-11.3", f"---hint-{f(np.sqrt(HEAD_SCORE_VARIANCE), 1)}"),
        # Exercise 3.8.6: the sizes of a layer of the original Transformer, and the slips with a hint of
        # their own (one head's projection, one head's output squared, a W_O for each head).
        *_layer_sizes(),
        ("y\\to5", f"y\\to{round(y_tie_inf, 4):g}"),
        # Exercise 3.8.5: three equal scores give y = 5 at any temperature; half the smallest positive double.
        ("y=(1+5+9)/3=5", "y=(1+5+9)/3={:g}".format(*equal_y)),
        (
            "分数差到 $38$ 左右" if zh else "the scores is about $38$ or more",
            ("分数差到 ${}$ 左右" if zh else "the scores is about ${}$ or more").format(exact_nine),
        ),
        # A small start (W_Q and W_K of variance 1/18): the unscaled head about twice the scaled, not 5.5 times.
        (
            "损失约为缩放的 $2$ 倍" if zh else "about $2$ times as high",
            ("损失约为缩放的 ${:.0f}$ 倍" if zh else "about ${:.0f}$ times as high").format(hf["small_start_ratio"]),
        ),
        # Exercise 3.8.4: the unscaled score's standard deviation at d_k = 64, and the scaled one's.
        ("$11.3$", f"${f(np.sqrt(HEAD_SCORE_VARIANCE), 1)}$"),
        ("$1.4$", f"${f(np.sqrt(HEAD_SCORE_VARIANCE / 64), 1)}$"),
        # The head that learns: a default run and the comparison.
        ("$2.310$", f"${f(hf['first'], 3)}$"),
        ("\\ln 10\\approx2.303", f"\\ln 10\\approx{f(math.log(10), 3)}"),
        ("$0.011$", f"${f(hf['at_100'], 3)}$"),
        ("$0.369$", f"${f(hf['before']['weight_on_match'], 3)}$"),
        ("9.7%", f"{f(100 * hf['before']['accuracy'], 1)}%"),
        ("$0.958$", f"${f(hf['after']['weight_on_match'], 3)}$"),
        (
            "$1000$ 个例子全部答对" if zh else "all $1000$ examples are answered right",
            ("${:g}$ 个例子全部答对" if zh else "all ${:g}$ examples are answered right").format(
                1000 if hf["after"]["accuracy"] == 1.0 else hf["after"]["accuracy"]
            ),
        ),
        # The two maps, after 300 steps: W_V's digit rows about 4 times its letter rows (about equal before).
        (
            "平均约是 $4$ 倍" if zh else "about $4$ times as long",
            ("平均约是 ${:.0f}$ 倍" if zh else "about ${:.0f}$ times as long").format(hf["reads_ratio"]),
        ),
        # Three significant figures: their ratio (5.5) is read from the numbers as printed.
        ("$0.00175$", f"${f(hf['scaled'], 5)}$"),
        ("$0.00968$", f"${f(hf['unscaled'], 5)}$"),
        ("$5.5$", f"${f(hf['unscaled'] / hf['scaled'], 1)}$"),
        (
            "$20$ 个种子里" if zh else "for all $20$ seeds",
            ("${}$ 个种子里" if zh else "for all ${}$ seeds").format(hf["seeds_2x"]),
        ),
    ]
    assert row.argmax() == 3 and w_row[3] == 0.0  # the largest score is a future position
    # the two maps as the fold says them: every row's strongest score on the diagonal, and the digit rows of
    # W_V about as long as the letter rows before training
    assert hf["diagonal_strongest"] and 0.8 < hf["reads_ratio_before"] < 1.25, hf
    assert S[1].argmax() > 1  # the largest score of row 2 is a future position
    return {"sec-3-7": fig37, "sec-3-8": fig38}


FIGURES = {lang: figures(lang) for lang in LANGUAGES}
CASES = [
    (lang, sid, quoted, computed)
    for lang in LANGUAGES
    for sid, pairs in FIGURES[lang].items()
    for quoted, computed in pairs
]


@pytest.mark.parametrize("lang, section_id, quoted, computed", CASES, ids=[f"{c[0]}-{c[1]}-{c[2][:30]}" for c in CASES])
def test_each_quoted_figure_is_the_core_value(lang, section_id, quoted, computed):
    assert computed == quoted
    assert quoted in section_source(lang, section_id), f"{quoted!r} is not in the {lang} text of {section_id}"


_DECIMAL = re.compile(r"(?<![\d.])\d+\.\d+(?![\d.])")


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("section_id", ["sec-3-7", "sec-3-8"])
def test_every_decimal_in_the_text_is_checked(lang, section_id):
    covered = {n for quoted, _ in FIGURES[lang][section_id] for n in _DECIMAL.findall(quoted)}
    allowed = covered | GIVEN[section_id] | SECTION_REFS | CITATIONS
    unchecked = sorted(set(_DECIMAL.findall(section_source(lang, section_id))) - allowed)
    assert not unchecked, f"numbers quoted without a check in tests/test_content_numbers.py: {unchecked}"


#: Exercise answers, recomputed: id -> the exact value the answer rounds.
ANSWERS = {
    "ex-3-8-4": lambda: HEAD_SCORE_VARIANCE,
    "q2-alpha2": lambda: core.scaled_dot_product_attention([[1.0, 1.0]], K, V, scale=1.0)[1][0, 1],
    "q5-entries": lambda: 4096**2,
    "q5-memory": lambda: 4096**2 * np.dtype(np.float16).itemsize / 2**20,
    "ex-3-8-2": lambda: core.softmax(np.where(core.causal_mask(4)[2], [1.0, 3.0, 4.0, 6.0], -np.inf))[2],
    "ex-3-8-3": lambda: core.weighted_sum(core.softmax([2.0, 2.0, -1.0], temperature=3.0), [1.0, 5.0, 9.0]),
    "step1-check": lambda: core.weighted_sum(core.softmax([7.0, 7.0]), [4.0, 16.0]),
    "step2-check": lambda: two_values(-2.0, 1.0)[1],
    "step3-check": lambda: two_values(2.0, 2.0)[1],
    "ex-3-8-1": lambda: core.weighted_sum([0.2, 0.8], [2.0, 10.0]),
    # W_O maps the h heads' outputs (d_v = d_model / h each), concatenated, to d_model entries
    "ex-3-8-6": lambda: (TRANSFORMER_HEADS * (TRANSFORMER_D_MODEL // TRANSFORMER_HEADS)) * TRANSFORMER_D_MODEL,
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_number_exercise_answers_are_the_core_values(lang):
    numbered = [b for s in EDITIONS[lang].values() for b in s.exercises() if b.options["kind"] == "number"]
    assert sorted(b.args[0] for b in numbered) == sorted(ANSWERS)
    for b in numbered:
        exact = float(ANSWERS[b.args[0]]())
        answer = b.options["answer"]
        decimals = len(answer.split(".")[1]) if "." in answer else 0
        assert f(exact, decimals) == answer, b.args
        assert abs(float(answer) - exact) <= float(b.options["tol"]), b.args
        # A question that asks for N decimals takes half a unit of the Nth decimal either side, no more: the
        # answer rounded right, not 3.94 for 3.932 ("two decimals") nor 0.21 for 0.212 ("three decimals").
        asked = re.search(r"保留(两|三)位小数|\(Give (two|three) decimal places\.\)", b.parts["question"])
        if asked:
            n = {"两": 2, "三": 3, "two": 2, "three": 3}[asked.group(1) or asked.group(2)]
            assert float(b.options["tol"]) <= 0.5 * 10.0**-n, (b.args, b.options["tol"], n)
        assert answer in b.parts["answer"], f"{b.args[0]}: the worked answer does not state {answer}"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_heads_comparison_says_the_seeds_ratios_and_that_each_lands_in_b(lang):
    """The comparison's feedback quotes the range of seeds 0-19's ratios (unscaled to scaled loss at d_k = 64)
    and says each lands in option B (``views.head.compare_outcome``: the unscaled head falls, but ends 1.5 times
    the scaled one's loss or more), so that the question asks what the seed does not decide."""
    ratios = head_figures()["ratios"]
    said = text("head_compare_why", lang)
    assert f"{min(ratios):.1f}" in said and f"{max(ratios):.0f}" in said, (said, min(ratios), max(ratios))
    assert head_figures()["outcomes"] == [1] * 20  # B for each seed, as the feedback says
