% Sixty wide-character atoms of two million characters, made from one shared list at one
% inference each and never returned: once SIGABRT (the atom table's malloc failed); now the
% budget of new-atom characters per run stops it.
% Expected: SolverResourceLimit
% Match: more than 16,000,000 characters of new atoms
% Declared: codes/1, count/1
% Goal: count(N)
codes(L) :- findall(0'a, between(1, 2000000, _), L).
count(N) :- codes(L), findall(A, (between(1, 60, I), C is 0x10000 + I, atom_codes(A, [C|L])), As), length(As, N).
