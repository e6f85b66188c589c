% upcase_atom/2 makes a whole new atom in one inference: charged to the same budget.
% Expected: SolverResourceLimit
% Match: characters of new atoms
% Declared: codes/1, spin/2, p/0
% Goal: p
codes(L) :- findall(0'a, between(1, 1000000, _), L).
spin(0, _) :- !.
spin(N, A) :- upcase_atom(A, U), downcase_atom(U, D), M is N - 1, spin(M, D).
p :- codes(L), atom_codes(A, L), spin(20, A).
