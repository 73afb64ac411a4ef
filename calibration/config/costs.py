"""What a judge configuration costs per response, from the calls recorded in `judge_calls`,
and the optional rule "the cheapest configuration in the 95 % confidence set of best ones"."""

from __future__ import annotations

from dataclasses import dataclass

from calibration.judges.judges_file import JudgeConfig, parse_configuration
from calibration.sweep.run import ConfigResult, SweepReport


@dataclass
class ConfigurationCost:
    """What one configuration cost per response, from the calls recorded in `judge_calls`
    (their token counts × the prices in today's judges file). `cost_per_response` is None
    when it cannot be known (`reason`): a call not recorded, or one without token counts."""

    source: str
    cost_per_response: float | None
    n_responses: int = 0
    calls: int = 0
    calls_not_recorded: int = 0
    calls_without_tokens: int = 0
    reason: str | None = None


class _PricedCalls:
    """The pipeline's `ask` for one configuration: answers from the cache (never a call), each call
    counted once per response and priced with the judge of the stage that asks it."""

    def __init__(self, cache, cost: ConfigurationCost):
        self.cache, self.cost, self.seen = cache, cost, set()

    def __call__(self, specs):
        from calibration.judges.parsing import parse_answer
        from calibration.judges.pipeline import Answer

        answers = []
        for spec in specs:
            record = self.cache.answered(spec.key)
            if spec.key not in self.seen:
                self.seen.add(spec.key)
                self.cost.calls += 1
                if record is None:
                    self.cost.calls_not_recorded += 1
                elif record.tokens_in is None or record.tokens_out is None:
                    self.cost.calls_without_tokens += 1
                else:
                    self.cost.cost_per_response += spec.judge.cost(record.tokens_in, record.tokens_out)
            answers.append(
                Answer(spec.key, "pending")
                if record is None
                else Answer(spec.key, "answered", parse_answer(spec.stage, record.response, spec.n_citations))
            )
        return answers


def _finish(cost: ConfigurationCost) -> ConfigurationCost:
    """Per response, or None with the reason when the price cannot be known."""
    if not cost.n_responses:
        cost.cost_per_response, cost.reason = None, "no gold response of this source is in the project"
    elif cost.calls_not_recorded or cost.calls_without_tokens:
        cost.reason = (
            f"{cost.calls_not_recorded} call(s) not recorded, {cost.calls_without_tokens} "
            "without token counts: the price would be understated"
        )
        cost.cost_per_response = None
    else:
        cost.cost_per_response /= cost.n_responses
    return cost


def configuration_costs(
    report: SweepReport, judges: dict[str, JudgeConfig], store
) -> dict[str, ConfigurationCost]:
    """{source: ConfigurationCost} for every judge source of the sweep, over the gold responses
    it has a record for. Each response's calls are re-derived by the judge pipeline against the
    cache (no call is made) and counted once per response, priced with the judge of the stage
    that asks them. Sources that are not exportable get no price, with the reason."""
    from annotation.state import project_state
    from calibration.config.calibrated import exportable_configuration
    from calibration.judges.cache import CallCache
    from calibration.judges.pipeline import project_pipelines

    cache, out = CallCache(store), {}
    gold_ids = set(project_state(store).gold_by_response())  # the one gold set, as the sweep's
    for source in dict.fromkeys(c.source for c in report.configs):
        configuration_id, why = exportable_configuration(source, judges)
        if configuration_id is None:
            out[source] = ConfigurationCost(source, None, reason=why)
            continue
        configuration = parse_configuration(configuration_id, judges)
        missing = set(next(c.missing_ids for c in report.configs if c.source == source))
        ids = [rid for rid in store.response_ids() if rid in gold_ids and rid not in missing]
        cost = ConfigurationCost(source, 0.0)
        ask = _PricedCalls(cache, cost)
        for _, _, pipeline in project_pipelines(store, judges, [configuration], ids, ask):
            if isinstance(pipeline, str):
                continue
            ask.seen.clear()  # a call shared by two responses is paid by each, as scoring alone would
            pipeline.run()
            cost.n_responses += 1
        out[source] = _finish(cost)
    return out


def cheapest_choice(report: SweepReport, judges: dict[str, JudgeConfig], store) -> ConfigResult:
    """The cheapest exportable configuration in the 95 % confidence set of best ones
    (`calibration.sweep.verdict.cheapest_in_best_set` over `configuration_costs`). Raises
    ValueError, saying why, when no member of the set has a known price."""
    from calibration.sweep.verdict import cheapest_in_best_set

    costs = configuration_costs(report, judges, store)
    priced = {s: c.cost_per_response for s, c in costs.items() if c.cost_per_response is not None}
    chosen = cheapest_in_best_set(report, priced)
    if chosen is None:
        reasons = "; ".join(
            f"{s}: {c.reason}"
            for s, c in costs.items()
            if c.reason and any(r.source == s and r.in_best_set for r in report.configs)
        )
        raise ValueError(
            "no configuration in the 95% confidence set of the best has a known price"
            + (f" ({reasons})" if reasons else "")
        )
    return chosen
