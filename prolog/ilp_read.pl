% ILP example loader (solvers/ilp/problem.py): reads a Popper exs.pl term by term with
% Prolog's own reader and asserts each example, in file order, as
%     ilp_example(Kind, Id, Atom)      Kind = pos | neg, Id = 0, 1, ... per kind
% in the module this file is loaded into. Nothing read is called; only the counts, the
% warnings and the first error cross to Python.
%
% Tolerance, as Popper's consult of exs.pl: a first line starting with '#' is skipped (SWI's
% consult skips such a script line), and a term that does not read (syntax error) is skipped
% with a warning. Everything else that is not a ground pos(Atom) / neg(Atom) of the head
% predicate is an error (Popper would call such an example regardless of the program, so
% accepting it would change its meaning); the directives discontiguous and dynamic are
% ignored.

:- use_module(library(lists)).
:- dynamic ilp_example/3.

%!  ilp_load_examples(+File, +Head, +Arity, -Result) is det.
%   Result is loaded(NPos, NNeg, Warnings) with Warnings a list of warning(Line, Message),
%   or error(Line, Message) (the examples asserted so far stay; the caller drops the module).
ilp_load_examples(File, Head, Arity, Result) :-
    retractall(ilp_example(_, _, _)),
    setup_call_cleanup(open(File, read, Stream, [encoding(utf8)]),
                       ( ilp_skip_script_line(Stream, W0),
                         ilp_read_loop(Stream, Head/Arity, 0, 0, W0, Result) ),
                       close(Stream)).

ilp_skip_script_line(Stream, Warnings) :-
    (   peek_char(Stream, #)
    ->  skip(Stream, 10),
        Warnings = [warning(1, "a first line starting with '#' skipped (as consult does)")]
    ;   Warnings = []
    ).

ilp_read_loop(Stream, PI, P0, N0, W0, Result) :-
    catch(read_term(Stream, Term, [term_position(Pos), syntax_errors(error)]), Error, true),
    (   nonvar(Error)
    ->  (   Error = error(syntax_error(What), Context)
        ->  ilp_error_line(Context, Line),
            format(string(Message), "syntax error: ~w (term skipped)", [What]),
            ilp_read_loop(Stream, PI, P0, N0, [warning(Line, Message)|W0], Result)
        ;   ilp_message(Error, Message),
            Result = error(0, Message)
        )
    ;   Term == end_of_file
    ->  reverse(W0, Warnings),
        Result = loaded(P0, N0, Warnings)
    ;   stream_position_data(line_count, Pos, Line),
        (   ilp_example_term(Term, PI, Line, P0, N0, P1, N1, Error1)
        ->  (   var(Error1)
            ->  ilp_read_loop(Stream, PI, P1, N1, W0, Result)
            ;   Result = Error1
            )
        ;   Result = error(Line, "internal: unclassified term")
        )
    ).

%   ilp_example_term(+Term, +Head/Arity, +Line, +P0, +N0, -P, -N, -Error)
%   Error stays unbound when Term is accepted.
ilp_example_term((:- Directive), _, Line, P, N, P, N, Error) :- !,
    (   nonvar(Directive), functor(Directive, Name, 1), memberchk(Name, [discontiguous, dynamic])
    ->  true
    ;   format(string(Message), "unsupported directive ~q in an examples file", [Directive]),
        Error = error(Line, Message)
    ).
ilp_example_term(Term, PI, Line, P0, N0, P, N, Error) :-
    nonvar(Term), Term =.. [Kind, Atom], memberchk(Kind, [pos, neg]), !,
    PI = Head/Arity,
    (   \+ ( callable(Atom), functor(Atom, Head, Arity) )
    ->  format(string(Message), "example ~q is not an atom of the head predicate ~w/~w",
               [Atom, Head, Arity]),
        Error = error(Line, Message), P = P0, N = N0
    ;   \+ ground(Atom)
    ->  format(string(Message), "example ~q is not ground", [Atom]),
        Error = error(Line, Message), P = P0, N = N0
    ;   Kind == pos
    ->  assertz(ilp_example(pos, P0, Atom)), P is P0 + 1, N = N0
    ;   assertz(ilp_example(neg, N0, Atom)), N is N0 + 1, P = P0
    ).
ilp_example_term(Term, _, Line, P, N, P, N, error(Line, Message)) :-
    format(string(Message), "expected pos(Atom) or neg(Atom), got ~q", [Term]).

ilp_error_line(Context, Line) :-
    (   ( Context = stream(_, Line0, _, _) ; Context = file(_, Line0, _, _) ),
        integer(Line0)
    ->  Line = Line0
    ;   Line = 0
    ).

ilp_message(Error, Message) :-
    (   catch(message_to_codes(Error, Codes), _, fail)
    ->  string_codes(Message, Codes)
    ;   format(string(Message), "~q", [Error])
    ).

message_to_codes(Error, Codes) :-
    '$messages':translate_message(Error, Lines, []),
    with_output_to(codes(Codes), print_message_lines(current_output, '', Lines)).

%!  ilp_examples(+Kind, -Atoms) is det.
%   The atoms of Kind in id order (the slow path, for callers that want Python tuples).
ilp_examples(Kind, Atoms) :-
    findall(Atom, ilp_example(Kind, _, Atom), Atoms).
