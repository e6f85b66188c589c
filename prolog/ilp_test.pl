% ILP coverage tester (solvers/ilp/tester.py): turns candidate clauses given as data terms
%     clause(Head, [Literal, ...])      variables written 0, 1, ... (integers)
% into real clauses and reports which examples they cover, each example under its own limit
% (a candidate that runs too long on an example does not cover it).
%
% Loaded into a fresh temporary module together with the problem's background knowledge
% (bk); examples are facts ilp_example(Kind, Id, Atom), Kind = pos | neg, Id = 0, 1, ...
% (added from Python, or copied from an example store module, see prolog/ilp_read.pl).
%
% One clause (ilp_test_clause): it covers an example when its head unifies with the example
% and its body succeeds; nothing is asserted. A program (ilp_test_program: several clauses,
% possibly recursive, possibly defining invented predicates) is asserted as dynamic clauses
% of its head predicates, each example atom is called under a depth limit too, and the
% clauses are retracted afterwards (also on error or timeout). An error raised while proving
% an example (e.g. an instantiation error in bk, a stack overflow) counts as not covered.
%
% Per-example limit: an inference limit (call_with_inference_limit/3, nearly free, and the
% same on every machine and under any load); the caller's overall deadline is the time limit
% of the whole call. Limit (inferences) is passed in from Python.

:- use_module(library(time)).
:- use_module(library(lists), [member/2, append/3]).  % only these: a learned program may define last/2
:- use_module(library(apply), [foldl/4, foldl/6, maplist/3]).  % (not include/3, ...)
:- dynamic ilp_example/3.
:- dynamic ilp_owned/2.

%!  ilp_declare(+Name, +Arity) is det.
%   A body predicate without clauses (absent from bk) fails instead of raising an
%   existence error.
ilp_declare(Name, Arity) :-
    functor(Head, Name, Arity),
    (   predicate_property(Head, defined)
    ->  true
    ;   dynamic(Name/Arity)
    ).

%!  ilp_own(+Name, +Arity) is det.
%   Name/Arity is a predicate the learned programs define (the head predicate or an
%   invented one): it must not be defined by bk or a library. Makes it dynamic.
ilp_own(Name, Arity) :-
    (   ilp_owned(Name, Arity)
    ->  true
    ;   functor(Head, Name, Arity),
        % current_predicate/1, unlike predicate_property/2, does not autoload: a library
        % predicate of that name (lists:last/2) must not count as defined
        (   current_predicate(Name/Arity),
            \+ ( predicate_property(Head, dynamic),
                 predicate_property(Head, number_of_clauses(0)) )
        ->  throw(scir_error(input, "the background knowledge (or a library) defines ~w/~w, \c
                                     which the learned program defines"-[Name, Arity]))
        ;   dynamic(Name/Arity),
            assertz(ilp_owned(Name, Arity))
        )
    ).

%!  ilp_copy_examples(+Store) is det.
%   Copy the ilp_example/3 facts of the example store module Store into this module.
ilp_copy_examples(Store) :-
    retractall(ilp_example(_, _, _)),
    forall(Store:ilp_example(Kind, Id, Atom), assertz(ilp_example(Kind, Id, Atom))).

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

ilp_variable(I, V, Map0, Map) :-
    (   memberchk(I-V0, Map0)
    ->  V = V0, Map = Map0
    ;   Map = [I-V|Map0]
    ).

ilp_conjunction([], true).
ilp_conjunction([L], L) :- !.
ilp_conjunction([L|Ls], (L, Rest)) :- ilp_conjunction(Ls, Rest).

		 /*******************************
		 *       PER-EXAMPLE LIMIT      *
		 *******************************/

%!  ilp_example_call(+Limit, :Goal) is semidet.
%   Goal succeeds (once) within Limit inferences; leaves no bindings behind. Running out of
%   inferences, or an error, means "not covered".
ilp_example_call(Limit, Goal) :-
    \+ \+ ( catch(call_with_inference_limit(once(Goal), Limit, Result), Ball,
                  ilp_not_covered(Ball)),
            Result \== inference_limit_exceeded ).

% Errors mean "not covered"; anything else (the caller's overall time limit, an abort)
% passes through.
ilp_not_covered(error(_, _)) :- !, fail.
ilp_not_covered(Ball) :- throw(Ball).

		 /*******************************
		 *          ONE CLAUSE          *
		 *******************************/

ilp_covers(Limit, Head, Body, Example) :-
    ilp_example_call(Limit, ( Head = Example, Body )).

%!  ilp_test_clause(+Data, +Limit, +StopAtNeg, -Neg, -Pos, -NegAll) is det.
%   StopAtNeg == true: Neg is the id of the first negative example the clause covers, or
%   none; Pos lists the ids of the positives it covers: all of them when Neg == none,
%   otherwise the first one only (enough to tell whether it covers any); NegAll is [] or
%   [Neg]. StopAtNeg == false: Pos and NegAll list every covered positive and negative.
ilp_test_clause(Data, Limit, StopAtNeg, Neg, Pos, NegAll) :-
    ilp_clause(Data, Head, Body),
    ilp_coverage(StopAtNeg, ilp_covers(Limit, Head, Body), Neg, Pos, NegAll).

%   ilp_coverage(+StopAtNeg, :Covers, -Neg, -Pos, -NegAll): call(Covers, Example).
ilp_coverage(true, Covers, Neg, Pos, NegAll) :-
    (   ilp_example(neg, Id, Example), call(Covers, Example)
    ->  Neg = Id, NegAll = [Id]
    ;   Neg = none, NegAll = []
    ),
    (   Neg == none
    ->  findall(P, ( ilp_example(pos, P, E), call(Covers, E) ), Pos)
    ;   ilp_example(pos, P, E), call(Covers, E)
    ->  Pos = [P]
    ;   Pos = []
    ).
ilp_coverage(pos, Covers, Neg, Pos, NegAll) :-       % the first negative, every positive
    (   ilp_example(neg, Id, Example), call(Covers, Example)
    ->  Neg = Id, NegAll = [Id]
    ;   Neg = none, NegAll = []
    ),
    findall(P, ( ilp_example(pos, P, E), call(Covers, E) ), Pos).
ilp_coverage(false, Covers, Neg, Pos, NegAll) :-
    findall(P, ( ilp_example(pos, P, E), call(Covers, E) ), Pos),
    findall(N, ( ilp_example(neg, N, E), call(Covers, E) ), NegAll),
    (   NegAll = [Neg|_]
    ->  true
    ;   Neg = none
    ).

		 /*******************************
		 *           PROGRAMS           *
		 *******************************/

%!  ilp_test_program(+Datas, +Limit, +Depth, +StopAtNeg, -Neg, -Pos, -NegAll) is det.
%   As ilp_test_clause/6 for the program Datas (clause data terms, in the order to assert
%   them); an example is covered when its atom succeeds with the program asserted, within
%   Limit inferences and a recursion depth of Depth.
ilp_test_program(Datas, Limit, Depth, StopAtNeg, Neg, Pos, NegAll) :-
    maplist(ilp_clause_pair, Datas, Clauses),
    findall(Name/Arity, ( member(H-_, Clauses), functor(H, Name, Arity) ), Preds0),
    sort(Preds0, Preds),
    forall(member(Name/Arity, Preds), ilp_own(Name, Arity)),
    setup_call_cleanup(
        forall(member(H-B, Clauses), assertz((H :- B))),
        ilp_coverage(StopAtNeg, ilp_proves(Limit, Depth), Neg, Pos, NegAll),
        forall(member(Name/Arity, Preds), ( functor(G, Name, Arity), retractall(G) ))).

ilp_clause_pair(Data, Head-Body) :- ilp_clause(Data, Head, Body).

ilp_proves(Limit, Depth, Example) :-
    ilp_example_call(Limit, ( call_with_depth_limit(Example, Depth, Reached),
                              integer(Reached) )).

		 /*******************************
		 *       SATISFIABLE BODY       *
		 *******************************/

%!  ilp_body_sat(+Literals, +Limit) is semidet.
%   The conjunction Literals (data literals over integer variables, all free) has a solution
%   in the background knowledge, or cannot be shown not to have one within Limit
%   inferences (deterministic, unlike a time limit); running out of inferences or an error
%   (e.g. an unbound input) counts as satisfiable.
ilp_body_sat(Literals, Limit) :-
    foldl(ilp_literal, Literals, Goals, [], _),
    ilp_conjunction(Goals, Body),
    % succeeds on a solution ('!'), on running out of inferences and on an error; fails
    % when the conjunction fails within the limit
    catch(call_with_inference_limit(\+ \+ once(Body), Limit, _), _, true).


		 /*******************************
		 *       MANY CLAUSES AT ONCE   *
		 *******************************/

%!  ilp_test_clauses(+Datas, +Limit, -Results) is det.
%   ilp_test_clause/6 for each clause of Datas in one call, stopping at the first negative
%   but listing every positive covered (StopAtNeg = pos): Results lists r(Neg, Pos) in the
%   same order.
ilp_test_clauses(Datas, Limit, Results) :-
    maplist(ilp_test_one(Limit), Datas, Results).

ilp_test_one(Limit, Data, r(Neg, Pos)) :-
    ilp_test_clause(Data, Limit, pos, Neg, Pos, _).

%!  ilp_unsat_cores(+Bodies, +Limit, -Cores) is det.
%   For each body (a list of data literals): sat when ilp_body_sat/2 holds, otherwise a
%   minimal unsatisfiable sub-list (each literal dropped in turn, kept when the rest is
%   satisfiable), in the body's order.
ilp_unsat_cores(Bodies, Limit, Cores) :-
    maplist(ilp_unsat_core(Limit), Bodies, Cores).

ilp_unsat_core(Limit, Literals, Core) :-
    (   ilp_body_sat(Literals, Limit)
    ->  Core = sat
    ;   ilp_shrink(Literals, [], Limit, Core)
    ).

ilp_shrink([], Kept, _, Kept).
ilp_shrink([L|Ls], Kept, Limit, Core) :-
    append(Kept, Ls, Rest),
    (   Rest \== [],
        \+ ilp_body_sat(Rest, Limit)
    ->  ilp_shrink(Ls, Kept, Limit, Core)
    ;   append(Kept, [L], Kept1),
        ilp_shrink(Ls, Kept1, Limit, Core)
    ).

		 /*******************************
		 *   CORES COVERING NO POSITIVE *
		 *******************************/

%!  ilp_pos_cores(+Datas, +Limit, -Cores) is det.
%   For each clause data term clause(Head, Body) that covers no positive example: a part
%   of Body (in Body's order; each literal dropped in turn, dropped for good when the
%   clause Head :- Rest still surely covers no positive) such that Head :- Core covers no
%   positive either. Every clause containing Head and Core then covers no positive (it
%   covers a subset of what Head :- Core covers). "Surely": a positive on which the part
%   raises an error or runs out of Limit inferences counts as covered, so an input left
%   unbound by a dropped literal never makes a part look useless.
ilp_pos_cores(Datas, Limit, Cores) :-
    maplist(ilp_pos_core(Limit), Datas, Cores).

ilp_pos_core(Limit, clause(Head, Body), Core) :-
    ilp_pos_shrink(Body, [], Head, Limit, Core).

ilp_pos_shrink([], Kept, _, _, Kept).
ilp_pos_shrink([L|Ls], Kept, Head, Limit, Core) :-
    append(Kept, Ls, Rest),
    (   Rest \== [],
        \+ ilp_may_cover_pos(Limit, clause(Head, Rest))
    ->  ilp_pos_shrink(Ls, Kept, Head, Limit, Core)
    ;   append(Kept, [L], Kept1),
        ilp_pos_shrink(Ls, Kept1, Head, Limit, Core)
    ).

%   ilp_may_cover_pos(+Limit, +Data): the clause covers some positive, or raises an error
%   or runs out of inferences on one.
ilp_may_cover_pos(Limit, Data) :-
    ilp_clause(Data, Head, Body),
    ilp_example(pos, _, Example),
    \+ \+ catch(call_with_inference_limit(once((Head = Example, Body)), Limit, _),
                error(_, _), true),
    !.
