"""The symbolic-regression baselines an equation task can be run with, by name: the
architectures that fit a task's train split with no model (:mod:`solvers.symreg` holds the
regressors under the same names; ``tests/test_symreg.py`` checks the two lists agree). Here,
not in :mod:`scir.pipelines`, because the equation track declares which architectures it
takes and tracks sit below the pipelines; not in the equation package, whose import loads
sympy."""

SYMREG_ARCHS = ("pyoperon", "gplearn", "pysr")
