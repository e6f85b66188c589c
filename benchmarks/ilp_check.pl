% Independent check of a learned program on one Popper-format problem, for
% benchmarks/ilp_suite.py: consult bk.pl into module user, assert the program's clauses
% (read from a file term by term, their head predicates made dynamic, invented predicates
% included), consult exs.pl into its own module as Popper consults it (a first line starting
% with "#" is a script line; a clause that does not read is reported and skipped; both are
% counted as skipped_terms), take its pos(Atom) / neg(Atom), and call each example once with
% a time limit (a timeout, an error or a failure is "not covered"). Prints one JSON object on
% the last line of stdout:
%   {"tp":..,"fn":..,"tn":..,"fp":..,"size":..,"clauses":..,"skipped_terms":..,
%    "timeouts":..,"errors":..,"program_errors":..}
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
    load_examples(Exs, Examples, Skipped),
    foldl(test_example(Limit), Examples, counts(0, 0, 0, 0, 0, 0),
          counts(TP, FN, TN, FP, Timeouts, ExErrors)),
    json_write_dict(current_output,
                    _{tp: TP, fn: FN, tn: TN, fp: FP, size: Size, clauses: NClauses,
                      skipped_terms: Skipped, timeouts: Timeouts,
                      errors: ExErrors, program_errors: ProgramErrors},
                    [width(0)]),
    nl.

%!  read_terms(+File, -Terms, -Skipped) is det.
%   The terms of the program file read with the operators of module user; a term that does
%   not read (a syntax error) is skipped and counted.
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

%!  load_examples(+File, -Examples, -Unread) is det.
%   Consults File into module ilp_examples (what consult skips, it skips: a "#" first line,
%   clauses with syntax errors, which are counted in Unread); Examples are Sign-Atom pairs
%   for its pos(Atom) and neg(Atom).
load_examples(File, Examples, Unread) :-
    nb_setval(ilp_check_unread, 0),
    setup_call_cleanup(
        ( peek_first_line(File, Script),
          asserta((user:message_hook(error(syntax_error(_), _), error, _) :-
                       ilp_check:count_unread, fail), Ref) ),
        load_files(ilp_examples:File, [silent(true)]),
        erase(Ref)),
    nb_getval(ilp_check_unread, Errors),
    Unread is Errors + Script,
    findall(Sign-Atom, example(Sign, Atom), Examples).

count_unread :-
    nb_getval(ilp_check_unread, N0),
    N is N0 + 1,
    nb_setval(ilp_check_unread, N).

%   Script is 1 when File's first line starts with "#" (consult skips it), else 0.
peek_first_line(File, Script) :-
    setup_call_cleanup(open(File, read, Stream),
                       ( peek_char(Stream, '#') -> Script = 1 ; Script = 0 ),
                       close(Stream)).

example(Sign, Atom) :-
    member(Sign, [pos, neg]),
    current_predicate(ilp_examples:Sign/1),
    Goal =.. [Sign, Atom],
    ilp_examples:Goal.

%!  test_example(+Limit, +Sign-Atom, +Counts0, -Counts) is det.
test_example(Limit, Sign-Atom, Counts0, Counts) :-
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
