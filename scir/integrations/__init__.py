"""Bridges to other evaluation frameworks: :mod:`scir.integrations.inspect` exposes every
registered track as an inspect_ai task (the ``inspect`` extra; see docs/integrations.md).
Nothing here is imported by the rest of the toolkit."""
