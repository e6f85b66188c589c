% A lone surrogate written as an escape: once a UnicodeEncodeError from Sandbox.run, now a
% syntax error at its position.
% Expected: SolverInputError
% Match: line 7, column 3: .*lone surrogate
% Declared: p/1
% Goal: p(X)
p('\xD800\').
