% Deduction track: proof-tree semantics (scir.tracks.deduction).
%
% Formulas (monadic, no existential import):
%   all(S, P)  every S is a P        no(S, P)        no S is a P
%   some(S, P) some S are P          some_not(S, P)  some S are not P
%   fact(P, C) C is a P              neg_fact(P, C)  C is not a P
%   exists(P)  there is at least one P
% Proof trees (data passed in as terms):
%   node(Conclusion, Rule, Subtrees)  Conclusion follows from the Subtrees' conclusions by Rule
%   premise(F)                        a stated premise
%   missing(F)                        a premise deleted from the task (Unknown tasks, distractors)
%   replaced(F, G)                    F is not stated; G (its converse, balanced construction)
%                                     is stated in its place and derives nothing here
%
% rule(Name, Conclusion, Premises): the syllogism Name derives Conclusion from Premises, listed
% in this order. Moods that classically need existential import (darapti, bamalip, barbari,
% felapton, fesapo, celaront, cesaro, camestros, calemos) carry an explicit existence premise,
% exists(X) or fact(X, D). This is the one catalogue: the generator reads it through
% rule_schema/3 (scir/tracks/deduction/logic.py, catalogue()).

rule(barbara,   all(S, P),      [all(M, P), all(S, M)]).
rule(celarent,  no(S, P),       [no(M, P), all(S, M)]).
rule(cesare,    no(S, P),       [no(P, M), all(S, M)]).
rule(camestres, no(S, P),       [all(P, M), no(S, M)]).
rule(camenes,   no(S, P),       [all(P, M), no(M, S)]).
rule(darii,     some(S, P),     [all(M, P), some(S, M)]).
rule(datisi,    some(S, P),     [all(M, P), some(M, S)]).
rule(disamis,   some(S, P),     [some(M, P), all(M, S)]).
rule(dimaris,   some(S, P),     [some(P, M), all(M, S)]).
rule(darapti,   some(S, P),     [all(M, P), all(M, S), E]) :- existence(M, E).
rule(bamalip,   some(S, P),     [all(P, M), all(M, S), E]) :- existence(P, E).
rule(barbari,   some(S, P),     [all(M, P), all(S, M), E]) :- existence(S, E).
rule(darapti_singular, some(S, P), [fact(S, D), fact(P, D)]).
rule(ferio,     some_not(S, P), [no(M, P), some(S, M)]).
rule(festino,   some_not(S, P), [no(P, M), some(S, M)]).
rule(ferison,   some_not(S, P), [no(M, P), some(M, S)]).
rule(fresison,  some_not(S, P), [no(P, M), some(M, S)]).
rule(baroco,    some_not(S, P), [all(P, M), some_not(S, M)]).
rule(bocardo,   some_not(S, P), [some_not(M, P), all(M, S)]).
rule(felapton,  some_not(S, P), [no(M, P), all(M, S), E]) :- existence(M, E).
rule(fesapo,    some_not(S, P), [no(P, M), all(M, S), E]) :- existence(M, E).
rule(celaront,  some_not(S, P), [no(M, P), all(S, M), E]) :- existence(S, E).
rule(cesaro,    some_not(S, P), [no(P, M), all(S, M), E]) :- existence(S, E).
rule(camestros, some_not(S, P), [all(P, M), no(S, M), E]) :- existence(S, E).
rule(calemos,   some_not(S, P), [all(P, M), no(M, S), E]) :- existence(S, E).
rule(felapton_singular, some_not(S, P), [fact(S, D), neg_fact(P, D)]).
rule(barbara_singular,   fact(P, C),     [all(M, P), fact(M, C)]).
rule(celarent_singular,  neg_fact(P, C), [no(M, P), fact(M, C)]).
rule(cesare_singular,    neg_fact(P, C), [no(P, M), fact(M, C)]).
rule(camestres_singular, neg_fact(P, C), [all(P, M), neg_fact(M, C)]).

% existence(X, F): F states that something is an X.
existence(X, exists(X)).
existence(X, fact(X, _)).

% rule_schema(-Name, -Conclusion, -Premises): rule/3 in clause order with its variables named
% by role, for the generator: s and p the conclusion's predicates (p and c for a singular
% conclusion), m the middle predicate, d a fresh constant; an existence premise (either form of
% existence/2) is existence(X). Which forms are singular (a predicate and a constant) is data:
%   form(Kind, Sort1, Sort2)   the argument sorts of each form (p predicate, c constant, none),
%                              form/4 of asp/deduction.lp, added by Python as facts
:- dynamic form/3.
:- dynamic negative_form/1.    % the forms that deny: Python adds them (asp/deduction.lp)

rule_schema(Name, Conclusion, Premises) :-
    clause(rule(Name, Conclusion, Premises), Body),
    (   Body = existence(X, E) -> E = existence(X) ; true ),
    conclusion_roles(Conclusion),
    maplist(premise_roles, Premises).

conclusion_roles(F) :-
    F =.. [Kind, A, B],
    (   form(Kind, p, c) -> A = p, B = c ; A = s, B = p ).

premise_roles(existence(_)) :- !.
premise_roles(F) :-
    F =.. [Kind, A, B],
    role(A, m),
    (   form(Kind, p, c) -> role(B, d) ; role(B, m) ).

role(X, Role) :- ( var(X) -> X = Role ; true ).

% rule_name(Name): Name is a rule of the catalogue (each listed once).
rule_name(Name) :- setof(N, C^Ps^rule(N, C, Ps), Names), member(Name, Names).

conclusion(node(F, _, _), F).
conclusion(premise(F), F).
conclusion(missing(F), F).
conclusion(replaced(F, _), F).

% check_tree(+Tree, +Premises, -Missing): every step of Tree is an instance of its rule, every
% premise(F) leaf is one of Premises, every missing(F) leaf is not, every replaced(F, G) leaf
% has G among Premises and F not; Missing lists the missing and replaced leaves, left to right.
check_tree(premise(F), Premises, []) :-
    memberchk(F, Premises).
check_tree(missing(F), Premises, [F]) :-
    \+ memberchk(F, Premises).
check_tree(replaced(F, G), Premises, [F]) :-
    \+ memberchk(F, Premises),
    memberchk(G, Premises).
check_tree(node(F, Rule, Subtrees), Premises, Missing) :-
    maplist(conclusion, Subtrees, Fs),
    rule(Rule, F, Fs),
    maplist(check_subtree(Premises), Subtrees, Lists),
    append(Lists, Missing).

check_subtree(Premises, Tree, Missing) :-
    check_tree(Tree, Premises, Missing).

% tree_error(+Tree, +Premises, -Error): why check_tree/3 fails, first problem in tree order:
%   bad_step(F, Rule, Fs)   F does not follow from Fs by Rule
%   not_stated(F)           a premise leaf that is not among Premises
%   stated_missing(F)       a missing (or replaced) leaf that is among Premises
%   not_stated(G)           also: the replacement G of a replaced leaf is not among Premises
tree_error(premise(F), Premises, not_stated(F)) :-
    \+ memberchk(F, Premises).
tree_error(missing(F), Premises, stated_missing(F)) :-
    memberchk(F, Premises).
tree_error(replaced(F, _), Premises, stated_missing(F)) :-
    memberchk(F, Premises), !.
tree_error(replaced(_, G), Premises, not_stated(G)) :-
    \+ memberchk(G, Premises).
tree_error(node(F, Rule, Subtrees), Premises, Error) :-
    maplist(conclusion, Subtrees, Fs),
    (   \+ rule(Rule, F, Fs)
    ->  Error = bad_step(F, Rule, Fs)
    ;   member(Sub, Subtrees),
        tree_error(Sub, Premises, Error)
    ),
    !.

% check_trees(+Trees, +Premises, -Results): one result per tree, ok(Missing) when
% check_tree/3 succeeds, else error(E) with E from tree_error/3 (error(malformed) when the
% tree is not made of node/3, premise/1, missing/1 and replaced/2 terms).
check_trees(Trees, Premises, Results) :-
    maplist(tree_result(Premises), Trees, Results).

tree_result(Premises, Tree, Result) :-
    (   check_tree(Tree, Premises, Missing)
    ->  Result = ok(Missing)
    ;   tree_error(Tree, Premises, Error)
    ->  Result = error(Error)
    ;   Result = error(malformed)
    ).

% tree_steps(+Tree, -Steps): step(Conclusion, Rule, Premises) for every derivation, premises
% before the steps that use them (the order a reader follows the proof in).
tree_steps(premise(_), []).
tree_steps(missing(_), []).
tree_steps(replaced(_, _), []).
tree_steps(node(F, Rule, Subtrees), Steps) :-
    maplist(tree_steps, Subtrees, Lists),
    append(Lists, Before),
    maplist(conclusion, Subtrees, Fs),
    append(Before, [step(F, Rule, Fs)], Steps).

% ---- the shape of a task's trees, per label (scir verify) -------------------------------------
% shape_error(+Construction, +Label, +Statement, +Negation, +Trees, +Decoys, +RootNegation,
%             +Premises, -Error)
%   What is wrong with the trees [Proof|Distractors] of a task labelled Label ('True', 'False',
%   'Unknown') built by Construction (paper, balanced), given the Statement, its Negation and
%   RootNegation, the negation of the proof's conclusion (none for a formula whose negation is
%   not in the fragment: Python passes the negations, whose table is asp/deduction.lp's), and
%   the balanced construction's Decoys, one per tree in the same order ([] for files written
%   before decoys existed: their distractors may hold two converses). One solution per
%   problem, in this order; a tree that fails check_tree/3 is skipped here (check_trees/3
%   names its fault):
%     proof(Label, Wanted)  a True (False) task needs a complete proof of the statement (of
%                           its negation), Wanted
%     unknown_proof         an Unknown task needs a proof of the statement or its negation with
%                           exactly one leaf missing (paper) or replaced by its converse
%                           (balanced)
%     distractor(I)         distractor I (from 1): paper: the proof's conclusion and exactly
%                           one missing leaf; balanced: the proof's conclusion or its negation
%                           and one (with decoys; without: one or two) leaves replaced by their
%                           converses (none deleted)
%     half_negated          balanced: half of the trees conclude the negation of the others
%     converse_count        balanced: as many converse (replaced) leaves as trees, decoys
%                           included
%     decoy_count           balanced with decoys: one decoy per tree
%     decoy(I)              decoy I (of tree I, the proof's first): a copy of a derived
%                           subtree of tree I (copy_of_subtree/2; files of balanced 3.x: a
%                           tree concluding a formula of the other polarity, negative_form/1
%                           given by Python from asp/deduction.lp), concluding a formula
%                           about a term of tree I's leaves that is not in
%                           tree I's conclusion and a term of no other tree, with no leaf
%                           deleted; the proof's decoy of a True/False task holds one converse,
%                           every other decoy none
shape_error(_, Label, Statement, Negation, [Proof|_], _, _, Premises, proof(Label, Wanted)) :-
    memberchk(Label-Wanted, ['True'-Statement, 'False'-Negation]),
    once(check_tree(Proof, Premises, Missing)),
    conclusion(Proof, F),
    ( Missing \== [] ; F \== Wanted ), !.
shape_error(Construction, 'Unknown', Statement, Negation, [Proof|_], _, _, Premises,
            unknown_proof) :-
    once(check_tree(Proof, Premises, Missing)),
    conclusion(Proof, F),
    \+ ( Missing = [_],
         ( F == Statement ; F == Negation ),
         ( Construction == paper ; replaced_count(Proof, 1) ) ).
shape_error(Construction, _, _, _, [Proof|Distractors], Decoys, RootNegation, Premises,
            distractor(I)) :-
    conclusion(Proof, Root),
    nth1(I, Distractors, Tree),
    once(check_tree(Tree, Premises, Missing)),
    conclusion(Tree, F),
    \+ distractor_shape(Construction, Decoys, Root, RootNegation, Tree, F, Missing).
shape_error(balanced, _, _, _, [Proof|Trees], _, _, _, half_negated) :-
    conclusion(Proof, Root),
    include(concludes(Root), Trees, Same),
    length(Trees, N),
    length(Same, K),
    2 * (K + 1) =\= N + 1.
shape_error(balanced, _, _, _, Trees, Decoys, _, _, converse_count) :-
    append(Trees, Decoys, All),
    maplist(replaced_count, All, Counts),
    sum_list(Counts, Replaced),
    length(Trees, N),
    Replaced =\= N.
shape_error(balanced, _, _, _, Trees, Decoys, _, _, decoy_count) :-
    Decoys \== [],
    length(Trees, N),
    \+ length(Decoys, N).
shape_error(balanced, Label, _, _, Trees, Decoys, _, Premises, decoy(I)) :-
    Decoys \== [],
    nth1(I, Decoys, Decoy),
    nth1(I, Trees, Tree),
    once(check_tree(Decoy, Premises, Missing)),
    (   I =:= 1, Label \== 'Unknown' -> Wanted = 1 ; Wanted = 0 ),
    \+ decoy_shape(Tree, Decoy, Trees, Missing, Wanted).

% decoy_shape(+Tree, +Decoy, +Trees, +Missing, +Replaced): Decoy is attached to Tree as
% shape_error/9 describes, with Replaced converse leaves and no other missing one.
decoy_shape(Tree, Decoy, Trees, Missing, Replaced) :-
    replaced_count(Decoy, Replaced),
    length(Missing, Replaced),
    conclusion(Tree, TreeF),
    conclusion(Decoy, DecoyF),
    (   copy_of_subtree(Tree, Decoy)
    ->  true
    ;   polarity(TreeF, negative)
    ->  polarity(DecoyF, affirmative)
    ;   polarity(DecoyF, negative)
    ),
    TreeF =.. [_|Outer],
    DecoyF =.. [_|Args],
    tree_terms(Tree, Inner),
    include(inner_term(Outer, Inner), Args, [_]),
    exclude(inner_term(Outer, Inner), Args, [Fresh]),
    \+ ( member(Other, Trees), tree_terms(Other, Terms), memberchk(Fresh, Terms) ).

% copy_of_subtree(+Tree, +Decoy): Decoy has the shape of a derived subtree of Tree (the same
% rules, and the same forms at every node, terms renamed): a decoy of balanced 4.x, a copy
% of the route's far part (files of 3.x: a decoy of the other polarity instead).
copy_of_subtree(Tree, Decoy) :-
    Decoy = node(_, _, _),
    sub_node(Tree, Sub),
    same_shape(Sub, Decoy), !.

sub_node(Tree, Tree).
sub_node(node(_, _, Subtrees), Sub) :-
    member(Child, Subtrees),
    sub_node(Child, Sub).

same_shape(node(F, Rule, As), node(G, Rule, Bs)) :- !,
    same_form(F, G),
    maplist(same_shape, As, Bs).
same_shape(A, B) :-
    A \= node(_, _, _), B \= node(_, _, _),
    conclusion(A, F), conclusion(B, G),
    same_form(F, G).

same_form(F, G) :- functor(F, K, N), functor(G, K, N).

inner_term(Outer, Inner, T) :- \+ memberchk(T, Outer), memberchk(T, Inner).

polarity(F, negative) :- functor(F, K, _), negative_form(K), !.
polarity(_, affirmative).

% tree_terms(+Tree, -Terms): the predicates and constants of Tree's leaves (as stated in the
% tree, before any converse).
tree_terms(Tree, Terms) :-
    tree_leaf_formulas(Tree, Fs),
    findall(T, ( member(F, Fs), F =.. [_|Args], member(T, Args) ), Ts),
    sort(Ts, Terms).

tree_leaf_formulas(node(_, _, Subtrees), Fs) :- !,
    maplist(tree_leaf_formulas, Subtrees, Lists),
    append(Lists, Fs).
tree_leaf_formulas(Leaf, [F]) :- conclusion(Leaf, F).

distractor_shape(paper, _, Root, _, _, F, [_]) :-
    F == Root.
distractor_shape(balanced, Decoys, Root, RootNegation, Tree, F, Missing) :-
    replaced_count(Tree, R),
    length(Missing, R),
    ( Decoys == [] -> between(1, 2, R) ; R =:= 1 ),
    ( F == Root ; F == RootNegation ), !.

concludes(Root, Tree) :- conclusion(Tree, F), F == Root.

% replaced_count(+Tree, -N): the number of replaced(F, G) leaves of Tree.
replaced_count(replaced(_, _), 1) :- !.
replaced_count(node(_, _, Subtrees), N) :- !,
    maplist(replaced_count, Subtrees, Ns),
    sum_list(Ns, N).
replaced_count(_, 0).
