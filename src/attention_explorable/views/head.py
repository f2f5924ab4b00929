"""A head that learns: one attention head trained on key -> value lookup, in float64 (the oracle).

The task. An example is four (key, value) pairs and a query, such as
``C7 A2 D5 B9 | A -> ?``: keys are four different letters of ``A``-``H``,
values are digits, and the query is one of the four keys. The right answer
is the value of the pair whose key the query names (``2`` here). Each pair is
one position, its input the one-hot of its letter beside the one-hot of its
digit (18 numbers); the query's input is the one-hot of its letter, with the
digit part empty.

The model, for one example (``P = 4`` positions, ``d_in = 18``)::

    q = x_query W_Q                 # (d_in,) @ (d_in, d_k) -> (d_k,)
    K = X_pairs W_K                 # (P, d_in) @ (d_in, d_k) -> (P, d_k)
    V = X_pairs W_V                 # (P, d_in) @ (d_in, d_v) -> (P, d_v)
    scores = K q / sqrt(d_k)        # (P,); without the scale when ``scaled`` is off
    weights = softmax(scores)       # (P,), sums to 1
    out = weights V                 # (d_v,)
    logits = out W_U                # (10,): one per digit

trained by cross-entropy on the right digit with Adam (Kingma & Ba 2015),
its gradients written out by hand below. ``d_v = d_k``.

The premise of section 3.7. W_Q and W_K start with entries of variance 1,
so that q and k have components of mean 0 and variance 1: the case in which
the text shows that q . k has variance d_k, and that dividing by sqrt(d_k)
keeps the softmax from saturating. W_V and W_U start small (variance
1 / fan-in), as usual. Under that premise the unscaled head at d_k = 64
learns far more slowly (tests/views/test_head_view.py holds it for every
seed tried); with the usual small start of W_Q and W_K (variance 1 / d_in)
the gap mostly closes (seed 0: about 2 times at steps 96-100, not 5.5;
tests/test_content_numbers.py), and the page would show little.

Every random number comes from mulberry32 (:func:`.matrix.mulberry32`), the
same generator as ``web/head.js``: the initial parameters from the stream of
``seed``, the examples of step ``t`` from the stream of
``seed + DATA_OFFSET``, continuing from one step to the next. So Python and
JavaScript train the same head on the same examples.

Reference: Vaswani et al. (2017), "Attention is all you need", section
3.2.1; course section 3.7 (the sqrt(d_k) scale), 3.8.1 (keys and values).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .matrix import MULBERRY_INCREMENT, mulberry32

#: Letters a key may be (A-H) and digits a value may be (0-9).
N_LETTERS, N_DIGITS = 8, 10
#: Pairs in an example, and the numbers of a position's input.
N_PAIRS = 4
D_IN = N_LETTERS + N_DIGITS
#: Uniform draws per example: four letters, four digits, which pair is asked.
DRAWS = 2 * N_PAIRS + 1
#: Where the examples' stream starts, from the seed (the parameters' stream starts at the seed).
DATA_OFFSET = 0x9E3779B9
#: Adam's constants.
BETA1, BETA2, EPS = 0.9, 0.999, 1e-8
#: The explorable's controls: name -> (lo, hi, step); the state a page opens with.
BOUNDS = {"d_k": (2, 64, 1), "learning_rate": (0.001, 0.05, 0.001), "seed": (0, 9999, 1)}
DEFAULTS = {"d_k": 16, "learning_rate": 0.01, "seed": 0, "scaled": True, "batch": 64}
LETTERS = "ABCDEFGH"
#: The first prediction, as a class question (``classroom.questions.prompts``): "" then the options, whose
#: texts are ``head_predict_a`` ... (the page's ``prediction`` is the option's index from 0).
PREDICTIONS = ("", "a", "b", "c")
#: The first prediction's right option: W_V mostly reads the digit.
RIGHT_PREDICTION = "b"
#: The section of the course text the head belongs to.
SECTION = "3.8"


def _check_int(name: str, value, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise ValueError(f"{name} must be an integer from {lo} to {hi}, got {value!r}")
    return int(value)


def uniforms(seed: int, start: int, count: int) -> np.ndarray:
    """``count`` uniforms in [0, 1) from mulberry32's stream of ``seed``, beginning at its ``start``-th output.

    Exact in float64 (an integer below 2**32 divided by 2**32), so JavaScript gets the same numbers.
    """
    first = (seed + start * MULBERRY_INCREMENT) % 2**32
    return mulberry32(first, count) / 2.0**32


@dataclass(frozen=True)
class Batch:
    """Examples of the lookup task.

    Attributes
    ----------
    keys : ndarray of int, shape (B, 4)
        Each pair's letter (0 for A).
    values : ndarray of int, shape (B, 4)
        Each pair's digit.
    asked : ndarray of int, shape (B,)
        Which pair the query names.
    """

    keys: np.ndarray
    values: np.ndarray
    asked: np.ndarray

    @property
    def answers(self) -> np.ndarray:
        """The right digit of each example, shape (B,)."""
        return self.values[np.arange(len(self.asked)), self.asked]

    def inputs(self) -> tuple[np.ndarray, np.ndarray]:
        """(x_query (B, d_in), X_pairs (B, 4, d_in)): one-hot letter beside one-hot digit."""
        b = len(self.asked)
        pairs = np.zeros((b, N_PAIRS, D_IN))
        rows = np.arange(b)[:, None]
        cols = np.arange(N_PAIRS)[None, :]
        pairs[rows, cols, self.keys] = 1.0
        pairs[rows, cols, N_LETTERS + self.values] = 1.0
        query = np.zeros((b, D_IN))
        query[np.arange(b), self.keys[np.arange(b), self.asked]] = 1.0
        return query, pairs


def make_batch(seed: int, step: int, size: int = DEFAULTS["batch"]) -> Batch:
    """The ``size`` examples of training step ``step`` (1, 2, ...) of a run with ``seed``.

    Example ``i`` of step ``t`` takes draws ``DRAWS * (size * (t - 1) + i)`` onwards of the examples'
    stream: four letters drawn without replacement (``floor(u * letters left)``), four digits
    (``floor(10 u)``), the pair asked (``floor(4 u)``).

    Raises
    ------
    ValueError
        If ``seed``, ``step`` or ``size`` is not an integer in range (the message names it).
    """
    seed = _check_int("seed", seed, 0, 2**32 - 1)
    step = _check_int("step", step, 1, 10**7)
    size = _check_int("size", size, 1, 4096)
    u = uniforms((seed + DATA_OFFSET) % 2**32, DRAWS * size * (step - 1), DRAWS * size).reshape(size, DRAWS)
    keys = np.zeros((size, N_PAIRS), dtype=int)
    for i in range(size):
        left = list(range(N_LETTERS))
        for j in range(N_PAIRS):
            keys[i, j] = left.pop(int(u[i, j] * len(left)))
    values = (u[:, N_PAIRS : 2 * N_PAIRS] * N_DIGITS).astype(int)
    asked = (u[:, 2 * N_PAIRS] * N_PAIRS).astype(int)
    return Batch(keys, values, asked)


def init_params(seed: int, d_k: int) -> dict[str, np.ndarray]:
    """The parameters a run starts from: uniform entries from the stream of ``seed``, in the order
    W_Q, W_K, W_V, W_U, each row by row.

    W_Q, W_K: variance 1 (uniform on [-sqrt 3, sqrt 3]), the premise of 3.7 (see the module docstring).
    W_V: variance 1 / d_in; W_U: variance 1 / d_v.

    Returns
    -------
    dict
        ``W_Q`` (d_in, d_k), ``W_K`` (d_in, d_k), ``W_V`` (d_in, d_k), ``W_U`` (d_k, 10).
    """
    seed = _check_int("seed", seed, 0, 2**32 - 1)
    d_k = _check_int("d_k", d_k, 1, 256)
    shapes = {"W_Q": (D_IN, d_k, 1.0), "W_K": (D_IN, d_k, 1.0), "W_V": (D_IN, d_k, 1.0 / D_IN),
              "W_U": (d_k, N_DIGITS, 1.0 / d_k)}  # fmt: skip
    u = uniforms(seed, 0, sum(a * b for a, b, _ in shapes.values()))
    params, at = {}, 0
    for name, (a, b, variance) in shapes.items():
        params[name] = (2.0 * u[at : at + a * b] - 1.0).reshape(a, b) * math.sqrt(3.0 * variance)
        at += a * b
    return params


def _softmax_rows(z: np.ndarray) -> np.ndarray:
    """Softmax of each row (shift by the row's max: no overflow)."""
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def forward(params, batch: Batch, scaled: bool = True) -> dict[str, np.ndarray]:
    """The head on ``batch``: ``scores`` (B, 4), ``weights`` (B, 4), ``probs`` (B, 10), ``loss`` (mean
    cross-entropy, nats), ``accuracy`` (share of examples whose likeliest digit is right)."""
    query, pairs = batch.inputs()
    scale = 1.0 / math.sqrt(params["W_Q"].shape[1]) if scaled else 1.0
    q = query @ params["W_Q"]  # (B, d_in) @ (d_in, d_k) -> (B, d_k)
    k = pairs @ params["W_K"]  # (B, P, d_in) @ (d_in, d_k) -> (B, P, d_k)
    v = pairs @ params["W_V"]  # (B, P, d_in) @ (d_in, d_v) -> (B, P, d_v)
    scores = np.einsum("bd,bpd->bp", q, k) * scale
    weights = _softmax_rows(scores)
    out = np.einsum("bp,bpd->bd", weights, v)  # (B, d_v)
    logits = out @ params["W_U"]  # (B, 10)
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    rows, answers = np.arange(len(batch.asked)), batch.answers
    return {
        "q": q, "k": k, "v": v, "scale": scale, "scores": scores, "weights": weights, "out": out,
        "probs": np.exp(log_probs), "loss": float(-log_probs[rows, answers].mean()),
        "accuracy": float((log_probs.argmax(axis=1) == answers).mean()),
    }  # fmt: skip


def gradients(params, batch: Batch, scaled: bool = True) -> tuple[dict, dict[str, np.ndarray]]:
    """(the forward pass, d loss / d each parameter), by the chain rule written out."""
    f = forward(params, batch, scaled)
    query, pairs = batch.inputs()
    b = len(batch.asked)
    d_logits = f["probs"].copy()
    d_logits[np.arange(b), batch.answers] -= 1.0
    d_logits /= b  # the loss is a mean over the batch
    d_out = d_logits @ params["W_U"].T  # (B, d_v)
    d_weights = np.einsum("bd,bpd->bp", d_out, f["v"])
    w = f["weights"]
    # softmax's Jacobian: d s_j = w_j (d w_j - sum_i w_i d w_i)
    d_scores = w * (d_weights - (d_weights * w).sum(axis=1, keepdims=True)) * f["scale"]
    d_q = np.einsum("bp,bpd->bd", d_scores, f["k"])
    d_k = np.einsum("bp,bd->bpd", d_scores, f["q"])
    d_v = np.einsum("bp,bd->bpd", w, d_out)
    grads = {
        "W_Q": query.T @ d_q,
        "W_K": np.einsum("bpi,bpd->id", pairs, d_k),
        "W_V": np.einsum("bpi,bpd->id", pairs, d_v),
        "W_U": f["out"].T @ d_logits,
    }
    return f, grads


@dataclass
class Run:
    """A training run: its settings, its parameters and Adam's moments, and its history.

    Create with :func:`start`; :meth:`step` trains one step. ``losses`` and ``accuracies`` hold one
    entry per step done (the batch's, measured before that step's update).
    """

    seed: int
    d_k: int
    learning_rate: float
    scaled: bool
    batch: int
    params: dict
    m: dict
    v: dict
    t: int = 0

    def __post_init__(self):
        self.losses: list[float] = []
        self.accuracies: list[float] = []

    def step(self) -> float:
        """Train one step (Adam on one batch); return that batch's loss."""
        self.t += 1
        f, grads = gradients(self.params, make_batch(self.seed, self.t, self.batch), self.scaled)
        for name, g in grads.items():
            self.m[name] = BETA1 * self.m[name] + (1 - BETA1) * g
            self.v[name] = BETA2 * self.v[name] + (1 - BETA2) * g * g
            m_hat = self.m[name] / (1 - BETA1**self.t)
            v_hat = self.v[name] / (1 - BETA2**self.t)
            self.params[name] = self.params[name] - self.learning_rate * m_hat / (np.sqrt(v_hat) + EPS)
        self.losses.append(f["loss"])
        self.accuracies.append(f["accuracy"])
        return f["loss"]


def start(
    seed: int = DEFAULTS["seed"],
    d_k: int = DEFAULTS["d_k"],
    learning_rate: float = DEFAULTS["learning_rate"],
    scaled: bool = DEFAULTS["scaled"],
    batch: int = DEFAULTS["batch"],
) -> Run:
    """A run at step 0.

    Raises
    ------
    ValueError
        If ``learning_rate`` is not a finite number > 0, or another setting is out of range (named).

    Examples
    --------
    >>> run = start(seed=0, d_k=16)
    >>> losses = [run.step() for _ in range(100)]
    >>> losses[0] > 2.0 > 0.1 > losses[-1]
    True
    """
    if isinstance(learning_rate, bool) or not isinstance(learning_rate, (int, float)):
        raise ValueError(f"learning_rate must be a number > 0, got {learning_rate!r}")
    if not (math.isfinite(learning_rate) and learning_rate > 0):
        raise ValueError(f"learning_rate must be a finite number > 0, got {learning_rate!r}")
    params = init_params(seed, d_k)
    _check_int("batch", batch, 1, 4096)
    zeros = {n: np.zeros_like(p) for n, p in params.items()}
    return Run(seed, d_k, float(learning_rate), bool(scaled), batch, params, zeros, dict(zeros))


def parse_lookup(text: str) -> Batch:
    """A lookup typed by a student, ``"C7 A2 D5 B9 | A"``, as a batch of one example.

    Raises
    ------
    ValueError
        If it is not four pairs of a letter A-H and a digit, the letters all different, then ``|`` and
        one of those letters (the message says which part is wrong).
    """
    if not isinstance(text, str) or "|" not in text:
        raise ValueError(f"lookup must be four pairs, '|' and a letter, like 'C7 A2 D5 B9 | A', got {text!r}")
    left, right = text.upper().split("|", 1)
    pairs, query = left.split(), right.strip()
    if len(pairs) != N_PAIRS or any(len(p) != 2 or p[0] not in LETTERS or not p[1].isdigit() for p in pairs):
        raise ValueError(f"lookup must have four pairs like 'C7' (a letter A-H, a digit), got {left.strip()!r}")
    keys = [LETTERS.index(p[0]) for p in pairs]
    if len(set(keys)) != N_PAIRS:
        raise ValueError(f"lookup's four letters must all differ, got {left.strip()!r}")
    if len(query) != 1 or query not in LETTERS or LETTERS.index(query) not in keys:
        raise ValueError(f"lookup's query must be one of its four letters, got {query!r}")
    return Batch(np.array([keys]), np.array([[int(p[1]) for p in pairs]]), np.array([keys.index(LETTERS.index(query))]))


def match_table(params, scaled: bool = True) -> np.ndarray:
    """The learned score of each query letter against each key letter, shape (8, 8): W_Q W_K^T seen
    through the inputs (rows: the query's letter; columns: a pair's letter; the pair's digit, which adds
    the same to every row, left out). A trained head makes it a match table: its diagonal stands out."""
    scale = 1.0 / math.sqrt(params["W_Q"].shape[1]) if scaled else 1.0
    return params["W_Q"][:N_LETTERS] @ params["W_K"][:N_LETTERS].T * scale


def value_reads(params) -> np.ndarray:
    """How much W_V reads of each part of a position, shape (18,): the norm of each input's row of W_V
    (the 8 letters, then the 10 digits). A trained head reads the digit part, not the key part."""
    return np.linalg.norm(params["W_V"], axis=1)


#: The step of a seed's stream whose examples serve as fresh ones: no run trains that long (the page stops
#: at 5,000 steps), so the head has never seen them.
FRESH_STEP = 1_000_000


def evaluate(run: Run, size: int = 1000) -> dict[str, float]:
    """How ``run``'s head does on ``size`` fresh examples (step :data:`FRESH_STEP` of its seed's stream).

    Returns ``accuracy`` (the share answered right, 0 to 1) and ``weight_on_match`` (the mean weight the
    query puts on the pair whose key it names; 0.25 would be no preference among the four pairs). The
    figures the course text quotes for a default run, and those of ``benchmarks/head.py``.

    Raises ValueError if ``size`` is not an integer from 1 to 100,000.
    """
    size = _check_int("size", size, 1, 100_000)
    batch = make_batch(run.seed, FRESH_STEP, size)
    f = forward(run.params, batch, run.scaled)
    return {
        "accuracy": float(f["accuracy"]),
        "weight_on_match": float(np.mean(f["weights"][np.arange(size), batch.asked])),
    }


# --- the view of the head's Panel component (explorables/head.py) -------------------------------------

#: The state of the Panel component: the settings, the steps trained so far, whether it plays, and the
#: prediction asked first (``""`` or an option of :data:`PREDICTIONS`) or skipped.
STATE_NAMES = ("d_k", "learning_rate", "seed", "scaled", "steps", "playing", "prediction", "skipped")
#: The most steps a run trains (the page's limit too).
MAX_STEPS = 5000
#: Where a playing run rests by itself the first time (the step the text's prediction asks about); pressed
#: again, it trains on to :data:`MAX_STEPS`.
REST_AT = 300


def next_rest(t: int) -> int:
    """The step a run at step ``t`` that starts playing trains to before it rests: :data:`REST_AT`, or once
    past it :data:`MAX_STEPS` (``web/head.js`` the same).

    >>> next_rest(0), next_rest(299), next_rest(300), next_rest(4000)
    (300, 300, 5000, 5000)
    """
    return REST_AT if t < REST_AT else MAX_STEPS


#: The examples whose weights the page follows while the head trains (``WATCHED`` in ``web/head.js``).
WATCHED = (2024, 1, 3)
#: A row of the training record every this many steps (and the first and last step).
HISTORY_EVERY = 25
#: The text the view shows.
STRING_KEYS = (
    "head_readout",
    "head_readout_start",
    "head_readout_first",
    "head_train",
    "head_pause",
    "head_predict_right",
    "head_predict_wrong",
    "head_predict_answer",
    "head_weights_heading",
    "head_table_title",
    "head_reads_title",
    "head_history_title",
    "head_history_step",
    "head_history_loss",
    "head_history_accuracy",
    "head_progress",
)


def head_config(language: str) -> dict:
    """What :func:`head_view` needs besides the state: ``strings`` (the interface text, by key).

    Raises
    ------
    KeyError
        If ``language`` is unknown.
    """
    from ..strings import text

    return {"strings": {key: text(key, language) for key in STRING_KEYS}}


#: Runs kept by their settings, each at the step it last reached (a view of a later step trains on).
_RUNS: dict[tuple, Run] = {}


def run_at(seed: int, d_k: int, learning_rate: float, scaled: bool, steps: int) -> Run:
    """The run of these settings after ``steps`` steps: the same numbers as training from step 0, kept
    between calls so that a view of the next step trains one more step only.

    Raises
    ------
    ValueError
        For a setting out of its bounds, or ``steps`` not an integer from 0 to :data:`MAX_STEPS`.
    """
    steps = _check_int("steps", steps, 0, MAX_STEPS)
    key = (seed, d_k, float(learning_rate), bool(scaled))
    run = _RUNS.get(key)
    if run is None or run.t > steps:
        run = start(seed=seed, d_k=d_k, learning_rate=learning_rate, scaled=scaled)
        if len(_RUNS) >= 8:  # a few sessions' runs; the oldest goes
            _RUNS.pop(next(iter(_RUNS)))
        _RUNS[key] = run
    while run.t < steps:
        run.step()
    return run


def learned(run: Run) -> bool:
    """Whether ``run`` has learned: the mean accuracy of its last 20 batches over 95 % (the page's test)."""
    return len(run.accuracies) >= 20 and float(np.mean(run.accuracies[-20:])) > 0.95


#: The comparison (d_k = 64, one head scaled and one not, trained side by side): steps each head trains,
#: how many of its first and last batches' losses are averaged (one batch's loss is noisy), and the
#: prediction's options, by what the two loss curves do (texts ``head_compare_a`` ... ``head_compare_d``):
#: A the unscaled curve starts far above ln 10 (and falls more slowly); B both start near it and the
#: unscaled one falls more slowly; C the unscaled one stays flat; D it falls faster at first.
COMPARE_D_K, COMPARE_STEPS, COMPARE_FIRST, COMPARE_WINDOW = 64, 100, 20, 5
COMPARE_OPTIONS = ("a", "b", "c", "d")
#: "Far above ln 10" (A: its first loss over ln 10 plus this); "learned" (the scaled head's last losses under
#: this share of its first: else the run cannot tell the options apart); "flat" (C: the unscaled head's last
#: losses still over this share of its first); "faster at first" (D: its mean loss over the first steps under
#: this share of the scaled head's); "slower" (B: its last losses at least this many times the scaled head's).
COMPARE_ABOVE, COMPARE_LEARNED, COMPARE_FLAT, COMPARE_FASTER, COMPARE_SLOWER = 0.5, 0.5, 0.9, 0.9, 1.5


def compare_losses(seed: int, learning_rate: float = DEFAULTS["learning_rate"]) -> tuple[list, list]:
    """The comparison's two runs (``COMPARE_D_K``, ``COMPARE_STEPS`` steps, from the same ``seed``): the scaled
    head's batch losses and the unscaled head's, as the page trains them.

    Raises
    ------
    ValueError
        For a ``seed`` or ``learning_rate`` out of its bounds (:func:`start`).
    """
    losses = []
    for scaled in (True, False):
        run = start(seed=seed, d_k=COMPARE_D_K, learning_rate=learning_rate, scaled=scaled)
        for _ in range(COMPARE_STEPS):
            run.step()
        losses.append(run.losses)
    return losses[0], losses[1]


def compare_outcome(scaled_losses, unscaled_losses) -> int | None:
    """Which option of the comparison a pair of runs bears out: 0 (A) to 3 (D), or None for neither.

    Parameters
    ----------
    scaled_losses, unscaled_losses : sequence of float, length >= COMPARE_STEPS
        Each head's batch loss at steps 1, 2, ... (nats).

    Returns
    -------
    int or None
        Checked in this order, on the mean of each head's last ``COMPARE_WINDOW`` losses (``last``) and of
        its first ``COMPARE_FIRST`` (``early``):

        - None if the scaled head has not learned (``last`` over ``COMPARE_LEARNED`` of its first loss: the
          learning rate is too small for 100 steps to tell the options apart);
        - A if the unscaled head's first loss is over ln 10 + ``COMPARE_ABOVE``;
        - C if its ``last`` is still over ``COMPARE_FLAT`` of its first loss (it has hardly moved);
        - B if its ``last`` is ``COMPARE_SLOWER`` times the scaled head's or more;
        - D if its ``early`` is under ``COMPARE_FASTER`` of the scaled head's (and, not B, the scaled head
          has caught up by the end);
        - None otherwise: the unscaled head neither ends clearly higher nor falls clearly faster at first.

        The twin of ``web/head.js`` ``compareOutcome``.

    Raises
    ------
    ValueError
        If either run has fewer than ``COMPARE_STEPS`` losses.
    """
    s = np.asarray(scaled_losses, dtype=float)
    u = np.asarray(unscaled_losses, dtype=float)
    for name, losses in (("scaled_losses", s), ("unscaled_losses", u)):
        if losses.ndim != 1 or len(losses) < COMPARE_STEPS:
            raise ValueError(f"{name} must hold at least {COMPARE_STEPS} losses, got shape {losses.shape}")
    last = slice(COMPARE_STEPS - COMPARE_WINDOW, COMPARE_STEPS)
    s_last, u_last = float(np.mean(s[last])), float(np.mean(u[last]))
    if s_last > COMPARE_LEARNED * s[0]:
        return None
    if u[0] > math.log(N_DIGITS) + COMPARE_ABOVE:
        return 0
    if u_last > COMPARE_FLAT * u[0]:
        return 2
    if u_last >= COMPARE_SLOWER * s_last:
        return 1
    if np.mean(u[:COMPARE_FIRST]) < COMPARE_FASTER * np.mean(s[:COMPARE_FIRST]):
        return 3
    return None


def head_view(state, config: dict) -> dict:
    """Everything the head's Panel component displays for one state.

    Parameters
    ----------
    state : Mapping
        :data:`STATE_NAMES`: ``d_k``, ``learning_rate``, ``seed``, ``scaled`` (the run's settings),
        ``steps`` (trained so far, 0 to :data:`MAX_STEPS`), ``playing`` (bool), ``prediction`` (``""`` or
        one of :data:`PREDICTIONS`), ``skipped`` (bool).
    config : dict
        :func:`head_config` of the interface language.

    Returns
    -------
    dict
        ``sources``: ``curve`` (columns ``step``, ``loss``, ``accuracy``: one row per step trained),
        ``watched`` (bars of the three watched examples: ``x``, ``top``, ``fill``, ``label``),
        ``table`` (the 8 x 8 match table's cells: ``x``, ``y``, ``fill``, ``text``, ``text_color``),
        ``reads`` (W_V's reads, 18 cells); ``html``: ``readout``, ``progress``, ``feedback``, ``live``
        and the data tables ``watched_data``, ``table_data``, ``reads_data``, ``history_data``;
        ``props``: the buttons' labels and whether they can be pressed, the prediction's buttons.

    Raises
    ------
    ValueError
        For a setting out of its bounds or a prediction not among :data:`PREDICTIONS` (named).
    """
    from .numbers import MINUS, data_table, format_number

    S = config["strings"]
    if state["prediction"] not in PREDICTIONS:
        raise ValueError(f"prediction must be one of {list(PREDICTIONS)}, got {state['prediction']!r}")
    run = run_at(state["seed"], state["d_k"], state["learning_rate"], state["scaled"], state["steps"])
    ready = bool(state["prediction"]) or bool(state["skipped"])
    t = run.t
    if t:
        readout = S["head_readout"].format(
            step=t, loss=f"{run.losses[-1]:.3f}", accuracy=f"{100 * run.accuracies[-1]:.0f}"
        )
    else:
        readout = S["head_readout_start" if ready else "head_readout_first"]
    done = learned(run)
    if done and state["prediction"]:
        feedback = S["head_predict_right" if state["prediction"] == RIGHT_PREDICTION else "head_predict_wrong"]
    else:
        feedback = S["head_predict_answer"] if done else ""

    f = forward(run.params, make_batch(*WATCHED), run.scaled)
    batch = make_batch(*WATCHED)
    bars = {"x": [], "top": [], "fill": [], "label": []}
    for b in range(WATCHED[2]):
        for p in range(N_PAIRS):
            bars["x"].append(b * (N_PAIRS + 1) + p + 1)
            bars["top"].append(float(f["weights"][b, p]))
            bars["fill"].append("#2f6fad" if p == batch.asked[b] else "#b8b0d4")
            bars["label"].append(f"{LETTERS[batch.keys[b, p]]}{batch.values[b, p]}")
    table = match_table(run.params, run.scaled)
    reads = value_reads(run.params)

    def cells(matrix: np.ndarray) -> dict:
        top = max(float(np.max(np.abs(matrix))), 1e-12)
        out = {"x": [], "y": [], "fill": [], "text": [], "text_color": []}
        for (i, j), v in np.ndenumerate(matrix):
            share = v / top  # blue above 0, orange below, as the module draws it
            rgb = "47,111,173" if share >= 0 else "214,120,40"
            out["x"].append(j + 1)
            out["y"].append(i + 1)
            out["fill"].append(f"rgba({rgb},{abs(share):.3f})")
            out["text"].append(f"{v:.1f}".replace("-", MINUS))
            out["text_color"].append("#fff" if abs(share) > 0.6 else "#1b1b1b")
        return out

    history = [
        [str(i), f"{run.losses[i - 1]:.3f}", f"{100 * run.accuracies[i - 1]:.0f}"]
        for i in range(1, t + 1)
        if i == 1 or i % HISTORY_EVERY == 0 or i == t
    ]
    examples = [
        " ".join(f"{LETTERS[k]}{v}" for k, v in zip(batch.keys[b], batch.values[b], strict=True))
        + f" | {LETTERS[batch.keys[b, batch.asked[b]]]}"
        for b in range(WATCHED[2])
    ]
    digits = list("0123456789")
    playing = bool(state["playing"])
    return {
        "sources": {
            "curve": {
                "step": list(range(1, t + 1)),
                "loss": [float(x) for x in run.losses],
                "accuracy": [float(x) for x in run.accuracies],
            },
            "watched": bars,
            "table": cells(table),
            "reads": cells(reads[None, :]),
        },
        "ranges": {},
        "html": {
            "readout": readout,
            "progress": S["head_progress"].format(step=t, steps=MAX_STEPS),
            "feedback": feedback,
            # Said when training rests, never each tick (the component writes it then).
            "live": "" if playing or t == 0 else readout + (f" {feedback}" if feedback else ""),
            "watched_data": data_table(
                S["head_weights_heading"],
                ["", "1", "2", "3", "4"],
                [[e, *(format_number(w, html=False) for w in f["weights"][b])] for b, e in enumerate(examples)],
            ),
            "table_data": data_table(
                S["head_table_title"],
                ["", *LETTERS],
                [[a, *(format_number(x, html=False) for x in table[i])] for i, a in enumerate(LETTERS)],
            ),
            "reads_data": data_table(
                S["head_reads_title"], ["", *LETTERS, *digits], [["", *(format_number(x, html=False) for x in reads)]]
            ),
            "history_data": data_table(
                S["head_history_title"],
                [S["head_history_step"], S["head_history_loss"], S["head_history_accuracy"]],
                history,
            ),
        },
        "props": {
            "train": {"label": S["head_pause" if playing else "head_train"], "disabled": not ready or t >= MAX_STEPS},
            "step_button": {"disabled": not ready or playing or t >= MAX_STEPS},
            "predict_skip": {"visible": not ready},
            # The untrained head's weights are half the prediction's answer: its insides are shown once it
            # has trained a step, and from then on the prediction is kept (as web/head.js does).
            "prediction_choice": {
                "active": PREDICTIONS.index(state["prediction"]) - 1 if state["prediction"] else None,
                "disabled": bool(t),
            },
            **{f"{name}_plot": {"visible": ready and bool(t)} for name in ("watched", "table", "reads")},
        },
    }
