"""GIES (Hauser & Buehlmann 2012): greedy search for the interventional essential graph of
linear-Gaussian data from several environments, with the interventional BIC score.

Reproduces ``gies.fit_bic`` of the PyPI package ``gies`` 0.0.3 (same graphs, same scores).

    >>> from solvers.gies import fit
    >>> result = fit([obs_array, env1_array], [[], [3]])        # doctest: +SKIP
    >>> result.directed_edges(), result.undirected_edges(), result.score   # doctest: +SKIP

Also: :func:`fit_frame` (a table with an environment column) and :func:`fit_ges` (GES on
pooled observational data through causal-learn, behind the same result type).
"""

from solvers.gies.api import GiesResult, fit, fit_frame, split_frame
from solvers.gies.ges import fit_ges
from solvers.gies.score import GaussIntScore

__all__ = ["GaussIntScore", "GiesResult", "fit", "fit_frame", "fit_ges", "split_frame"]
