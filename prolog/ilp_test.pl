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
% and its body succeeds; it is asserted as ilp_candidate/1 for the call only. A program (ilp_test_program: several clauses,
% possibly recursive, possibly defining invented predicates) is asserted as dynamic clauses
% of its head predicates, each example atom is called under a depth limit too, and the
% clauses are retracted afterwards (also on error or timeout). An error raised while proving
% an example (e.g. an instantiation error in bk, a stack overflow) counts as not covered.
%
% Per-example limit: an inference limit (call_with_inference_limit/3, nearly free, and the
% same on every machine and under any load); the caller's overall deadline is the time limit
% of the whole call. Limit (inferences) is passed in from Python.

:- use_module(library(time)).
:- use_module(library(lists), [member/2, append/3, reverse/2]).  % only these: a learned program may define last/2
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
    retractall(ilp_chunked),
    forall(Store:ilp_example(Kind, Id, Atom), assertz(ilp_example(Kind, Id, Atom))).

%!  ilp_data(+Text, -Data) is det.
%   Data read from Text, the Prolog text of clause data terms (or lists of them) that
%   solvers/ilp/clauses.py writes (clause_text/2 there): one string crosses from Python many
%   times faster than the same term built cell by cell. Text is the tester's own, never
%   user text; a syntax error is an error.
ilp_data(Text, Data) :-
    term_string(Data, Text, [syntax_errors(error), variable_names(_)]).

%!  ilp_ids_text(+Ids, -Text) is det.
%   Text: the example ids Ids separated by spaces, as a string (one string crosses to
%   Python many times faster than a list of integers).
ilp_ids_text(Ids, Text) :-
    ilp_joined_text(Ids, ' ', Text).

%!  ilp_joined_text(+Items, +Separator, -Text) is det.
%   The atomic Items joined by Separator, as a string.
ilp_joined_text(Items, Separator, Text) :-
    atomic_list_concat(Items, Separator, Atom),
    atom_string(Atom, Text).

%!  ilp_clause(+Data, -Head, -Body) is det.
%   The real clause (Head :- Body) written by Data = clause(Head0, Literals0).
ilp_clause(Data, Head, Body) :-
    ilp_clause_literals(Data, Head, Literals),
    ilp_conjunction(Literals, Body).

%   ilp_clause_literals(+Data, -Head, -Literals): the head and the body literals of Data.
ilp_clause_literals(clause(Head0, Body0), Head, Literals) :-
    ilp_literal(Head0, Head, [], Map),
    foldl(ilp_literal, Body0, Literals, Map, _).

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

%!  ilp_guarded_body(+Head, +Literals, -Body) is det.
%   The body of a clause called with its head bound to a ground example: a body
%   literal whose new variables (not in the head, not bound by an earlier literal) occur
%   in no later literal is called once (once/1): its other solutions bind nothing that is
%   used again, so retrying it could only repeat the failure of the literals after it.
%   Whether the example is covered does not change; its cost can fall from a product to a
%   sum (imdb3's f(A,B) :- gender(A,D), gender(C,D), gender(E,D), genre(B,F): 20 s for
%   its 117,726 negatives before, the cost of three lookups each now).
ilp_guarded_body(Head, Literals, Body) :-
    term_variables(Head, Bound),
    ilp_guard(Literals, Bound, Goals),
    ilp_conjunction(Goals, Body).

ilp_guard([], _, []).
ilp_guard([L|Ls], Bound, [G|Gs]) :-
    term_variables(L, Vars),
    ilp_new_vars(Vars, Bound, New),
    (   term_variables(Ls, Later),
        \+ ( member(V, New), member(W, Later), V == W )
    ->  G = once(L)
    ;   G = L
    ),
    append(New, Bound, Bound1),
    ilp_guard(Ls, Bound1, Gs).

ilp_new_vars([], _, []).
ilp_new_vars([V|Vs], Bound, New) :-
    (   member(W, Bound), W == V
    ->  New = New1
    ;   New = [V|New1]
    ),
    ilp_new_vars(Vs, Bound, New1).

		 /*******************************
		 *       PER-EXAMPLE LIMIT      *
		 *******************************/

%!  ilp_example_call(+Limit, :Goal) is semidet.
%   Goal succeeds (once) within Limit inferences; leaves no bindings behind. Running out of
%   inferences, or an error, means "not covered".
ilp_example_call(Limit, Goal) :-
    \+ \+ ( catch(ilp_limited(once(Goal), Limit, Result), Ball,
                  ilp_not_covered(Ball)),
            Result \== inference_limit_exceeded ).

% Errors mean "not covered", and so does the ball inference_limit_exceeded when it reaches
% here instead of becoming the Result of call_with_inference_limit/3: that happens when an
% inner call_with_inference_limit/3 (in bk, or one of ours left armed when the caller's time
% limit struck between '$inference_limit'/2 and its catch/3) rethrows an exhausted limit it
% takes for an outer one. Popper's tester counts an example that runs out of its budget as
% not covered. Anything else (the caller's overall time limit, an abort) passes through.
ilp_not_covered(error(_, _)) :- !, fail.
ilp_not_covered(inference_limit_exceeded) :- !, fail.
ilp_not_covered(Ball) :- throw(Ball).

%!  ilp_limited(:Goal, +Limit, -Result) is semidet.
%   call_with_inference_limit(Goal, Limit, Result) with signals deferred (sig_atomic/1): the
%   caller's time limit (call_with_time_limit/2, a signal) striking inside the limit's own
%   bookkeeping (between arming the limit and entering its catch/3, or while restoring it)
%   leaves the limit armed for the rest of the process, and a later, unrelated goal then
%   dies of inference_limit_exceeded (SWI-Prolog 9.0.4; on iggp-gt-chicken-goal the re-check
%   after a time-out did). The deferral is bounded: Goal runs at most Limit inferences, and
%   the time limit strikes right after it.
ilp_limited(Goal, Limit, Result) :-
    sig_atomic(call_with_inference_limit(Goal, Limit, Result)).

%   ilp_limit_ball(+Ball): Ball is one the chunked run and the "may cover" test treat as
%   running out of the limit (an error, or the limit's own ball, see ilp_not_covered/1).
ilp_limit_ball(error(_, _)).
ilp_limit_ball(inference_limit_exceeded).

%   Examples are run in chunks of ilp_chunk_size/1 (in ilp_example/3 order): a chunk is
%   first run as a whole under ONE inference limit of Limit. When it finishes within it,
%   every example in it finished within Limit too, so the outcome is exactly that of the
%   per-example limit, without its cost (call_with_inference_limit/3 per example doubles
%   the cost of a cheap clause); otherwise (or when an example raises an error) the
%   chunk's examples run again, each under its own limit (at most one chunk's limit of
%   inferences wasted per chunk).
:- dynamic ilp_chunk/3, ilp_chunked/0.
ilp_chunk_size(32).

ilp_chunks_ready :-
    (   ilp_chunked
    ->  true
    ;   retractall(ilp_chunk(_, _, _)),
        ilp_chunk_size(Size),
        forall(member(Kind, [pos, neg]),
               ( findall(Id-Atom, ilp_example(Kind, Id, Atom), All),
                 ilp_assert_chunks(All, Kind, 0, Size) )),
        retractall(ilp_examples_ground),
        (   forall(ilp_example(_, _, Atom), ground(Atom))
        ->  assertz(ilp_examples_ground)
        ;   true
        ),
        retractall(ilp_example_count(_)),
        predicate_property(ilp_example(_, _, _), number_of_clauses(Count)),
        assertz(ilp_example_count(Count)),
        assertz(ilp_chunked)
    ).

ilp_assert_chunks([], _, _, _) :- !.
ilp_assert_chunks(All, Kind, No, Size) :-
    ilp_take(Size, All, Chunk, Rest),
    assertz(ilp_chunk(Kind, No, Chunk)),
    No1 is No + 1,
    ilp_assert_chunks(Rest, Kind, No1, Size).

ilp_take(0, Xs, [], Xs) :- !.
ilp_take(_, [], [], []) :- !.
ilp_take(N, [X|Xs], [X|Ys], Rest) :- N1 is N - 1, ilp_take(N1, Xs, Ys, Rest).

%   ilp_covered(+Kind, :Goal, +Limit, -Ids): the ids of the Kind examples E for which
%   call(Goal, E) succeeds within Limit inferences (an error: not covered), in order;
%   Limit = each(L): every example under its own limit L, no chunk run first.
ilp_covered(Kind, Goal, each(Limit), Ids) :- !,
    ilp_chunks_ready,
    findall(Covered, ( ilp_chunk(Kind, _, Chunk),
                       ilp_chunk_covered(Chunk, Goal, each(Limit), Covered) ), Lists),
    foldl(ilp_append_to, Lists, Ids, []).
ilp_covered(Kind, Goal, Limit, Ids) :-
    ilp_chunks_ready,
    ilp_groups_covered(Kind, 0, 1, Goal, Limit, all, Ids).

ilp_append_to(List, Front, Tail) :- append(List, Tail, Front).

%   ilp_first_covered(+Kind, :Goal, +Limit, -Id): the first such id; fails if none.
ilp_first_covered(Kind, Goal, each(Limit), Id) :- !,
    ilp_chunks_ready,
    ilp_chunk(Kind, _, Chunk),
    ilp_chunk_covered(Chunk, Goal, each(Limit), [Id|_]),
    !.
ilp_first_covered(Kind, Goal, Limit, Id) :-
    ilp_chunks_ready,
    ilp_groups_covered(Kind, 0, 1, Goal, Limit, first, [Id|_]).

%   Consecutive chunks are run in groups under ONE limit, as a chunk is: a group of Len
%   chunks that finishes within it has every example within it, so the outcome is the
%   same as chunk by chunk; the groups double (1, 2, 4, ... up to ilp_group_max/1 chunks)
%   while they finish within the limit, saving the limit's set-up per chunk on cheap
%   examples (a fifth of the test time of iggp-gt-chicken-goal's clauses, 101,000
%   examples); a group that runs past it is run again chunk by chunk and the groups start
%   again from one chunk, so that the work wasted is at most the group's. Stop = first:
%   stop at the first group covering an example (its ids are all returned).
ilp_group_max(16).

ilp_groups_covered(Kind, No, Len, Goal, Limit, Stop, Ids) :-
    (   ilp_group(Kind, No, Len, Chunks, Next)
    ->  (   ilp_group_covered(Chunks, Goal, Limit, Ids0)
        ->  ilp_group_max(Max),
            Len1 is min(Max, 2 * Len)
        ;   findall(Covered, ( member(Chunk, Chunks),
                               ilp_chunk_covered(Chunk, Goal, Limit, Covered) ), Lists),
            foldl(ilp_append_to, Lists, Ids0, []),
            Len1 = 1
        ),
        (   Stop == first, Ids0 \== []
        ->  Ids = Ids0
        ;   append(Ids0, Rest, Ids),
            ilp_groups_covered(Kind, Next, Len1, Goal, Limit, Stop, Rest)
        )
    ;   Ids = []
    ).

%   ilp_group(+Kind, +No, +Len, -Chunks, -Next): the chunks No .. No+Len-1 that exist (at
%   least one, else fails) and the number of the chunk after them.
ilp_group(Kind, No, Len, [Chunk|Chunks], Next) :-
    ilp_chunk(Kind, No, Chunk),
    !,
    No1 is No + 1,
    Len1 is Len - 1,
    (   Len1 > 0
    ->  ilp_group_rest(Kind, No1, Len1, Chunks, Next)
    ;   Chunks = [], Next = No1
    ).

ilp_group_rest(Kind, No, Len, Chunks, Next) :-
    (   ilp_group(Kind, No, Len, Chunks0, Next0)
    ->  Chunks = Chunks0, Next = Next0
    ;   Chunks = [], Next = No
    ).

ilp_group_covered(Chunks, Goal, Limit, Ids) :-
    catch(ilp_limited(findall(Id, ( member(Chunk, Chunks), member(Id-Example, Chunk),
                                    \+ \+ call(Goal, Example) ), Ids0),
                      Limit, Result),
          Ball, ( ilp_limit_ball(Ball) -> fail ; throw(Ball) )),
    Result \== inference_limit_exceeded,
    Ids = Ids0.

ilp_chunk_covered(Chunk, Goal, each(Limit), Ids) :- !,
    ilp_each_covered(Chunk, Goal, Limit, Ids).
ilp_chunk_covered(Chunk, Goal, Limit, Ids) :-
    (   catch(ilp_limited(
                  findall(Id, ( member(Id-Example, Chunk), \+ \+ call(Goal, Example) ), Ids0),
                  Limit, Result),
              Ball, ( ilp_limit_ball(Ball) -> fail ; throw(Ball) )),
                                          % each example on its own, below
        Result \== inference_limit_exceeded
    ->  Ids = Ids0
    ;   ilp_each_covered(Chunk, Goal, Limit, Ids)
    ).

ilp_each_covered(Chunk, Goal, Limit, Ids) :-
    findall(Id, ( member(Id-Example, Chunk),
                  ilp_example_call(Limit, call(Goal, Example)) ), Ids).


		 /*******************************
		 *          ONE CLAUSE          *
		 *******************************/

%   The clause is asserted (compiled once) as ilp_candidate(Head) :- Body for the call and
%   erased afterwards: calling a conjunction built at run time would compile it again for
%   every example (several times slower on problems with many examples).
:- dynamic ilp_candidate/1.

%!  ilp_test_clause(+Data, +Limit, +StopAtNeg, -Neg, -Pos, -NegAll) is det.
%   StopAtNeg == true: Neg is the id of the first negative example the clause covers, or
%   none; Pos lists the ids of the positives it covers: all of them when Neg == none,
%   otherwise the first one only (enough to tell whether it covers any); NegAll is [] or
%   [Neg]. StopAtNeg == false: Pos and NegAll list every covered positive and negative.
ilp_test_clause(Data, Limit, StopAtNeg, Neg, Pos, NegAll) :-
    ilp_clause_literals(Data, Head, Literals),
    ilp_conjunction(Literals, Body),
    (   ilp_join(Head, Body, Limit, PosAll, NegsAll)
    ->  ilp_join_outcome(StopAtNeg, PosAll, NegsAll, Neg, Pos, NegAll)
    ;   ilp_chunks_ready,
        (   ilp_examples_ground,
            \+ ilp_no_guard
        ->  ilp_guarded_body(Head, Literals, Tested)
        ;   Tested = Body
        ),
        setup_call_cleanup(
            assertz((ilp_candidate(Head) :- Tested), Ref),
            ilp_coverage(StopAtNeg, ilp_candidate, Limit, Neg, Pos, NegAll),
            erase(Ref))
    ).

%   The join: with many examples, a clause whose body calls only predicates defined by
%   facts is run once, its head unbound, and its solutions looked up among the examples
%   (ilp_example/3 is indexed on the atom, SWI-Prolog's deep index), instead of calling it
%   once per example (imdb3: 121,800 examples, 1,331 facts). Over facts a conjunction has
%   the same solutions whichever of its variables are bound when it runs, so an example is
%   covered exactly when its atom is among the solutions, as calling it would find; and
%   calling it with the head bound explores part of the same search, so it would finish
%   within the limit too. The join is given up (and the examples called one by one) when
%   the body is not over facts only, when a head variable does not occur in the body, when
%   the enumeration runs past the smaller of Limit and ilp_join_per_example/1 inferences per
%   example, when it has more than one solution per ilp_join_solutions/1 examples (a
%   clause whose head variables are not linked, a cross product: looking its solutions
%   up costs more than calling it per example), or when a solution is not ground.
%   Examples: at least ilp_join_min/1.
:- dynamic ilp_example_count/1, ilp_join_min/1, ilp_join_solutions/1, ilp_examples_ground/0,
           ilp_no_guard/0.
ilp_join_min(1000).
ilp_join_solutions(10).

%!  ilp_set_guard(+Bool) is det.
%   Whether single clauses are tested guarded (ilp_guarded_body/3; default true; tests
%   compare the two).
ilp_set_guard(Bool) :-
    retractall(ilp_no_guard),
    (   Bool == false
    ->  assertz(ilp_no_guard)
    ;   true
    ).

%!  ilp_set_join(+Min) is det.
%   The join is tried with at least Min examples; Min = 0 (tests comparing it with calling
%   the clause per example) also lifts the cap on solutions, a huge Min turns it off. The
%   global flag ilp_joins counts the clauses tested by a join.
ilp_set_join(Min) :-
    retractall(ilp_join_min(_)),
    assertz(ilp_join_min(Min)),
    (   Min =:= 0
    ->  retractall(ilp_join_solutions(_)),
        assertz(ilp_join_solutions(1))
    ;   true
    ).
ilp_join_per_example(20).

ilp_join(Head, Body, Limit, Pos, Negs) :-
    ilp_chunks_ready,
    ilp_example_count(N),
    ilp_join_min(Min),
    N >= Min,
    ilp_facts_only(Body),
    term_variables(Head, HeadVars),
    term_variables(Body, BodyVars),
    forall(member(V, HeadVars), ( member(W, BodyVars), W == V )),
    ilp_join_worthwhile,
    ilp_join_count(tries),
    ilp_join_per_example(PerExample),
    Budget is min(Limit, PerExample * N),
    ilp_join_solutions(MaxPart),
    Max is max(1, N // MaxPart),
    catch(ilp_limited(once(findnsols(Max, Head, Body, Solutions0)), Budget, Result), Ball,
          ( ilp_limit_ball(Ball) -> fail ; throw(Ball) )),
    Result \== inference_limit_exceeded,
    length(Solutions0, Count),
    Count < Max,
    sort(Solutions0, Solutions),
    ground(Solutions),
    findall(Kind-Id, ( member(Atom, Solutions), ilp_example(Kind, Id, Atom) ), Found),
    findall(Id, member(pos-Id, Found), Pos0),
    findall(Id, member(neg-Id, Found), Negs0),
    sort(Pos0, Pos),
    sort(Negs0, Negs),
    ilp_join_count(wins),
    flag(ilp_joins, Joins, Joins + 1).

%   The join is tried until 32 tries have been made with fewer than one in 4 answering
%   (trains1: 53 of some 1,500 clauses, each failed try a wasted enumeration); the counts
%   are kept per module (per problem), in inferences-determined order, so deterministic.
:- dynamic ilp_join_stats/2.
ilp_join_stats(0, 0).

ilp_join_worthwhile :-
    ilp_join_stats(Tries, Wins),
    (   Tries < 32
    ->  true
    ;   Wins * 4 >= Tries
    ).

ilp_join_count(What) :-
    retract(ilp_join_stats(Tries0, Wins0)),
    (   What == tries
    ->  Tries is Tries0 + 1, Wins = Wins0
    ;   Tries = Tries0, Wins is Wins0 + 1
    ),
    assertz(ilp_join_stats(Tries, Wins)).

ilp_fact_goals([], []).
ilp_fact_goals([G|Gs], Facts) :-
    (   ilp_facts_only(G)
    ->  Facts = [G|Facts1]
    ;   Facts = Facts1
    ),
    ilp_fact_goals(Gs, Facts1).

ilp_facts_only(true) :- !.
ilp_facts_only((A, B)) :- !,
    ilp_facts_only(A),
    ilp_facts_only(B).
ilp_facts_only(Goal) :-
    predicate_property(Goal, defined),
    \+ predicate_property(Goal, foreign),
    \+ predicate_property(Goal, imported_from(_)),
    predicate_property(Goal, number_of_rules(0)).

%   ilp_join_outcome(+StopAtNeg, +PosAll, +NegsAll, -Neg, -Pos, -NegAll): what
%   ilp_coverage/6 reports in mode StopAtNeg, from every covered positive and negative.
ilp_join_outcome(true, PosAll, NegsAll, Neg, Pos, NegAll) :-
    (   NegsAll = [Neg|_]
    ->  NegAll = [Neg],
        (   PosAll = [P|_] -> Pos = [P] ; Pos = [] )
    ;   Neg = none, NegAll = [], Pos = PosAll
    ).
ilp_join_outcome(pos, PosAll, NegsAll, Neg, PosAll, NegAll) :-
    ilp_join_first(NegsAll, Neg, NegAll).
ilp_join_outcome(posfirst, PosAll, NegsAll, Neg, PosAll, NegAll) :-
    (   PosAll == []
    ->  Neg = unknown, NegAll = []
    ;   ilp_join_first(NegsAll, Neg, NegAll)
    ).
ilp_join_outcome(false, PosAll, NegsAll, Neg, PosAll, NegsAll) :-
    (   NegsAll = [Neg|_] -> true ; Neg = none ).
ilp_join_outcome(posmore(K), PosAll, NegsAll, Neg, PosAll, NegAll) :-
    length(PosAll, N),
    (   N =< K
    ->  Neg = unknown, NegAll = []
    ;   NegAll = NegsAll,
        (   NegsAll = [Neg|_] -> true ; Neg = none )
    ).

ilp_join_first([], none, []).
ilp_join_first([Neg|_], Neg, [Neg]).

%   ilp_coverage(+StopAtNeg, :Covers, +Limit, -Neg, -Pos, -NegAll): call(Covers, Example),
%   each example within Limit inferences.
ilp_coverage(true, Covers, Limit, Neg, Pos, NegAll) :-
    ilp_first_neg(Covers, Limit, Neg, NegAll),
    (   Neg == none
    ->  ilp_covered(pos, Covers, Limit, Pos)
    ;   ilp_first_covered(pos, Covers, Limit, P)
    ->  Pos = [P]
    ;   Pos = []
    ).
ilp_coverage(pos, Covers, Limit, Neg, Pos, NegAll) :-   % the first negative, every positive
    ilp_first_neg(Covers, Limit, Neg, NegAll),
    ilp_covered(pos, Covers, Limit, Pos).
ilp_coverage(posfirst, Covers, Limit, Neg, Pos, NegAll) :-  % as pos; no positive: no
    ilp_covered(pos, Covers, Limit, Pos),                 % negative tested (Neg unknown)
    (   Pos == []
    ->  Neg = unknown, NegAll = []
    ;   ilp_first_neg(Covers, Limit, Neg, NegAll)
    ).
ilp_coverage(posmore(K), Covers, Limit, Neg, Pos, NegAll) :-  % every positive; every
    ilp_covered(pos, Covers, Limit, Pos),                    % negative only when more
    length(Pos, N),                                          % than K positives are
    (   N =< K                                               % covered (else unknown)
    ->  Neg = unknown, NegAll = []
    ;   ilp_covered(neg, Covers, Limit, NegAll),
        (   NegAll = [Neg|_] -> true ; Neg = none )
    ).
ilp_coverage(false, Covers, Limit, Neg, Pos, NegAll) :-
    ilp_covered(pos, Covers, Limit, Pos),
    ilp_covered(neg, Covers, Limit, NegAll),
    (   NegAll = [Neg|_]
    ->  true
    ;   Neg = none
    ).

ilp_first_neg(Covers, Limit, Neg, NegAll) :-
    (   ilp_first_covered(neg, Covers, Limit, Id)
    ->  Neg = Id, NegAll = [Id]
    ;   Neg = none, NegAll = []
    ).

		 /*******************************
		 *           PROGRAMS           *
		 *******************************/

%!  ilp_test_program(+Datas, +Limit, +Depth, +StopAtNeg, -Neg, -Pos, -NegAll) is det.
%   As ilp_test_clause/6 for the program Datas (clause data terms, in the order to assert
%   them); an example is covered when its atom succeeds with the program asserted, within
%   Limit inferences and a recursion depth of Depth.
ilp_test_program(Datas, Limit, Depth, StopAtNeg, Neg, Pos, NegAll) :-
    % each example under its own limit: recursive programs often run long on many
    % examples (to the depth limit), where a chunk's first run would be wasted
    ilp_with_program(Datas,
                     ilp_coverage(StopAtNeg, ilp_proves(Depth), each(Limit), Neg, Pos, NegAll)).

%!  ilp_with_program(+Datas, :Goal) is semidet.
%   Goal run with the program Datas (clause data terms, asserted in that order as dynamic
%   clauses of their head predicates, which must be the learned programs' own: ilp_own/2),
%   the clauses retracted afterwards, also on failure, error or timeout.
ilp_with_program(Datas, Goal) :-
    maplist(ilp_clause_pair, Datas, Clauses),
    findall(Name/Arity, ( member(H-_, Clauses), functor(H, Name, Arity) ), Preds0),
    sort(Preds0, Preds),
    forall(member(Name/Arity, Preds), ilp_own(Name, Arity)),
    setup_call_cleanup(
        forall(member(H-B, Clauses), assertz((H :- B))),
        Goal,
        forall(member(Name/Arity, Preds), ( functor(G, Name, Arity), retractall(G) ))).

ilp_clause_pair(Data, Head-Body) :- ilp_clause(Data, Head, Body).

%!  ilp_test_programs_text(+Text, +Depth, +StopAtNeg, -Lines) is det.
%   ilp_test_program/7 for each program p(Limit, Datas) read from Text (ilp_data/2), in one
%   call. Lines: one string, a line per program in the same order: Neg, the ids of the
%   positives covered and those of NegAll, the three parts separated by '|', the ids by
%   spaces.
ilp_test_programs_text(Text, Depth, StopAtNeg, Lines) :-
    ilp_data(Text, Programs),
    maplist(ilp_test_program_line(Depth, StopAtNeg), Programs, Results),
    ilp_joined_text(Results, '\n', Lines).

ilp_test_program_line(Depth, StopAtNeg, p(Limit, Datas), Line) :-
    ilp_test_program(Datas, Limit, Depth, StopAtNeg, Neg, Pos, NegAll),
    atomic_list_concat(Pos, ' ', PosAtom),
    atomic_list_concat(NegAll, ' ', NegAtom),
    atomic_list_concat([Neg, PosAtom, NegAtom], '|', Line).

ilp_proves(Depth, Example) :-
    call_with_depth_limit(Example, Depth, Reached),
    integer(Reached).

		 /*******************************
		 *       SATISFIABLE BODY       *
		 *******************************/

%!  ilp_body_sat(+Literals, +Limit) is semidet.
%   The conjunction Literals (data literals over integer variables, all free) has a solution
%   in the background knowledge, or cannot be shown not to have one within Limit
%   inferences (deterministic, unlike a time limit); running out of inferences or an error
%   (e.g. an unbound input) counts as satisfiable. Only the literals of predicates defined
%   by facts alone are run: a rule may fail when called with free variables and yet have
%   solutions (noisy-dropk-20's decrement/2 fails unless an argument is bound, which banned
%   decrement from every clause and its recursive program from the search), while a
%   conjunction of facts fails with free variables only when it has no solution.
ilp_body_sat(Literals, Limit) :-
    foldl(ilp_literal, Literals, Goals0, [], _),
    ilp_fact_goals(Goals0, Goals),
    ilp_conjunction(Goals, Body),
    % succeeds on a solution ('!'), on running out of inferences and on an error; fails
    % when the conjunction fails within the limit
    catch(ilp_limited(\+ \+ once(Body), Limit, _), Ball,
          ( ilp_limit_ball(Ball) -> true ; throw(Ball) )).


		 /*******************************
		 *       MANY CLAUSES AT ONCE   *
		 *******************************/

%!  ilp_test_clauses_text(+Text, +Limit, +Mode, -Lines) is det.
%   ilp_test_clause/6 for each clause read from Text (ilp_data/2) in one call, stopping at
%   the first negative but listing every positive covered (StopAtNeg = Mode = pos; Mode =
%   posfirst: the positives first, and no negative tested when none is covered, Neg =
%   unknown). Lines: one string, a line per clause in the same order: Neg, then the ids of
%   the positives covered, separated by spaces (one string, not a list of terms: many
%   times cheaper to pass to Python).
ilp_test_clauses_text(Text, Limit, Mode, Lines) :-
    ilp_data(Text, Datas),
    maplist(ilp_test_one(Limit, Mode), Datas, Results),
    ilp_joined_text(Results, '\n', Lines).

ilp_test_one(Limit, Mode, Data, Line) :-     % Neg, then the positives, one atom
    ilp_test_clause(Data, Limit, Mode, Neg, Pos, _),
    atomic_list_concat([Neg|Pos], ' ', Line).

%!  ilp_score_clauses_text(+Text, +Limit, -Lines) is det.
%   Noisy mode: for each clause read from Text, every positive it covers and, when they
%   outnumber its literals, every negative (else its score cannot beat the empty program's,
%   and the negatives are not tested: Popper's test_single_rule_pos first). Lines: a line
%   per clause, the positive ids, then "|" and the negative ids or "?" when not tested.
ilp_score_clauses_text(Text, Limit, Lines) :-
    ilp_data(Text, Datas),
    maplist(ilp_score_one(Limit), Datas, Results),
    ilp_joined_text(Results, '\n', Lines).

ilp_score_one(Limit, Data, Line) :-
    ilp_clause_literals(Data, _, Literals),
    length(Literals, L),
    Size is L + 1,
    ilp_test_clause(Data, Limit, posmore(Size), Neg, Pos, NegAll),
    (   Neg == unknown
    ->  Negs = ['?']
    ;   Negs = NegAll
    ),
    append(Pos, ['|'|Negs], Items),
    atomic_list_concat(Items, ' ', Line).

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
%   For each clause data term clause(Head, Body) (Body in execution order) that covers no
%   positive example: a part of Body (in Body's order; each literal dropped in turn, last
%   first, dropped for good when the clause Head :- Rest still surely covers no positive)
%   such that Head :- Core covers no positive either. A literal is only dropped when every
%   remaining literal is then called with the same variables bound as before (the head's,
%   and those of the remaining literals before it): each remaining call is then the call
%   it was, and every clause containing Head and Core covers a subset of what Head :- Core
%   covers, whatever the background predicates do with unbound arguments. "Surely": a
%   positive on which the part raises an error or runs out of Limit inferences counts as
%   covered.
ilp_pos_cores(Datas, Limit, Cores) :-
    maplist(ilp_pos_core(Limit), Datas, Cores).

ilp_pos_core(Limit, clause(Head, Body), Core) :-
    Head =.. [_|HeadVars],
    reverse(Body, Order),
    foldl(ilp_pos_drop(Head, HeadVars, Limit), Order, Body, Core).

ilp_pos_drop(Head, HeadVars, Limit, Literal, Current, Next) :-
    ilp_without(Current, Literal, Rest),
    (   Rest \== [],
        ilp_same_calls(Current, Rest, HeadVars, HeadVars),
        \+ ilp_may_cover_pos(Limit, clause(Head, Rest))
    ->  Next = Rest
    ;   Next = Current
    ).

ilp_without([], _, []).
ilp_without([X|Xs], Y, Rest) :-
    (   X == Y
    ->  Rest = Xs
    ;   Rest = [X|Rest1],
        ilp_without(Xs, Y, Rest1)
    ).

%   ilp_same_calls(+Current, +Rest, +BoundC, +BoundR): Rest is Current without one
%   literal, and every literal of Rest has its variables bound before it in Rest that
%   were bound before it in Current.
ilp_same_calls([], _, _, _).
ilp_same_calls([L|Ls], Rest0, BoundC, BoundR) :-
    L =.. [_|Args],
    (   Rest0 = [R|Rest], R == L
    ->  forall(( member(V, Args), memberchk(V, BoundC) ), memberchk(V, BoundR)),
        append(Args, BoundR, BoundR1)
    ;   Rest = Rest0,
        BoundR1 = BoundR
    ),
    append(Args, BoundC, BoundC1),
    ilp_same_calls(Ls, Rest, BoundC1, BoundR1).

%   ilp_may_cover_pos(+Limit, +Data): the clause covers some positive, or raises an error
%   or runs out of inferences on one.
ilp_may_cover_pos(Limit, Data) :-
    ilp_clause(Data, Head, Body),
    ilp_example(pos, _, Example),
    \+ \+ catch(ilp_limited(once((Head = Example, Body)), Limit, _),
                Ball, ( ilp_limit_ball(Ball) -> true ; throw(Ball) )),
    !.

		 /*******************************
		 *  PROGRAMS COVERING NO POSITIVE *
		 *******************************/

%!  ilp_program_cores_text(+Text, +Depth, -Lines) is det.
%   For each program p(Limit, Inputs, Datas) read from Text (clause data terms, bodies in
%   execution order; Inputs: the argument positions, from 0, of the head predicate that
%   are inputs, [] when it has no directions) that covers no positive example: a more
%   general program that surely covers none either (Popper's explanation of a totally
%   incomplete recursive program). Found greedily: clause by clause, each body literal that
%   is not a call of the clause's own head predicate is dropped in turn (last first), for
%   good when the clause keeps a literal (a recursive clause: a literal besides its
%   recursive call), every remaining literal of the clause is called with the same
%   variables bound as before (starting from the head's input variables: the clause runs
%   both on an example and on a recursive call), and the program with it dropped still
%   surely covers no positive (within Limit inferences and Depth, an error, running out of
%   either, or a success counting as covering). Lines: a line per program, per clause the
%   positions (in its body) of the literals kept, separated by spaces, the clauses
%   separated by '|'.
ilp_program_cores_text(Text, Depth, Lines) :-
    ilp_data(Text, Programs),
    maplist(ilp_program_core_line(Depth), Programs, Results),
    ilp_joined_text(Results, '\n', Lines).

ilp_program_core_line(Depth, p(Limit, Inputs, Datas), Line) :-
    maplist(ilp_core_clause(Inputs), Datas, Clauses0),
    length(Clauses0, N),
    ilp_range(1, N, Ks),
    foldl(ilp_core_clause_drops(Limit, Depth), Ks, Clauses0, Clauses),
    maplist(ilp_core_clause_text, Clauses, Parts),
    atomic_list_concat(Parts, '|', Line).

%   cc(Head, Start, Recursive, Pairs): a clause as data (variables are integers), the
%   variables bound when it is called, whether it calls its head predicate, and its body
%   as Position-Literal pairs.
ilp_core_clause(Inputs, clause(Head, Literals), cc(Head, Start, Recursive, Pairs)) :-
    findall(V, ( member(I, Inputs), I1 is I + 1, arg(I1, Head, V) ), Start),
    length(Literals, Len),
    ilp_range(0, Len - 1, Positions),
    maplist(ilp_pair, Positions, Literals, Pairs),
    (   ilp_calls_head(Head, Literals) -> Recursive = true ; Recursive = false ).

ilp_pair(K, V, K-V).
ilp_pair_value(_-V, V).
ilp_pair_key(K-_, K).

%   ilp_range(+Low, +High, -List): Low, Low+1, ..., High (empty when High < Low).
ilp_range(Low, High0, List) :-
    High is High0,
    (   Low > High
    ->  List = []
    ;   Low1 is Low + 1,
        List = [Low|Rest],
        ilp_range(Low1, High, Rest)
    ).

ilp_calls_head(Head, Literals) :-
    functor(Head, Name, Arity),
    member(L, Literals),
    functor(L, Name, Arity),
    !.

ilp_core_clause_text(cc(_, _, _, Pairs), Text) :-
    maplist(ilp_pair_key, Pairs, Positions),
    atomic_list_concat(Positions, ' ', Text).

ilp_core_clause_drops(Limit, Depth, K, Clauses0, Clauses) :-
    ilp_nth(K, Clauses0, cc(_, _, _, Pairs)),
    reverse(Pairs, Order),
    foldl(ilp_core_drop(Limit, Depth, K), Order, Clauses0, Clauses).

ilp_core_drop(Limit, Depth, K, _-Literal, Clauses0, Clauses) :-
    ilp_nth(K, Clauses0, cc(Head, Start, Recursive, Pairs)),
    (   \+ ilp_calls_head(Head, [Literal]),
        ilp_pairs_without(Pairs, Literal, Rest),
        maplist(ilp_pair_value, Pairs, Current),
        maplist(ilp_pair_value, Rest, RestLits),
        ilp_core_keeps_enough(Recursive, RestLits),
        ilp_same_calls(Current, RestLits, Start, Start),
        ilp_replace_nth(K, Clauses0, cc(Head, Start, Recursive, Rest), Candidate),
        \+ ilp_program_may_cover_pos(Candidate, Limit, Depth)
    ->  Clauses = Candidate
    ;   Clauses = Clauses0
    ).

ilp_core_keeps_enough(false, [_|_]).
ilp_core_keeps_enough(true, [_, _|_]).

ilp_pairs_without([], _, []).
ilp_pairs_without([P-X|Xs], Y, Rest) :-
    (   X == Y
    ->  Rest = Xs
    ;   Rest = [P-X|Rest1],
        ilp_pairs_without(Xs, Y, Rest1)
    ).

ilp_nth(1, [X|_], Y) :- !, Y = X.
ilp_nth(K, [_|Xs], Y) :-
    K1 is K - 1,
    ilp_nth(K1, Xs, Y).

ilp_replace_nth(1, [_|Xs], Y, [Y|Xs]) :- !.
ilp_replace_nth(K, [X|Xs], Y, [X|Ys]) :-
    K1 is K - 1,
    ilp_replace_nth(K1, Xs, Y, Ys).

%   ilp_program_may_cover_pos(+Clauses, +Limit, +Depth): with the clauses asserted, some
%   positive succeeds, raises an error or runs out of Limit inferences or of Depth.
ilp_program_may_cover_pos(Clauses, Limit, Depth) :-
    maplist(ilp_core_data, Clauses, Datas),
    ilp_with_program(Datas, ilp_some_pos_may_succeed(Limit, Depth)).

ilp_core_data(cc(Head, _, _, Pairs), clause(Head, Lits)) :-
    maplist(ilp_pair_value, Pairs, Lits).

ilp_some_pos_may_succeed(Limit, Depth) :-
    ilp_example(pos, _, Example),
    \+ \+ catch(ilp_limited(once(call_with_depth_limit(Example, Depth, _)), Limit, _),
                Ball, ( ilp_limit_ball(Ball) -> true ; throw(Ball) )),
    !.
