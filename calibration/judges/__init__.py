"""MLLM judges over a project: prompts, adapters, the call cache, and the runner.

The entry points others call:
- `load_judges(path)` / `parse_configuration("V+D+E", judges)` (config),
- `plan_run(...)` (plan), `run_configurations(...)`, `assemble_records(...)` (runner).
"""
from calibration.judges.config import Configuration, JudgeConfig, load_judges, parse_configuration
from calibration.judges.plan import RunPlan, plan_run
from calibration.judges.runner import RunProgress, RunReport, assemble_records, run_configurations

__all__ = ["Configuration", "JudgeConfig", "RunPlan", "RunProgress", "RunReport", "assemble_records",
           "load_judges", "parse_configuration", "plan_run", "run_configurations"]
