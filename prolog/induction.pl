% Induction track semantics (SciR): coverage of drug pairs by relational rules.
%
% This file is THE definition of coverage, validity, the candidate rules and a rule's category
% (Python asks it: semantics.coverage, World.rules, World.rule_category). asp/induction.lp,
% which enumerates answer pools, restates coverage and validity on purpose as an independent
% check (independent_check_covers/4, independent_check_valid/2; clingo cannot call Prolog) and
% takes the candidates and their categories from here as facts; the tests check the two agree
% on every candidate rule.
%
% Data, added by Python as facts into a fresh temporary module per task (never as text):
%   relation(Rel, Category)     the nine relation types and their category
%   fact(Rel, Drug, Protein)    background fact Rel(Drug, Protein), e.g.
%                               fact(substrate_of, velorastat, kx3a1)
%   example(Kind, A, B)         Kind = pos: A and B are known to interact;
%                               Kind = neg: A and B are known not to interact
%
% A rule is a pair of relation types (R1, R2), R1 @=< R2, standing for
%     interacts(A, B) :- R1(A, P), R2(B, P).
% read symmetrically: it covers the UNORDERED example {A, B} if some protein P has
%     R1(A, P), R2(B, P)    or    R2(A, P), R1(B, P).
% A rule is valid if it covers at least one positive and no negative; it has a category only
% when both relation types share one.

:- dynamic relation/2, fact/3, example/3.

%!  covers(?R1, ?R2, ?A, ?B)
%   The rule (R1, R2) covers the pair {A, B}.
covers(R1, R2, A, B) :- fact(R1, A, P), fact(R2, B, P).
covers(R1, R2, A, B) :- fact(R2, A, P), fact(R1, B, P).

%!  covered(+R1, +R2, ?Kind, ?A, ?B)
%   Example(Kind, A, B) is covered by the rule (R1, R2); one answer per example.
covered(R1, R2, Kind, A, B) :- example(Kind, A, B), once(covers(R1, R2, A, B)).

%!  valid(+R1, +R2)
%   The rule covers at least one positive and no negative.
valid(R1, R2) :-
    once(covered(R1, R2, pos, _, _)),
    \+ covered(R1, R2, neg, _, _).

%!  rule(?R1, ?R2)
%   A candidate rule: a sorted pair of relation types, repetition allowed.
rule(R1, R2) :- relation(R1, _), relation(R2, _), R1 @=< R2.

%!  rule_category(?R1, ?R2, ?Category)
rule_category(R1, R2, C) :- relation(R1, C), relation(R2, C).

% ---- construction checks used by the generator ---------------------------------------------

%!  ill_posed_by(+Rel, +T1, +T2, +TC)
%   With the current facts, a rule involving relation Rel spoils the task whose target rule is
%   (T1, T2) of category TC: either the target covers a negative, or a rule of another category
%   than TC is valid (it would be a correct answer outside the answer pool).
ill_posed_by(Rel, T1, T2, _) :-
    ( Rel == T1 ; Rel == T2 ),
    covered(T1, T2, neg, _, _), !.
ill_posed_by(Rel, _, _, TC) :-
    rule(R1, R2),
    ( R1 == Rel ; R2 == Rel ),
    rule_category(R1, R2, C), C \== TC,
    valid(R1, R2), !.

%!  ill_posed(+T1, +T2, +TC)
%   ill_posed_by/4 for any relation.
ill_posed(T1, T2, TC) :- relation(Rel, _), ill_posed_by(Rel, T1, T2, TC), !.

%!  admissible(+Rel, +Drug, +Protein, +T1, +T2, +TC)
%   fact(Rel, Drug, Protein) is new and adding it keeps the task well-posed. The fact is
%   asserted only for the duration of the check.
admissible(Rel, Drug, Protein, T1, T2, TC) :-
    \+ fact(Rel, Drug, Protein),
    setup_call_cleanup(assertz(fact(Rel, Drug, Protein)),
                       \+ ill_posed_by(Rel, T1, T2, TC),
                       retract(fact(Rel, Drug, Protein))).

%!  pool_gain(+Rel, +Drug, +Protein, +TC, -Gain, -Size)
%   Size is the number of valid rules of category TC now (the answer pool's size); Gain the
%   number of rules of category TC that adding fact(Rel, Drug, Protein) would make valid (only
%   rules involving Rel can change). The fact is asserted only for the check.
pool_gain(Rel, Drug, Protein, TC, Gain, Size) :-
    \+ fact(Rel, Drug, Protein),
    aggregate_all(count, ( rule(R1, R2), rule_category(R1, R2, TC), valid(R1, R2) ), Size),
    findall(R1-R2, ( rule(R1, R2), ( R1 == Rel ; R2 == Rel ),
                     rule_category(R1, R2, TC), \+ valid(R1, R2) ), Candidates),
    setup_call_cleanup(assertz(fact(Rel, Drug, Protein)),
                       aggregate_all(count, ( member(R1-R2, Candidates), valid(R1, R2) ), Gain),
                       retract(fact(Rel, Drug, Protein))).

%!  pool_rules(+TC, -Rules)
%   The valid rules of category TC (the answer pool), as a sorted list of R1-R2 pairs.
pool_rules(TC, Rules) :-
    findall(R1-R2, ( rule(R1, R2), rule_category(R1, R2, TC), valid(R1, R2) ), Found),
    msort(Found, Rules).

%!  keeps_pool(+Rel, +Drug, +Protein, +T1, +T2, +TC)
%   fact(Rel, Drug, Protein) is new, keeps the task well-posed (admissible/6) and leaves the
%   answer pool of category TC as it is: no rule joins it, none leaves it. The fact is
%   asserted only for the check.
keeps_pool(Rel, Drug, Protein, T1, T2, TC) :-
    \+ fact(Rel, Drug, Protein),
    pool_rules(TC, Before),
    setup_call_cleanup(assertz(fact(Rel, Drug, Protein)),
                       ( \+ ill_posed_by(Rel, T1, T2, TC), pool_rules(TC, After) ),
                       retract(fact(Rel, Drug, Protein))),
    After == Before.
