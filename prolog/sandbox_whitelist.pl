% Whitelist for untrusted (model-written) Prolog run by solvers.sandbox: the only goals a
% clause body may call besides the task's declared predicates. Read by BOTH checks: the
% Python one (solvers/sandbox_policy.py, with its own reader, before anything runs) and the
% Prolog one in the worker (prolog/sandbox.pl). Everything here is side-effect free: no I/O,
% no database or flag changes, no meta-call of runtime-built goals, no module qualification.
%
% safe_builtin(Name, Arity): a plain goal.
% safe_meta(Spec): a control construct or meta-predicate; each argument of Spec says how the
% matching argument is checked: goal (a goal, checked recursively), carets (a goal under
% V^ prefixes, as in bagof/setof) or data (not a goal, not checked).

:- module(sandbox_whitelist, [safe_builtin/2, safe_meta/1]).

safe_meta((goal, goal)).
safe_meta((goal ; goal)).
safe_meta((goal -> goal)).
safe_meta((goal *-> goal)).
safe_meta(\+ goal).
safe_meta(call(goal)).
safe_meta(once(goal)).
safe_meta(ignore(goal)).
safe_meta(forall(goal, goal)).
safe_meta(findall(data, goal, data)).
safe_meta(aggregate_all(data, goal, data)).
safe_meta(bagof(data, carets, data)).
safe_meta(setof(data, carets, data)).

% control
safe_builtin(true, 0).
safe_builtin(fail, 0).
safe_builtin(false, 0).
safe_builtin(!, 0).
% unification and comparison
safe_builtin(=, 2).
safe_builtin(\=, 2).
safe_builtin(==, 2).
safe_builtin(\==, 2).
safe_builtin(@<, 2).
safe_builtin(@>, 2).
safe_builtin(@=<, 2).
safe_builtin(@>=, 2).
safe_builtin(compare, 3).
% arithmetic
safe_builtin(is, 2).
safe_builtin(=:=, 2).
safe_builtin(=\=, 2).
safe_builtin(<, 2).
safe_builtin(>, 2).
safe_builtin(=<, 2).
safe_builtin(>=, 2).
safe_builtin(between, 3).
safe_builtin(succ, 2).
safe_builtin(plus, 3).
% type tests
safe_builtin(var, 1).
safe_builtin(nonvar, 1).
safe_builtin(atom, 1).
safe_builtin(number, 1).
safe_builtin(integer, 1).
safe_builtin(float, 1).
safe_builtin(atomic, 1).
safe_builtin(compound, 1).
safe_builtin(callable, 1).
safe_builtin(is_list, 1).
safe_builtin(ground, 1).
% term construction and inspection (building a goal is harmless: nothing can call it)
safe_builtin(functor, 3).
safe_builtin(arg, 3).
safe_builtin(=.., 2).
safe_builtin(copy_term, 2).
% atoms. Atoms live outside the Prolog stacks: atom_concat/3 (doubling an atom per inference)
% and sub_atom/5 (a long substring per inference) are not listed; the four below that make new
% atoms (atom_chars/2, atom_codes/2, upcase_atom/2, downcase_atom/2) run through the worker's
% budget of new-atom characters per run (text_goal/1 in sandbox.pl), since one shared list
% lets each call make a long new atom in one inference.
safe_builtin(atom_length, 2).
safe_builtin(atom_chars, 2).
safe_builtin(atom_codes, 2).
safe_builtin(char_code, 2).
safe_builtin(upcase_atom, 2).
safe_builtin(downcase_atom, 2).
% lists
safe_builtin(member, 2).
safe_builtin(memberchk, 2).
safe_builtin(append, 3).
safe_builtin(length, 2).
safe_builtin(nth0, 3).
safe_builtin(nth1, 3).
safe_builtin(last, 2).
safe_builtin(reverse, 2).
safe_builtin(msort, 2).
safe_builtin(sort, 2).
safe_builtin(sort, 4).
safe_builtin(list_to_set, 2).
safe_builtin(sum_list, 2).
safe_builtin(max_list, 2).
safe_builtin(min_list, 2).
safe_builtin(numlist, 3).
safe_builtin(select, 3).
safe_builtin(subtract, 3).
safe_builtin(intersection, 3).
safe_builtin(union, 3).
safe_builtin(delete, 3).
