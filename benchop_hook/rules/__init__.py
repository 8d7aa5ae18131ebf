"""bench-op's decision rules: the registry (`registry`), the questions (`facts`), the verdicts (`verdicts`),
the rules by family (`drop`, `fill`, `pin`), and the one place that orders them (`decide`)."""
