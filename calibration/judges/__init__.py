"""MLLM judges over a project: the judges file, prompts, adapters, the call cache (owner of the
`judge_calls` table), the pipeline and the runner. May import `annotation` and `calibration.scoring`."""
