% Worker side of solvers.sandbox (untrusted, model-written Prolog). Adds two bridge
% operations: sandbox_setup (stack limit of the worker) and sandbox_load, which checks each
% clause against the whitelist in sandbox_whitelist.pl -- a second check, independent of the
% Python one that already ran in the parent -- and asserts it into a fresh temporary module.
% The clauses arrive as terms (wire data), never as text, so nothing untrusted is parsed
% here. Time, inference, answer-size and answer-depth limits are options of the bridge's
% run operation. One limit is added here: the built-ins that make new atoms from lists
% (text_builtin/2) are called through text_goal/1, which charges the characters they create
% to a budget per run (text_budget/1). Atoms live outside the Prolog stacks, and one shared
% list of two million codes let forty calls make 80M characters of atoms: SWI-Prolog then
% aborts on a failed malloc. The rewrite is trusted: it wraps whitelisted goals, nothing else.

:- module(scir_sandbox, []).

:- use_module(library(apply)).
:- use_module(library(lists)).
:- use_module(bridge).
:- use_module(sandbox_whitelist).

scir_bridge:operation(sandbox_setup, [StackBytes], 1) :-
    integer(StackBytes),
    set_prolog_flag(stack_limit, StackBytes).
scir_bridge:operation(sandbox_load, [M0, Declared0, Clauses], N) :-
    scir_bridge:temp_module(M0, M),
    text_budget(Budget),
    nb_setval(scir_sandbox_text, Budget),
    maplist(declared_indicator, Declared0, Declared),
    maplist(declare(M), Declared),
    foldl(load_clause(M, Declared), Clauses, 0, N).

declared_indicator([Name0, Arity], Name/Arity) :-
    text_atom(Name0, Name),
    integer(Arity),
    Arity >= 0.

%   Declared predicates are dynamic, so a declared predicate without clauses fails.
declare(M, Name/Arity) :-
    functor(Head, Name, Arity),
    (   predicate_property(system:Head, defined)
    ->  throw(scir_error(input, "declared predicate ~w/~w is a built-in"-[Name, Arity]))
    ;   dynamic(M:Name/Arity)
    ).

load_clause(M, Declared, Wire, I0, I) :-
    I is I0 + 1,
    wire_term(Wire, Clause),
    check_clause(Clause, Declared, I),
    guard_clause(Clause, Guarded),
    assertz(M:Guarded).

		 /*******************************
		 *   ATOMS MADE AT RUN TIME     *
		 *******************************/

%   text_builtin(?Goal, -Made): Goal makes the new atom Made (when Made is unbound).
text_builtin(atom_codes(A, _), A).
text_builtin(atom_chars(A, _), A).
text_builtin(upcase_atom(_, A), A).
text_builtin(downcase_atom(_, A), A).

text_budget(16_000_000).          % characters of new atoms per run

text_goal(G) :-
    text_builtin(G, Made),
    (   var(Made)
    ->  call(G),
        atom_length(Made, N),
        nb_getval(scir_sandbox_text, B0),
        B is B0 - N,
        (   B < 0
        ->  text_budget(Limit),
            throw(scir_error(resource, "the program made more than ~D characters of new \c
                                        atoms (limit ~D)"-[Limit, Limit]))
        ;   nb_setval(scir_sandbox_text, B)
        )
    ;   call(G)
    ).

guard_clause((H :- B0), (H :- B)) :- !,
    guard_goal(B0, B).
guard_clause(C, C).

guard_goal(G, G) :- var(G), !.
guard_goal(G, scir_sandbox:text_goal(G)) :- text_builtin(G, _), !.
guard_goal(G0, G) :-
    compound(G0),
    compound_name_arity(G0, Name, Arity),
    functor(Spec, Name, Arity),
    safe_meta(Spec),
    !,
    compound_name_arguments(G0, Name, Args0),
    compound_name_arguments(Spec, Name, Modes),
    maplist(guard_arg, Modes, Args0, Args),
    compound_name_arguments(G, Name, Args).
guard_goal(G, G).

guard_arg(goal, A0, A) :- guard_goal(A0, A).
guard_arg(carets, A0, A) :- guard_carets(A0, A).
guard_arg(data, A, A).

guard_carets(G0, G) :-
    (   nonvar(G0), G0 = V^G1
    ->  G = V^G2,
        guard_carets(G1, G2)
    ;   guard_goal(G0, G)
    ).

violation(I, Format-Args) :-
    format(string(Message), Format, Args),
    throw(scir_error(violation, "clause ~d: ~s"-[I, Message])).

check_clause(C, _, I) :- var(C), !,
    violation(I, "a variable is not a clause"-[]).
check_clause((:- _), _, I) :- !,
    violation(I, "directives are not allowed"-[]).
check_clause((?- _), _, I) :- !,
    violation(I, "directives are not allowed"-[]).
check_clause((_ --> _), _, I) :- !,
    violation(I, "grammar rules are not allowed"-[]).
check_clause((Head :- Body), Declared, I) :- !,
    check_head(Head, Declared, I),
    check_goal(Body, Declared, I).
check_clause(Head, Declared, I) :-
    check_head(Head, Declared, I).

check_head(H, _, I) :- var(H), !,
    violation(I, "a clause head may not be a variable"-[]).
check_head(_:_, _, I) :- !,
    violation(I, "module-qualified clause heads are not allowed"-[]).
check_head(H, Declared, I) :-
    (   callable(H)
    ->  functor(H, Name, Arity),
        (   memberchk(Name/Arity, Declared)
        ->  true
        ;   violation(I, "clause for undeclared predicate ~w/~w"-[Name, Arity])
        )
    ;   violation(I, "clause head ~q is not callable"-[H])
    ).

check_goal(G, _, I) :- var(G), !,
    violation(I, "a variable used as a goal (meta-call) is not allowed"-[]).
check_goal(_:_, _, I) :- !,
    violation(I, "module-qualified goals are not allowed"-[]).
check_goal(G, _, I) :- \+ callable(G), !,
    violation(I, "~q is not a callable goal"-[G]).
check_goal(G, Declared, _) :-
    functor(G, Name, Arity),
    memberchk(Name/Arity, Declared),
    !.
check_goal(G, Declared, I) :-
    functor(G, Name, Arity),
    functor(Spec, Name, Arity),
    safe_meta(Spec),
    !,
    forall(arg(K, Spec, Mode),
           ( arg(K, G, Arg),
             check_meta_arg(Mode, Arg, Declared, I) )).
check_goal(G, _, _) :-
    functor(G, Name, Arity),
    safe_builtin(Name, Arity),
    !.
check_goal(G, _, I) :-
    functor(G, Name, Arity),
    violation(I, "~w/~w is not allowed (neither declared nor whitelisted)"-[Name, Arity]).

check_meta_arg(goal, G, Declared, I) :-
    check_goal(G, Declared, I).
check_meta_arg(carets, G0, Declared, I) :-
    strip_carets(G0, G),
    check_goal(G, Declared, I).
check_meta_arg(data, _, _, _).

strip_carets(G0, G) :-
    (   nonvar(G0), G0 = _^G1
    ->  strip_carets(G1, G)
    ;   G = G0
    ).
