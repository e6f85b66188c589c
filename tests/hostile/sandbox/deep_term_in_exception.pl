% A term a million levels deep inside an exception (atom_length/2's type error): printing it
% once SIGSEGV'd the worker; the message now shows a bounded copy.
% Expected: SolverError
% Match: Type error: .*s\(s\(s\(.*\.\.\.
% Declared: deep/2, p/0
% Goal: p
deep(0, z) :- !.
deep(N, s(X)) :- M is N - 1, deep(M, X).
p :- deep(1000000, T), atom_length(T, _).
