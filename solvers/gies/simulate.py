"""Random linear-Gaussian structural causal models with interventions, for checks and benchmarks.

The environment 0 is observational; each other environment intervenes on one to three random
variables, replacing their mechanisms by a shifted Gaussian (a do-intervention with noise).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Instance:
    """Data from a random SCM: ``data[e]`` is ``n x p``; ``targets[e]`` the intervened columns."""

    dag: np.ndarray
    weights: np.ndarray
    data: list[np.ndarray]
    targets: list[list[int]]


def random_instance(
    p: int, n_envs: int, n_per_env: int, seed: int, expected_degree: float = 2.0
) -> Instance:
    """A random DAG over ``p`` nodes (edge probability ``expected_degree / (p - 1)``), weights
    of magnitude 0.5..1.5 with random sign, unit-variance noise, and ``n_envs`` environments of
    ``n_per_env`` rows each. Same arguments give the same instance."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(p)
    prob = min(1.0, expected_degree / max(1, p - 1))
    dag = np.zeros((p, p), dtype=np.int8)
    for a in range(p):
        for b in range(a + 1, p):
            if rng.random() < prob:
                dag[order[a], order[b]] = 1
    weights = dag * rng.uniform(0.5, 1.5, size=(p, p)) * rng.choice([-1.0, 1.0], size=(p, p))
    means = rng.uniform(-1.0, 1.0, size=p)
    targets: list[list[int]] = [[]]
    for _ in range(1, n_envs):
        k = int(rng.integers(1, min(3, p) + 1))
        targets.append(sorted(int(t) for t in rng.choice(p, size=k, replace=False)))
    data = []
    for env_targets in targets:
        X = np.zeros((n_per_env, p))
        shift = rng.uniform(2.0, 4.0, size=p) * rng.choice([-1.0, 1.0], size=p)
        for j in order:
            noise = rng.standard_normal(n_per_env)
            if j in env_targets:
                X[:, j] = shift[j] + noise
            else:
                X[:, j] = means[j] + X @ weights[:, j] + noise
        data.append(X)
    return Instance(dag=dag, weights=weights, data=data, targets=targets)
