"""The ``sr-agent`` architecture (SR-Scientist): a ReAct loop with a data analyzer and an
equation evaluator, an experience buffer, a tightening precision goal, and trajectories with a
log-linear reward. See docs/sr_agent.md."""
