% What an error message may show of a term: bounded_copy/3 cuts a term at a depth, at a
% number of arguments or list elements per level, and cuts long atoms and strings, so that
% printing it can take neither the C stack (a term a million levels deep SIGSEGVs SWI-Prolog's
% printer) nor much memory. Used by bridge.pl when it formats an error.

:- module(bounded_terms, [bounded_copy/3]).

%!  bounded_copy(+Term, +Depth, -Copy) is det.
%   Copy of Term cut at Depth levels and at Depth arguments or list elements per level
%   (the rest becomes '...'), long atoms and strings cut too: what an error message shows
%   of a term. Printing the original could take the C stack (a term a million levels deep
%   SIGSEGVs the printer) or memory.
bounded_copy(T, _, T) :- var(T), !.
bounded_copy(T, _, C) :- atom(T), !, bounded_text(T, C0), (C0 == T -> C = T ; atom_string(C, C0)).
bounded_copy(T, _, C) :- string(T), !, bounded_text(T, C).
bounded_copy(T, _, T) :- atomic(T), !.
bounded_copy(_, 0, '...') :- !.
bounded_copy(T, D, C) :-
    D1 is D - 1,
    (   T = [_|_]
    ->  bounded_list(T, D, D1, C)
    ;   compound_name_arguments(T, Name, Args),
        bounded_args(Args, D, D1, Cs),
        compound_name_arguments(C, Name, Cs)
    ).

bounded_list(L, _, _, L) :- var(L), !.
bounded_list([], _, _, []) :- !.
bounded_list(_, 0, _, ['...']) :- !.
bounded_list([X|Xs], N, D, [C|Cs]) :- !,
    bounded_copy(X, D, C),
    N1 is N - 1,
    bounded_list(Xs, N1, D, Cs).
bounded_list(T, _, D, C) :- bounded_copy(T, D, C).

bounded_args([], _, _, []).
bounded_args([X|Xs], N, D, Cs) :-
    (   N =:= 0
    ->  Cs = ['...']
    ;   Cs = [C|Cs1],
        bounded_copy(X, D, C),
        N1 is N - 1,
        bounded_args(Xs, N1, D, Cs1)
    ).

bounded_text(T, S) :-
    (   atom_length(T, Len), Len > 2000
    ->  sub_string(T, 0, 2000, _, S0),
        string_concat(S0, "...", S)
    ;   S = T
    ).
