% Bridge between Python (solvers.prolog) and SWI-Prolog. Both Python bridges (pyswip and
% janus-swi) call ONE fixed goal, scir_bridge:invoke(Op, Args, Result), with data bindings;
% no data is ever formatted into goal text. Data crosses in "wire" form: text, numbers and
% tagged lists (see solvers/prolog/terms.py), decoded to terms here; answers are encoded
% back the same way, with text always as strings. Every error is caught and returned as data,
% ["error", Kind, Message] with Kind one of input, timeout, resource, violation, error.
% Operations: version, new_module, destroy_module, load, add_clauses, declare_dynamic, run,
% call; other files add operations through the multifile operation/3 (see sandbox.pl).

:- module(scir_bridge, [invoke/3, wire_term/2, wire_term/4, text_atom/2]).

:- use_module(library(apply)).
:- use_module(library(lists)).
:- use_module(library(option)).
:- use_module(library(pairs)).
:- use_module(library(solution_sequences)).
:- use_module(library(terms)).
:- use_module(library(time)).
:- use_module(bounded_terms).
:- use_module(answer_limits).

:- multifile operation/3.
:- dynamic loaded_source/2.
:- thread_local capturing/0, captured/1.

%!  invoke(+Op, +Args, -Result) is det.
%   Result is ["ok", Payload] or ["error", Kind, Message].
invoke(Op0, Args, Result) :-
    catch(invoke_(Op0, Args, Result), E, error_result(E, Result)).

invoke_(Op0, Args, ["ok", Payload]) :-
    text_atom(Op0, Op),
    (   operation(Op, Args, Payload0)
    ->  Payload = Payload0
    ;   throw(scir_error(error, "bridge operation ~w failed or is unknown"-[Op]))
    ).

error_result(E, ["error", Kind, Message]) :-
    error_kind(E, Kind0),
    atom_string(Kind0, Kind),
    bounded_copy(E, 24, Shown),
    (   catch(error_message(Shown, Message0), _, fail)
    ->  Message = Message0
    ;   Message = "an error that cannot be printed"
    ).

error_kind(scir_error(Kind, _), Kind) :- !.
error_kind(time_limit_exceeded, timeout) :- !.
error_kind(error(resource_error(_), _), resource) :- !.
error_kind(error(syntax_error(_), _), input) :- !.
error_kind(error(existence_error(procedure, _), _), input) :- !.
error_kind(_, error).

error_message(scir_error(_, Format-Args), Message) :- !,
    format(string(Message), Format, Args).
error_message(scir_error(_, Text), Message) :- !,
    text_to_string(Text, Message).
error_message(time_limit_exceeded, "time limit exceeded") :- !.
error_message(E, Message) :-
    (   catch(message_text(E, Text), _, fail)
    ->  true
    ;   format(string(Text), "~q", [E])
    ),
    (   string_length(Text, Len), Len > 2000
    ->  sub_string(Text, 0, 2000, _, Short),
        string_concat(Short, " ...", Message)
    ;   Message = Text
    ).

message_text(E, Text) :-
    phrase('$messages':translate_message(E), Lines),
    with_output_to(string(Raw), print_message_lines(current_output, '', Lines)),
    split_string(Raw, "", " \n\t", [Text]).

%!  text_atom(+Text, -Atom) is det.
%   Text arrives as an atom (janus, pyswip) or a string.
text_atom(T, A) :- atom(T), !, A = T.
text_atom(T, A) :- string(T), !, atom_string(A, T).
text_atom(T, _) :- throw(scir_error(error, "bridge expected text, got ~q"-[T])).

%!  wire_term(+Wire, -Term) is det.
%!  wire_term(+Wire, -Term, +Vars0, -Vars) is det.
%   Plain text is an atom, a plain number itself; lists are tagged nodes. Vars is a list
%   Name-Var: equal names in one call denote one variable.
wire_term(W, T) :- wire_term(W, T, [], _).

wire_term(W, T, V, V) :- atom(W), !, T = W.
wire_term(W, T, V, V) :- string(W), !, atom_string(T, W).
wire_term(W, T, V, V) :- number(W), !, T = W.
wire_term([Tag0|Rest], T, V0, V) :- !,
    text_atom(Tag0, Tag),
    (   wire_term_(Tag, Rest, T, V0, V)
    ->  true
    ;   throw(scir_error(error, "malformed wire value ~q"-[[Tag0|Rest]]))
    ).
wire_term(W, _, _, _) :-
    throw(scir_error(error, "malformed wire value ~q"-[W])).

wire_term_('I', [X], N, V, V) :- text_to_string(X, S), number_string(N, S), integer(N).
wire_term_(f, [Nodes], T, V0, V) :-
    flat_nodes(Nodes, [], Stack, V0, V),
    Stack = [T].
wire_term_(l, [Ws], L, V0, V) :- wire_list(Ws, L, V0, V).
wire_term_(c, [Name, Ws], T, V0, V) :-
    text_atom(Name, N),
    wire_list(Ws, Args, V0, V),
    compound_name_arguments(T, N, Args).
wire_term_(v, [Name], T, V0, V) :-
    text_atom(Name, K),
    (   memberchk(K-T0, V0)
    ->  T = T0, V = V0
    ;   V = [K-T|V0]
    ).

%   The flat form: leaves and ["c", Name, N] / ["l", N] nodes in post-order; a node takes the
%   N values before it. Decoded with a stack, so no depth is too deep for the decoder.
flat_nodes([], S, S, V, V).
flat_nodes([W|Ws], S0, S, V0, V) :-
    flat_node(W, S0, S1, V0, V1),
    flat_nodes(Ws, S1, S, V1, V).

flat_node([Tag0|Rest], S0, S, V0, V) :-
    text_atom(Tag0, Tag),
    memberchk(Tag, [c, l]),
    !,
    (   flat_pop(Tag, Rest, S0, S)
    ->  V = V0
    ;   throw(scir_error(error, "malformed flat wire node ~q"-[[Tag0|Rest]]))
    ).
flat_node(W, S, [T|S], V0, V) :-
    wire_term(W, T, V0, V).

flat_pop(c, [Name, N], S0, [T|S]) :-
    integer(N), N > 0,
    text_atom(Name, F),
    length(Rev, N),
    append(Rev, S, S0),
    reverse(Rev, Args),
    compound_name_arguments(T, F, Args).
flat_pop(l, [N], S0, [L|S]) :-
    integer(N), N >= 0,
    length(Rev, N),
    append(Rev, S, S0),
    reverse(Rev, L).

wire_list([], [], V, V).
wire_list([W|Ws], [T|Ts], V0, V) :-
    wire_term(W, T, V0, V1),
    wire_list(Ws, Ts, V1, V).

%!  term_wire(+Term, +Vars, -Wire) is det.
%   Vars lists the answer's variables; the I-th is sent as "_G<I>".
term_wire(T, Vs, ["v", Name]) :- var(T), !,
    var_index(Vs, T, 1, I),
    format(string(Name), "_G~d", [I]).
term_wire([], _, ["l", []]) :- !.
term_wire(T, Vs, ["l", Ws]) :- is_list(T), !,
    maplist(term_wire_(Vs), T, Ws).
term_wire(T, _, S) :- atom(T), !, atom_string(T, S).
term_wire(T, _, T) :- string(T), !.
term_wire(T, _, W) :- integer(T), !,
    (   T >= -(2**63), T =< 2**63 - 1
    ->  W = T
    ;   number_string(T, S), W = ["I", S]
    ).
term_wire(T, _, T) :- float(T), !.
term_wire(T, Vs, ["c", NameS, Ws]) :- compound(T), !,
    compound_name_arguments(T, Name, Args),
    atom_string(Name, NameS),
    maplist(term_wire_(Vs), Args, Ws).
term_wire(T, _, S) :-                       % rationals, blobs: their printed form
    format(string(S), "~q", [T]).

term_wire_(Vs, T, W) :- term_wire(T, Vs, W).

var_index([V|Vs], X, I0, I) :-
    (   V == X
    ->  I = I0
    ;   I1 is I0 + 1,
        var_index(Vs, X, I1, I)
    ).

		 /*******************************
		 *          OPERATIONS          *
		 *******************************/

operation(version, [], Version) :-
    current_prolog_flag(version, Version).
operation(new_module, [Prefix0], Name) :-
    text_atom(Prefix0, Prefix),
    fresh_module(Prefix, M),
    atom_string(M, Name).
operation(destroy_module, [M0], 1) :-
    temp_module(M0, M),
    destroy_module(M).
operation(load, [M0, Path0], 1) :-
    temp_module(M0, M),
    text_atom(Path0, Path),
    load_into(M, Path).
operation(load_global, [Path0], 1) :-
    text_atom(Path0, Path),
    capture_errors(Path, use_module(Path)).
operation(add_clauses, [M0, Clauses], N) :-
    temp_module(M0, M),
    foldl(add_clause(M), Clauses, 0, N).
operation(declare_dynamic, [M0, Name0, Arity], 1) :-
    temp_module(M0, M),
    text_atom(Name0, Name),
    dynamic(M:Name/Arity).
operation(run, [M0, GoalText, Bindings, Options0], [Solutions, Inferences, Seconds]) :-
    temp_module(M0, M),
    options(Options0, Options),
    parse_goal(M, GoalText, Goal, VarNames),
    bind_inputs(Bindings, VarNames, Outputs),
    run_goal(M:Goal, Outputs, Options, Solutions, Inferences, Seconds).
operation(call, [M0, Name0, Args, Options0], [Solutions, Inferences, Seconds]) :-
    temp_module(M0, M),
    text_atom(Name0, Name),
    options(Options0, Options),
    wire_list(Args, Terms, [], _),
    Goal =.. [Name|Terms],
    run_goal(M:Goal, [], Options, Solutions, Inferences, Seconds).

%   Operations work only on the temporary modules made by new_module.
temp_module(M0, M) :-
    text_atom(M0, M),
    (   catch(module_property(M, class(temporary)), _, fail)
    ->  true
    ;   throw(scir_error(error, "~w is not a temporary module of the bridge"-[M]))
    ).

fresh_module(Prefix, M) :-
    repeat,
    gensym(Prefix, M),
    \+ current_module(M),
    !,
    set_module(M:class(temporary)),
    set_module(M:base(system)).

destroy_module(M) :-
    forall(retract(loaded_source(M, Id)), catch(unload_file(Id), _, true)),
    forall(( current_predicate(M:Name/Arity),
             functor(Head, Name, Arity),
             \+ predicate_property(M:Head, imported_from(_)) ),
           catch(abolish(M:Name/Arity), _, true)),
    (   catch(current_predicate(system:'$destroy_module'/1), _, fail)
    ->  retractall(system:'$load_context_module'(_, M, _)),
        catch('$destroy_module'(M), _, true)
    ;   true
    ).

%   A module file is loaded once, globally, and imported; any other file is loaded into M
%   under a source id unique to M, so the same file can live in several modules at once.
load_into(M, Path) :-
    (   module_file(Path)
    ->  capture_errors(Path, M:use_module(Path))
    ;   atomic_list_concat([Path, '#', M], Id),
        setup_call_cleanup(
            open(Path, read, In, [encoding(utf8)]),
            capture_errors(Path, load_files(M:Id, [stream(In), silent(true)])),
            close(In)),
        assertz(loaded_source(M, Id))
    ).

module_file(Path) :-
    setup_call_cleanup(open(Path, read, In, [encoding(utf8)]),
                       catch(read_term(In, First, []), _, fail),
                       close(In)),
    nonvar(First),
    First = (:- module(_, _)).

capture_errors(File, Goal) :-
    retractall(captured(_)),
    setup_call_cleanup(assertz(capturing), Goal, retractall(capturing)),
    findall(E, retract(captured(E)), Errors),
    (   Errors = [First|_]
    ->  length(Errors, N),
        (catch(message_text(First, Text), _, fail) -> true ; format(string(Text), "~q", [First])),
        throw(scir_error(input, "~w: ~d error(s) while loading; first: ~w"-[File, N, Text]))
    ;   true
    ).

:- multifile user:message_hook/3.
user:message_hook(Term, error, _Lines) :-
    scir_bridge:capturing,
    !,
    assertz(scir_bridge:captured(Term)).

add_clause(M, Wire, N0, N) :-
    wire_term(Wire, Clause),
    assertz(M:Clause),
    N is N0 + 1.

options(Pairs, Options) :-
    maplist(option_pair, Pairs, Options).
option_pair([Key0, Value], Option) :-
    text_atom(Key0, Key),
    Option =.. [Key, Value].

parse_goal(M, Text, Goal, VarNames) :-
    text_to_string(Text, String),
    term_string(Goal, String, [variable_names(VarNames), module(M), syntax_errors(error)]),
    (   callable(Goal)
    ->  true
    ;   throw(scir_error(input, "goal is not callable: ~s"-[String]))
    ).

%   Bind the goal's variables named in Bindings; Outputs are the other named variables
%   (those not starting with an underscore), as Name-Var.
bind_inputs(Bindings, VarNames, Outputs) :-
    foldl(bind_input(VarNames), Bindings, [], _),
    maplist(binding_name, Bindings, Inputs),
    include(output_var(Inputs), VarNames, Named),
    maplist(eq_pair, Named, Outputs).

binding_name([Name0, _], Name) :- text_atom(Name0, Name).
output_var(Inputs, Name=_) :-
    \+ memberchk(Name, Inputs),
    \+ sub_atom(Name, 0, 1, _, '_').
eq_pair(Name=Var, Name-Var).

bind_input(VarNames, [Name0, Wire], V0, V) :-
    text_atom(Name0, Name),
    (   memberchk(Name=Var, VarNames)
    ->  true
    ;   throw(scir_error(input, "binding for ~w, which is not a variable of the goal"-[Name]))
    ),
    wire_term(Wire, Value, V0, V),
    (   Var = Value
    ->  true
    ;   throw(scir_error(input, "binding for ~w conflicts with the goal"-[Name]))
    ).

%!  run_goal(+Goal, +Outputs, +Options, -Solutions, -Inferences, -Seconds) is det.
%   Options: time_limit(S), inference_limit(N), max_solutions(N), max_cells(N),
%   max_depth(N), max_text(N) (characters of atoms and strings in the answers).
run_goal(Goal, Outputs, Options, Solutions, Inferences, Seconds) :-
    pairs_keys_values(Outputs, Names, Vars),
    (   option(max_solutions(Max), Options)
    ->  Collect = findall(Vars, limit(Max, Goal), Raw)
    ;   Collect = findall(Vars, Goal, Raw)
    ),
    statistics(inferences, I0),
    get_time(T0),
    with_limits(Options, Collect),
    get_time(T1),
    statistics(inferences, I1),
    Inferences is I1 - I0,
    Seconds is T1 - T0,
    check_answers(Raw, Options),
    maplist(encode_solution(Names), Raw, Solutions).

with_limits(Options, Goal) :-
    (   option(inference_limit(L), Options)
    ->  G1 = inference_limited(L, Goal)
    ;   G1 = Goal
    ),
    (   option(time_limit(T), Options)
    ->  call_with_time_limit(T, G1)
    ;   call(G1)
    ).

inference_limited(Limit, Goal) :-
    call_with_inference_limit(Goal, Limit, Result),
    (   Result == inference_limit_exceeded
    ->  throw(scir_error(resource, "inference limit of ~D exceeded"-[Limit]))
    ;   true
    ).

encode_solution(Names, Values, Pairs) :-
    term_variables(Values, Vs),
    maplist(encode_pair(Vs), Names, Values, Pairs).

encode_pair(Vs, Name, Value, [NameS, Wire]) :-
    atom_string(Name, NameS),
    term_wire(Value, Vs, Wire).
