% Independent check of a learned program on one Popper-format problem, for
% benchmarks/ilp_suite.py: consult bk.pl into module user, assert the program's clauses
% (read from a file, their head predicates made dynamic, invented predicates included), read
% exs.pl term by term (pos(Atom) / neg(Atom); a term that does not read is skipped, as consult
% skips it), and call each example once with a time limit (a timeout, an error or a failure is
% "not covered"). Prints one JSON object on the last line of stdout:
%   {"tp":..,"fn":..,"tn":..,"fp":..,"size":..,"clauses":..,"skipped_terms":..,
%    "other_terms":..,"timeouts":..,"errors":..,"program_errors":..}
% size is the number of literals (one per head, one per body literal), as Popper counts.
%
%   swipl benchmarks/ilp_check.pl -- BK.pl EXS.pl PROGRAM.pl SECONDS_PER_EXAMPLE
% (the -- keeps swipl from loading the .pl arguments itself).

:- module(ilp_check, []).
:- use_module(library(http/json)).
:- use_module(library(time)).

:- initialization(main, main).

main :-
    current_prolog_flag(argv, Argv),
    main(Argv).

main(Argv) :-
    (   Argv = [Bk, Exs, Program, LimitText],
        atom_number(LimitText, Limit)
    ->  true
    ;   format(user_error, "usage: swipl ilp_check.pl -- BK EXS PROGRAM SECONDS~n", []),
        halt(2)
    ),
    load_files(user:Bk, [silent(true)]),
    read_terms(Program, Clauses, Unread),
    foldl(add_clause, Clauses, 0-Unread, Size-ProgramErrors),
    length(Clauses, NClauses),
    read_terms(Exs, Terms, Skipped),
    partition(is_example, Terms, Examples, Others),
    length(Others, NOthers),
    foldl(test_example(Limit), Examples, counts(0, 0, 0, 0, 0, 0),
          counts(TP, FN, TN, FP, Timeouts, ExErrors)),
    json_write_dict(current_output,
                    _{tp: TP, fn: FN, tn: TN, fp: FP, size: Size, clauses: NClauses,
                      skipped_terms: Skipped, other_terms: NOthers, timeouts: Timeouts,
                      errors: ExErrors, program_errors: ProgramErrors},
                    [width(0)]),
    nl.

%!  read_terms(+File, -Terms, -Skipped) is det.
%   The terms of File read with the operators of module user; a term that does not read
%   (a syntax error) is skipped and counted.
read_terms(File, Terms, Skipped) :-
    setup_call_cleanup(open(File, read, Stream),
                       read_all(Stream, Terms, 0, Skipped),
                       close(Stream)).

read_all(Stream, Terms, Skipped0, Skipped) :-
    (   read_term(Stream, Term, [syntax_errors(quiet), module(user)])
    ->  (   Term == end_of_file
        ->  Terms = [], Skipped = Skipped0
        ;   Terms = [Term|Rest],
            read_all(Stream, Rest, Skipped0, Skipped)
        )
    ;   Skipped1 is Skipped0 + 1,
        read_all(Stream, Terms, Skipped1, Skipped)
    ).

%!  add_clause(+Clause, +Size0-Errors0, -Size-Errors) is det.
%   Asserts Clause in module user (its head predicate made dynamic) and adds its literals.
add_clause(Clause, Size0-Errors0, Size-Errors) :-
    clause_parts(Clause, Head, Body),
    (   callable(Head),
        catch(( functor(Head, Name, Arity),
                dynamic(user:Name/Arity),
                assertz(user:Clause) ), _, fail)
    ->  body_literals(Body, N),
        Size is Size0 + 1 + N,
        Errors = Errors0
    ;   Size = Size0,
        Errors is Errors0 + 1
    ).

clause_parts((Head :- Body), Head, Body) :- !.
clause_parts(Head, Head, true).

body_literals(Body, 0) :- Body == true, !.
body_literals(Body, N) :- nonvar(Body), Body = (A, B), !,
    body_literals(A, NA), body_literals(B, NB), N is NA + NB.
body_literals(_, 1).

is_example(pos(_)).
is_example(neg(_)).

%!  test_example(+Limit, +Example, +Counts0, -Counts) is det.
test_example(Limit, Example, Counts0, Counts) :-
    Example =.. [Sign, Atom],
    covered(Limit, Atom, Outcome),
    Counts0 = counts(TP, FN, TN, FP, Timeouts, Errors),
    (   Outcome == timeout -> Timeouts1 is Timeouts + 1 ; Timeouts1 = Timeouts ),
    (   Outcome == error -> Errors1 is Errors + 1 ; Errors1 = Errors ),
    Covered = (Outcome == true),
    (   Sign == pos
    ->  ( Covered -> TP1 is TP + 1, FN1 = FN ; TP1 = TP, FN1 is FN + 1 ),
        Counts = counts(TP1, FN1, TN, FP, Timeouts1, Errors1)
    ;   ( Covered -> FP1 is FP + 1, TN1 = TN ; FP1 = FP, TN1 is TN + 1 ),
        Counts = counts(TP, FN, TN1, FP1, Timeouts1, Errors1)
    ).

%!  covered(+Limit, +Atom, -Outcome) is det.
%   Outcome is true (Atom succeeds within Limit seconds), false, timeout or error.
covered(Limit, Atom, Outcome) :-
    catch(( call_with_time_limit(Limit, once(user:Atom)) -> Outcome = true ; Outcome = false ),
          Error,
          ( Error == time_limit_exceeded -> Outcome = timeout ; Outcome = error )).
