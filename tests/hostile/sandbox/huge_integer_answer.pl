% An answer of 5,002 digits (10^5001, computed by the program): Prolog's integers are
% unbounded, Python's int() refuses more than 4,300 digits, and Sandbox.run let that untyped
% ValueError escape. Now a typed limit.
% Expected: SolverResourceLimit
% Match: the Prolog answer holds an integer of more than 4300 digits
% Declared: p/1
% Goal: p(X)
p(X) :- X is 10^5001.
