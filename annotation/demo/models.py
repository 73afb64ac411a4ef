"""The demo's models: three simulated MLLMs whose citations differ in quality, each with a few
hundred responses scored by the strong simulated judge, and the 24 labelled responses spread over
them — so each model has a human-labelled subset that is a random sample of its responses, which
is what prediction-powered inference needs.

A response's quality q (its share of correct citations and chance of the right answer) is uniform
on [0.05, 0.95] for the 24 labelled responses (as they were built before models existed). Model
m's qualities follow its own density p_m on that range (`large` ∝ q, `small` flat, `tiny` ∝ 1 − q,
drawn by the inverse CDF); a labelled response of quality q goes to model m with probability
p_m(q) / Σ p(q) = q/1.5, 1/3, (1 − q)/1.5, so each model's labelled responses are distributed
like the rest of its responses.
"""

from __future__ import annotations

import math
import random

MODELS = ("sim-omni-large", "sim-omni-small", "sim-omni-tiny")
RESPONSES_PER_MODEL = 200
LOW, HIGH = 0.05, 0.95  # the quality range of make_response (LOW + HIGH = 1)


def quality_of(model: str, uniform: float) -> float:
    """Map a quality drawn uniformly on [LOW, HIGH] to `model`'s own distribution."""
    share = (uniform - LOW) / (HIGH - LOW)
    rising = math.sqrt(LOW**2 + share * (HIGH**2 - LOW**2))  # density ∝ q
    return {MODELS[0]: rising, MODELS[1]: uniform, MODELS[2]: 1 - rising}[model]


def labelled_model(quality: float, rng: random.Random) -> str:
    """The model a labelled response of this quality is given (module doc)."""
    return rng.choices(MODELS, weights=[quality / 1.5, 1 / 3, (1 - quality) / 1.5])[0]
