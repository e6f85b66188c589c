% ILP coverage tester (solvers/ilp/tester.py): turns candidate clauses given as data terms
%     clause(Head, [Literal, ...])      variables written v(0), v(1), ...
% into real clauses and reports which examples they cover, each example under its own time
% limit (a candidate that runs too long on an example does not cover it).
%
% Loaded into a fresh temporary module together with the problem's background knowledge
% (bk); examples arrive as facts ilp_example(Kind, Id, Atom), Kind = pos | neg, Id = 0, 1, ...
% A clause covers an example when its head unifies with the example and its body succeeds.
% An error raised by bk code (e.g. an instantiation error) counts as not covered.

:- use_module(library(time)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- dynamic ilp_example/3.

%!  ilp_declare(+Name, +Arity) is det.
%   A body predicate without clauses (absent from bk) fails instead of raising an
%   existence error.
ilp_declare(Name, Arity) :-
    functor(Head, Name, Arity),
    (   predicate_property(Head, defined)
    ->  true
    ;   dynamic(Name/Arity)
    ).

%!  ilp_clause(+Data, -Head, -Body) is det.
%   The real clause (Head :- Body) written by Data = clause(Head0, Literals0).
ilp_clause(clause(Head0, Body0), Head, Body) :-
    ilp_literal(Head0, Head, [], Map),
    foldl(ilp_literal, Body0, Literals, Map, _),
    ilp_conjunction(Literals, Body).

ilp_literal(Literal0, Literal, Map0, Map) :-
    Literal0 =.. [Name|Args0],
    foldl(ilp_variable, Args0, Args, Map0, Map),
    Literal =.. [Name|Args].

ilp_variable(v(I), V, Map0, Map) :-
    (   memberchk(I-V0, Map0)
    ->  V = V0, Map = Map0
    ;   Map = [I-V|Map0]
    ).

ilp_conjunction([], true).
ilp_conjunction([L], L) :- !.
ilp_conjunction([L|Ls], (L, Rest)) :- ilp_conjunction(Ls, Rest).

%!  ilp_covers(+Head, +Body, +Example, +Limit) is semidet.
%   The clause covers Example within Limit seconds; leaves no bindings behind.
ilp_covers(Head, Body, Example, Limit) :-
    \+ \+ ( Head = Example,
            catch(ilp_once_within(Limit, Body), Ball, ilp_not_covered(Ball)) ).

ilp_once_within(Limit, Goal) :-
    setup_call_cleanup(alarm(Limit, throw(ilp_example_timeout), Id, [install(false)]),
                       ( install_alarm(Id), once(Goal) ),
                       remove_alarm(Id)).

% Our own per-example limit and bk errors mean "not covered"; anything else (the caller's
% overall time limit, an abort) passes through.
ilp_not_covered(ilp_example_timeout) :- !, fail.
ilp_not_covered(error(_, _)) :- !, fail.
ilp_not_covered(Ball) :- throw(Ball).

%!  ilp_test_clause(+Data, +Limit, -Neg, -Pos) is det.
%   Neg is the id of the first negative example the clause covers, or none. Pos lists the
%   ids of the positives it covers: all of them when Neg == none, otherwise the first one
%   only (enough to tell whether it covers any).
ilp_test_clause(Data, Limit, Neg, Pos) :-
    ilp_clause(Data, Head, Body),
    (   ilp_example(neg, Id, Example), ilp_covers(Head, Body, Example, Limit)
    ->  Neg = Id
    ;   Neg = none
    ),
    (   Neg == none
    ->  findall(P, ( ilp_example(pos, P, E), ilp_covers(Head, Body, E, Limit) ), Pos)
    ;   ilp_example(pos, P, E), ilp_covers(Head, Body, E, Limit)
    ->  Pos = [P]
    ;   Pos = []
    ).

%!  ilp_score(+Datas, +Limit, -Pos, -Neg) is det.
%   The ids of the positive and negative examples covered by the program (a list of
%   clause data terms): an example is covered when some clause covers it.
ilp_score(Datas, Limit, Pos, Neg) :-
    maplist(ilp_clause_pair, Datas, Clauses),
    findall(P, ( ilp_example(pos, P, E), ilp_program_covers(Clauses, E, Limit) ), Pos),
    findall(N, ( ilp_example(neg, N, E), ilp_program_covers(Clauses, E, Limit) ), Neg).

ilp_clause_pair(Data, Head-Body) :- ilp_clause(Data, Head, Body).

ilp_program_covers(Clauses, Example, Limit) :-
    member(Head-Body, Clauses),
    ilp_covers(Head, Body, Example, Limit),
    !.
