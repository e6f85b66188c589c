% The limits on the answers of a run (bridge.pl's run operation), checked before anything is
% encoded: no cyclic term, at most max_cells(N) cells, at most max_depth(N) levels (a proper
% list is one level), at most max_text(N) characters of atoms and strings. Each failure is a
% scir_error the bridge returns as data.

:- module(answer_limits, [check_answers/2]).

:- use_module(library(lists)).
:- use_module(library(option)).
:- use_module(library(terms)).

check_answers(Raw, Options) :-
    (   acyclic_term(Raw)
    ->  true
    ;   throw(scir_error(error, "an answer is a cyclic term, which cannot be returned"))
    ),
    (   option(max_cells(MaxCells), Options)
    ->  term_size(Raw, Cells),
        (   Cells =< MaxCells
        ->  true
        ;   throw(scir_error(resource,
                             "answers too large: ~D cells (limit ~D)"-[Cells, MaxCells]))
        )
    ;   true
    ),
    (   option(max_depth(MaxDepth), Options)
    ->  (   forall(member(Answer, Raw), depth_within(Answer, MaxDepth))
        ->  true
        ;   throw(scir_error(resource,
                             "an answer is nested deeper than ~D levels"-[MaxDepth]))
        )
    ;   true
     ),
    (   option(max_text(MaxText), Options)
    ->  text_within([Raw], 0, MaxText)
    ;   true
    ).

%   The characters of text in the answers (atoms, strings, functor names; every occurrence
%   counts, as every occurrence is encoded) stay within Max. Runs after the cell check, so
%   the walk is bounded.
text_within([], _, _).
text_within([T|Ts], N0, Max) :-
    (   atom(T)
    ->  atom_length(T, L), Rest = Ts
    ;   string(T)
    ->  string_length(T, L), Rest = Ts
    ;   compound(T)
    ->  compound_name_arguments(T, F, Args),
        (F == '[|]' -> L = 0 ; atom_length(F, L)),
        append(Args, Ts, Rest)
    ;   L = 0, Rest = Ts
    ),
    N is N0 + L,
    (   N > Max
    ->  throw(scir_error(resource,
                         "answers too large: more than ~D characters of text (limit ~D)"-
                         [Max, Max]))
    ;   text_within(Rest, N, Max)
    ).

%   depth as the wire form counts it: a proper list is one level, its elements below it
depth_within(T, _) :- var(T), !.
depth_within(T, _) :- atomic(T), !.
depth_within(T, D) :-
    D > 0,
    D1 is D - 1,
    (   is_list(T)
    ->  forall(member(X, T), depth_within(X, D1))
    ;   forall(arg(_, T, X), depth_within(X, D1))
    ).
