% The issue's case: forty atoms of two million characters in one answer (40 cells, so
% max_cells never fires) once SIGABRT'd the worker. Making them now exceeds the budget of
% new-atom characters per run, before any answer exists.
% Expected: SolverResourceLimit
% Match: more than 16,000,000 characters of new atoms
% Declared: codes/1, atoms/1
% Goal: atoms(As)
codes(L) :- findall(0'a, between(1, 2000000, _), L).
atoms(As) :- codes(L), findall(A, (between(1, 40, I), C is 0'a + I, atom_codes(A, [C|L])), As).
