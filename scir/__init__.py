"""SciR toolkit: controllable, verifiable scientific-reasoning benchmarks."""

__version__ = "0.1.0"
