% Seven atoms of two million characters in one answer (7 cells: max_cells never fires;
% 14M characters, within the budget of new atoms): refused by the answer text limit before
% anything is encoded (forty of them once SIGABRT'd the worker while encoding).
% Expected: SolverResourceLimit
% Match: more than 4,000,000 characters of text
% Declared: codes/1, atoms/1
% Goal: atoms(As)
codes(L) :- findall(0'a, between(1, 2000000, _), L).
atoms(As) :- codes(L), findall(A, (between(1, 7, I), C is 0'a + I, atom_codes(A, [C|L])), As).
