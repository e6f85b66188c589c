% ILP problem reader (solvers/ilp/problem.py): reads a trusted Prolog file (a Popper exs.pl)
% term by term with Prolog's own reader, reporting each term with the line it starts on,
% or the first syntax error with its line. Nothing read is asserted or called.

%!  ilp_read_terms(+File, -Items) is det.
%   Items lists term(Line, Term) in file order; after a syntax error the list ends with
%   error(Line, Message) (Message a string) and the rest of the file is not read.
ilp_read_terms(File, Items) :-
    setup_call_cleanup(open(File, read, Stream, [encoding(utf8)]),
                       ilp_read_stream(Stream, Items),
                       close(Stream)).

ilp_read_stream(Stream, Items) :-
    catch(read_term(Stream, Term, [term_position(Pos)]), Error, true),
    (   nonvar(Error)
    ->  ilp_error_item(Error, Item),
        Items = [Item]
    ;   Term == end_of_file
    ->  Items = []
    ;   stream_position_data(line_count, Pos, Line),
        Items = [term(Line, Term)|Rest],
        ilp_read_stream(Stream, Rest)
    ).

ilp_error_item(error(syntax_error(What), Context), error(Line, Message)) :-
    !,
    (   ( Context = stream(_, Line0, _, _) ; Context = file(_, Line0, _, _) ),
        integer(Line0)
    ->  Line = Line0
    ;   Line = 0
    ),
    format(string(Message), "syntax error: ~w", [What]).
ilp_error_item(Error, error(0, Message)) :-
    message_to_codes(Error, Message).

message_to_codes(Error, Message) :-
    (   catch(message_to_codes_(Error, Codes), _, fail)
    ->  string_codes(Message, Codes)
    ;   format(string(Message), "~q", [Error])
    ).

message_to_codes_(Error, Codes) :-
    '$messages':translate_message(Error, Lines, []),
    with_output_to(codes(Codes), print_message_lines(current_output, '', Lines)).
