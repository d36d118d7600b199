function __resv_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __resv_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __resv_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __resv_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __resv_parse_tokens -S
    set -l unparsed_tokens (__resv_tokens -pc)
    switch $unparsed_tokens[1]
    case 'resv'
        __resv_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'list'
            __resv_parse_subcommand 0 'status=+' 'all' 'l/landmark=' 'from=' 'to=' 'sort=' 'reverse' 'limit=' 'store=' 'server=' 'profile=' 'config=' 'offline' 'json' 'format=' 'v/verbose' 'tz=' 'version' 'h/help'
        case 'reserve'
            __resv_parse_subcommand 0 'l/landmark=' 'd/date=' 'note=' 'n/party-size=' 'batch=' 'pending' 'hold=' 'waitlist' 'idempotency-key=' 'store=' 'server=' 'profile=' 'config=' 'offline' 'json' 'format=' 'v/verbose' 'tz=' 'version' 'h/help'
        case 'cancel'
            __resv_parse_subcommand -r 1 'store=' 'server=' 'profile=' 'config=' 'offline' 'json' 'format=' 'v/verbose' 'tz=' 'version' 'h/help'
        case 'confirm'
            __resv_parse_subcommand -r 1 'store=' 'server=' 'profile=' 'config=' 'offline' 'json' 'format=' 'v/verbose' 'tz=' 'version' 'h/help'
        case 'modify'
            __resv_parse_subcommand 1 'd/date=' 'n/party-size=' 'l/landmark=' 'note=' 'store=' 'server=' 'profile=' 'config=' 'offline' 'json' 'format=' 'v/verbose' 'tz=' 'version' 'h/help'
        case 'log'
            __resv_parse_subcommand 1 'limit=' 'from=' 'to=' 'store=' 'server=' 'profile=' 'config=' 'offline' 'json' 'format=' 'v/verbose' 'tz=' 'version' 'h/help'
        case 'undo'
            __resv_parse_subcommand 0 'store=' 'server=' 'profile=' 'config=' 'offline' 'json' 'format=' 'v/verbose' 'tz=' 'version' 'h/help'
        case 'show'
            __resv_parse_subcommand 1 'store=' 'server=' 'profile=' 'config=' 'offline' 'json' 'format=' 'v/verbose' 'tz=' 'version' 'h/help'
        case 'watch'
            __resv_parse_subcommand 0 'after=' 'no-follow' 'timeout=' 'store=' 'server=' 'profile=' 'config=' 'offline' 'json' 'format=' 'v/verbose' 'tz=' 'version' 'h/help'
        case 'wait'
            __resv_parse_subcommand 1 'for=' 'timeout=' 'store=' 'server=' 'profile=' 'config=' 'offline' 'json' 'format=' 'v/verbose' 'tz=' 'version' 'h/help'
        case 'availability'
            __resv_parse_subcommand 1 'from=' 'to=' 'store=' 'server=' 'profile=' 'config=' 'offline' 'json' 'format=' 'v/verbose' 'tz=' 'version' 'h/help'
        case 'fetch'
            __resv_parse_subcommand 0 'store=' 'server=' 'profile=' 'config=' 'offline' 'json' 'format=' 'v/verbose' 'tz=' 'version' 'h/help'
        case 'landmarks'
            __resv_parse_subcommand 0 'store=' 'server=' 'profile=' 'config=' 'offline' 'json' 'format=' 'v/verbose' 'tz=' 'version' 'h/help'
        case 'config'
            __resv_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'list'
                __resv_parse_subcommand 0 'profile=' 'config=' 'json' 'version' 'h/help'
            case 'get'
                __resv_parse_subcommand 1 'profile=' 'config=' 'version' 'h/help'
            case 'set'
                __resv_parse_subcommand 2 'profile=' 'config=' 'version' 'h/help'
            case 'unset'
                __resv_parse_subcommand 1 'profile=' 'config=' 'version' 'h/help'
            case 'use'
                __resv_parse_subcommand 1 'config=' 'version' 'h/help'
            case 'remove'
                __resv_parse_subcommand 1 'config=' 'version' 'h/help'
            case 'path'
                __resv_parse_subcommand 0 'profile=' 'config=' 'version' 'h/help'
            end
        case 'repl'
            __resv_parse_subcommand 0 'stop-on-error' 'store=' 'server=' 'profile=' 'config=' 'offline' 'version' 'h/help'
        case 'whoami'
            __resv_parse_subcommand 0 'store=' 'server=' 'profile=' 'config=' 'offline' 'json' 'format=' 'v/verbose' 'tz=' 'version' 'h/help'
        case 'help'
            __resv_parse_subcommand -r 1 'version'
        end
    end
end

function __resv_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __resv_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __resv_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __resv_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__resv_tokens -p)
    if test -z "$(__resv_tokens -t)"
        set -l index (count (__resv_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'resv' -f
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv" -eq 1' -fa 'list' -d 'List reservations, sorted by date (active ones unless asked otherwise).'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv" -eq 1' -fa 'reserve' -d 'Reserve a visit to a landmark and print the new reservation.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv" -eq 1' -fa 'cancel' -d 'Cancel reservations; they stay in the history as cancelled.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv" -eq 1' -fa 'confirm' -d 'Confirm pending reservations.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv" -eq 1' -fa 'modify' -d 'Change a reservation\'s date, party size, landmark or note in one step.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv" -eq 1' -fa 'log' -d 'Show the history of changes, newest first.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv" -eq 1' -fa 'undo' -d 'Take back the last command that changed reservations.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv" -eq 1' -fa 'show' -d 'Show one reservation.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv" -eq 1' -fa 'watch' -d 'Print changes to your reservations as they happen.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv" -eq 1' -fa 'wait' -d 'Wait until a reservation has a status.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv" -eq 1' -fa 'availability' -d 'Show the places taken and left at a landmark, day by day.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv" -eq 1' -fa 'fetch' -d 'Read everything from the backend afresh and report what maps and what is skipped.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv" -eq 1' -fa 'landmarks' -d 'List the landmarks of the active backend.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv" -eq 1' -fa 'config' -d 'Show and change settings (store, server, token, timeouts) and profiles.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv" -eq 1' -fa 'repl' -d 'An interactive prompt: type commands as on the shell, without \'resv\'.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv" -eq 1' -fa 'whoami' -d 'Show the server user the token belongs to.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv list"' -l 'status' -d 'Only reservations with this status; repeat for several.' -rfka 'pending confirmed cancelled held expired waitlisted'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv list" all' -l 'all' -d 'Include cancelled reservations and expired holds.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv list" l landmark' -l 'landmark' -s 'l' -d 'Only reservations at this landmark (id, id prefix, name or the starts of its words).' -rfka '(__resv_custom_completion ---completion list -- --landmark (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv list" from' -l 'from' -d 'Only reservations on or after this day or time: 2026-12-01, today, +7d, -7d, 2026-12-01 10:00.' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv list" to' -l 'to' -d 'Only reservations on or before this day (all of it) or time.' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv list" sort' -l 'sort' -d 'The order: date, landmark, party-size or status (default: date).' -rfka 'date landmark party-size status'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv list" reverse' -l 'reverse' -d 'The opposite order (latest first with the default sort).'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv list" limit' -l 'limit' -d 'Show at most this many (1 or more), after sorting.' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv list" store' -l 'store' -d 'The JSON store file (default: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv list" server' -l 'server' -d 'A resv-server to use instead of the file (default: $RESV_SERVER, else the config file\'s server).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv list" profile' -l 'profile' -d 'The config file\'s profile to use (default: $RESV_PROFILE, else the one \'resv config use\' chose).' -rfka '(__resv_custom_completion ---completion list -- --profile (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv list" config' -l 'config' -d 'The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv list" offline' -l 'offline' -d 'Read the server\'s answers cached by earlier commands; never use the network.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv list" json' -l 'json' -d 'Print JSON (same as --format json).'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv list" format' -l 'format' -d 'Output format (default: table): json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).' -rfka 'table json ndjson csv ics'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv list" v verbose' -l 'verbose' -s 'v' -d 'List every skipped record with its reason.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv list" tz' -l 'tz' -d 'Show times in this zone: local (TZ), utc or an IANA zone such as Europe/Paris (default: a visit at its landmark\'s time, a change in TZ).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv list" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv reserve" l landmark' -l 'landmark' -s 'l' -d 'The landmark: id, id prefix, name, or the starts of its words (golden gate).' -rfka '(__resv_custom_completion ---completion reserve -- --landmark (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv reserve" d date' -l 'date' -s 'd' -d 'When, at the landmark: 2026-12-01 10:00, tomorrow 09:30, +3d 14:00, fri 09:00, or with a zone 2026-12-01T10:00:00Z.' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv reserve" note' -l 'note' -d 'A note kept with the reservation (at most 500 characters).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv reserve" n party-size' -l 'party-size' -s 'n' -d 'How many people (1 to 10,000).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv reserve" batch' -l 'batch' -d 'Reserve every request in this file (\'-\' for standard input), one JSON object per line.' -rF
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv reserve" pending' -l 'pending' -d 'Book as pending (to confirm later with \'resv confirm\') instead of confirmed.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv reserve" hold' -l 'hold' -d 'Hold the places this long (90s, 10m, 2h; 1s to 24h) until confirmed with \'resv confirm\'.' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv reserve" waitlist' -l 'waitlist' -d 'When the day is full, join its waitlist instead of being refused.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv reserve" idempotency-key' -l 'idempotency-key' -d 'On a server: the Idempotency-Key of this booking, so a script that retries it never books twice (1 to 255 printable ASCII characters, no spaces; default: a new key per run; a batch is one request with this key).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv reserve" store' -l 'store' -d 'The JSON store file (default: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv reserve" server' -l 'server' -d 'A resv-server to use instead of the file (default: $RESV_SERVER, else the config file\'s server).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv reserve" profile' -l 'profile' -d 'The config file\'s profile to use (default: $RESV_PROFILE, else the one \'resv config use\' chose).' -rfka '(__resv_custom_completion ---completion reserve -- --profile (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv reserve" config' -l 'config' -d 'The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv reserve" offline' -l 'offline' -d 'Read the server\'s answers cached by earlier commands; never use the network.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv reserve" json' -l 'json' -d 'Print JSON (same as --format json).'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv reserve" format' -l 'format' -d 'Output format (default: table): json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).' -rfka 'table json ndjson csv ics'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv reserve" v verbose' -l 'verbose' -s 'v' -d 'List every skipped record with its reason.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv reserve" tz' -l 'tz' -d 'Show times in this zone: local (TZ), utc or an IANA zone such as Europe/Paris (default: a visit at its landmark\'s time, a change in TZ).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv reserve" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv reserve" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv cancel" -ge 1' -fka '(__resv_custom_completion ---completion cancel -- positional@0 (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv cancel" store' -l 'store' -d 'The JSON store file (default: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv cancel" server' -l 'server' -d 'A resv-server to use instead of the file (default: $RESV_SERVER, else the config file\'s server).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv cancel" profile' -l 'profile' -d 'The config file\'s profile to use (default: $RESV_PROFILE, else the one \'resv config use\' chose).' -rfka '(__resv_custom_completion ---completion cancel -- --profile (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv cancel" config' -l 'config' -d 'The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv cancel" offline' -l 'offline' -d 'Read the server\'s answers cached by earlier commands; never use the network.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv cancel" json' -l 'json' -d 'Print JSON (same as --format json).'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv cancel" format' -l 'format' -d 'Output format (default: table): json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).' -rfka 'table json ndjson csv ics'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv cancel" v verbose' -l 'verbose' -s 'v' -d 'List every skipped record with its reason.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv cancel" tz' -l 'tz' -d 'Show times in this zone: local (TZ), utc or an IANA zone such as Europe/Paris (default: a visit at its landmark\'s time, a change in TZ).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv cancel" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv cancel" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv confirm" -ge 1' -fka '(__resv_custom_completion ---completion confirm -- positional@0 (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv confirm" store' -l 'store' -d 'The JSON store file (default: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv confirm" server' -l 'server' -d 'A resv-server to use instead of the file (default: $RESV_SERVER, else the config file\'s server).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv confirm" profile' -l 'profile' -d 'The config file\'s profile to use (default: $RESV_PROFILE, else the one \'resv config use\' chose).' -rfka '(__resv_custom_completion ---completion confirm -- --profile (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv confirm" config' -l 'config' -d 'The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv confirm" offline' -l 'offline' -d 'Read the server\'s answers cached by earlier commands; never use the network.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv confirm" json' -l 'json' -d 'Print JSON (same as --format json).'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv confirm" format' -l 'format' -d 'Output format (default: table): json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).' -rfka 'table json ndjson csv ics'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv confirm" v verbose' -l 'verbose' -s 'v' -d 'List every skipped record with its reason.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv confirm" tz' -l 'tz' -d 'Show times in this zone: local (TZ), utc or an IANA zone such as Europe/Paris (default: a visit at its landmark\'s time, a change in TZ).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv confirm" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv confirm" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv modify" -eq 1' -fka '(__resv_custom_completion ---completion modify -- positional@0 (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv modify" d date' -l 'date' -s 'd' -d 'The new date, in the future, at the landmark: 2026-12-01 10:00, tomorrow 09:30, fri 09:00, or with a zone 2026-12-01T10:00:00Z.' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv modify" n party-size' -l 'party-size' -s 'n' -d 'The new number of people (1 to 10,000).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv modify" l landmark' -l 'landmark' -s 'l' -d 'The new landmark: id, id prefix, name or the starts of its words.' -rfka '(__resv_custom_completion ---completion modify -- --landmark (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv modify" note' -l 'note' -d 'A note kept with the reservation (at most 500 characters; "" removes it).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv modify" store' -l 'store' -d 'The JSON store file (default: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv modify" server' -l 'server' -d 'A resv-server to use instead of the file (default: $RESV_SERVER, else the config file\'s server).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv modify" profile' -l 'profile' -d 'The config file\'s profile to use (default: $RESV_PROFILE, else the one \'resv config use\' chose).' -rfka '(__resv_custom_completion ---completion modify -- --profile (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv modify" config' -l 'config' -d 'The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv modify" offline' -l 'offline' -d 'Read the server\'s answers cached by earlier commands; never use the network.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv modify" json' -l 'json' -d 'Print JSON (same as --format json).'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv modify" format' -l 'format' -d 'Output format (default: table): json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).' -rfka 'table json ndjson csv ics'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv modify" v verbose' -l 'verbose' -s 'v' -d 'List every skipped record with its reason.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv modify" tz' -l 'tz' -d 'Show times in this zone: local (TZ), utc or an IANA zone such as Europe/Paris (default: a visit at its landmark\'s time, a change in TZ).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv modify" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv modify" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv log" -eq 1' -fka '(__resv_custom_completion ---completion log -- positional@0 (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv log" limit' -l 'limit' -d 'Show the newest this many changes (1 or more).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv log" from' -l 'from' -d 'Only changes made on or after this day or time: 2026-12-01, today, -7d, 2026-12-01 10:00.' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv log" to' -l 'to' -d 'Only changes made on or before this day (all of it) or time.' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv log" store' -l 'store' -d 'The JSON store file (default: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv log" server' -l 'server' -d 'A resv-server to use instead of the file (default: $RESV_SERVER, else the config file\'s server).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv log" profile' -l 'profile' -d 'The config file\'s profile to use (default: $RESV_PROFILE, else the one \'resv config use\' chose).' -rfka '(__resv_custom_completion ---completion log -- --profile (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv log" config' -l 'config' -d 'The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv log" offline' -l 'offline' -d 'Read the server\'s answers cached by earlier commands; never use the network.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv log" json' -l 'json' -d 'Print JSON (same as --format json).'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv log" format' -l 'format' -d 'Output format (default: table): json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).' -rfka 'table json ndjson csv ics'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv log" v verbose' -l 'verbose' -s 'v' -d 'List every skipped record with its reason.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv log" tz' -l 'tz' -d 'Show times in this zone: local (TZ), utc or an IANA zone such as Europe/Paris (default: a visit at its landmark\'s time, a change in TZ).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv log" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv log" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv undo" store' -l 'store' -d 'The JSON store file (default: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv undo" server' -l 'server' -d 'A resv-server to use instead of the file (default: $RESV_SERVER, else the config file\'s server).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv undo" profile' -l 'profile' -d 'The config file\'s profile to use (default: $RESV_PROFILE, else the one \'resv config use\' chose).' -rfka '(__resv_custom_completion ---completion undo -- --profile (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv undo" config' -l 'config' -d 'The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv undo" offline' -l 'offline' -d 'Read the server\'s answers cached by earlier commands; never use the network.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv undo" json' -l 'json' -d 'Print JSON (same as --format json).'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv undo" format' -l 'format' -d 'Output format (default: table): json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).' -rfka 'table json ndjson csv ics'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv undo" v verbose' -l 'verbose' -s 'v' -d 'List every skipped record with its reason.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv undo" tz' -l 'tz' -d 'Show times in this zone: local (TZ), utc or an IANA zone such as Europe/Paris (default: a visit at its landmark\'s time, a change in TZ).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv undo" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv undo" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv show" -eq 1' -fka '(__resv_custom_completion ---completion show -- positional@0 (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv show" store' -l 'store' -d 'The JSON store file (default: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv show" server' -l 'server' -d 'A resv-server to use instead of the file (default: $RESV_SERVER, else the config file\'s server).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv show" profile' -l 'profile' -d 'The config file\'s profile to use (default: $RESV_PROFILE, else the one \'resv config use\' chose).' -rfka '(__resv_custom_completion ---completion show -- --profile (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv show" config' -l 'config' -d 'The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv show" offline' -l 'offline' -d 'Read the server\'s answers cached by earlier commands; never use the network.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv show" json' -l 'json' -d 'Print JSON (same as --format json).'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv show" format' -l 'format' -d 'Output format (default: table): json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).' -rfka 'table json ndjson csv ics'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv show" v verbose' -l 'verbose' -s 'v' -d 'List every skipped record with its reason.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv show" tz' -l 'tz' -d 'Show times in this zone: local (TZ), utc or an IANA zone such as Europe/Paris (default: a visit at its landmark\'s time, a change in TZ).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv show" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv show" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv watch" after' -l 'after' -d 'Start just after this change: a cursor watch printed.' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv watch" no-follow' -l 'no-follow' -d 'Print the changes there are, then exit.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv watch" timeout' -l 'timeout' -d 'Stop after this many seconds (exit 0).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv watch" store' -l 'store' -d 'The JSON store file (default: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv watch" server' -l 'server' -d 'A resv-server to use instead of the file (default: $RESV_SERVER, else the config file\'s server).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv watch" profile' -l 'profile' -d 'The config file\'s profile to use (default: $RESV_PROFILE, else the one \'resv config use\' chose).' -rfka '(__resv_custom_completion ---completion watch -- --profile (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv watch" config' -l 'config' -d 'The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv watch" offline' -l 'offline' -d 'Read the server\'s answers cached by earlier commands; never use the network.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv watch" json' -l 'json' -d 'Print JSON (same as --format json).'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv watch" format' -l 'format' -d 'Output format (default: table): json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).' -rfka 'table json ndjson csv ics'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv watch" v verbose' -l 'verbose' -s 'v' -d 'List every skipped record with its reason.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv watch" tz' -l 'tz' -d 'Show times in this zone: local (TZ), utc or an IANA zone such as Europe/Paris (default: a visit at its landmark\'s time, a change in TZ).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv watch" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv watch" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv wait" -eq 1' -fka '(__resv_custom_completion ---completion wait -- positional@0 (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv wait" for' -l 'for' -d 'The status to wait for: pending, confirmed, cancelled, held, expired, waitlisted.' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv wait" timeout' -l 'timeout' -d 'Give up after this many seconds (default 300): exit 1.' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv wait" store' -l 'store' -d 'The JSON store file (default: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv wait" server' -l 'server' -d 'A resv-server to use instead of the file (default: $RESV_SERVER, else the config file\'s server).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv wait" profile' -l 'profile' -d 'The config file\'s profile to use (default: $RESV_PROFILE, else the one \'resv config use\' chose).' -rfka '(__resv_custom_completion ---completion wait -- --profile (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv wait" config' -l 'config' -d 'The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv wait" offline' -l 'offline' -d 'Read the server\'s answers cached by earlier commands; never use the network.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv wait" json' -l 'json' -d 'Print JSON (same as --format json).'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv wait" format' -l 'format' -d 'Output format (default: table): json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).' -rfka 'table json ndjson csv ics'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv wait" v verbose' -l 'verbose' -s 'v' -d 'List every skipped record with its reason.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv wait" tz' -l 'tz' -d 'Show times in this zone: local (TZ), utc or an IANA zone such as Europe/Paris (default: a visit at its landmark\'s time, a change in TZ).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv wait" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv wait" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv availability" -eq 1' -fka '(__resv_custom_completion ---completion availability -- positional@0 (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv availability" from' -l 'from' -d 'The first day at the landmark: YYYY-MM-DD, today, tomorrow, +3d, +2w (a date-time counts as its day there); default today.' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv availability" to' -l 'to' -d 'The last day, as --from; default 13 days after the first.' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv availability" store' -l 'store' -d 'The JSON store file (default: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv availability" server' -l 'server' -d 'A resv-server to use instead of the file (default: $RESV_SERVER, else the config file\'s server).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv availability" profile' -l 'profile' -d 'The config file\'s profile to use (default: $RESV_PROFILE, else the one \'resv config use\' chose).' -rfka '(__resv_custom_completion ---completion availability -- --profile (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv availability" config' -l 'config' -d 'The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv availability" offline' -l 'offline' -d 'Read the server\'s answers cached by earlier commands; never use the network.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv availability" json' -l 'json' -d 'Print JSON (same as --format json).'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv availability" format' -l 'format' -d 'Output format (default: table): json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).' -rfka 'table json ndjson csv ics'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv availability" v verbose' -l 'verbose' -s 'v' -d 'List every skipped record with its reason.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv availability" tz' -l 'tz' -d 'Show times in this zone: local (TZ), utc or an IANA zone such as Europe/Paris (default: a visit at its landmark\'s time, a change in TZ).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv availability" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv availability" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv fetch" store' -l 'store' -d 'The JSON store file (default: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv fetch" server' -l 'server' -d 'A resv-server to use instead of the file (default: $RESV_SERVER, else the config file\'s server).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv fetch" profile' -l 'profile' -d 'The config file\'s profile to use (default: $RESV_PROFILE, else the one \'resv config use\' chose).' -rfka '(__resv_custom_completion ---completion fetch -- --profile (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv fetch" config' -l 'config' -d 'The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv fetch" offline' -l 'offline' -d 'Read the server\'s answers cached by earlier commands; never use the network.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv fetch" json' -l 'json' -d 'Print JSON (same as --format json).'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv fetch" format' -l 'format' -d 'Output format (default: table): json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).' -rfka 'table json ndjson csv ics'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv fetch" v verbose' -l 'verbose' -s 'v' -d 'List every skipped record with its reason.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv fetch" tz' -l 'tz' -d 'Show times in this zone: local (TZ), utc or an IANA zone such as Europe/Paris (default: a visit at its landmark\'s time, a change in TZ).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv fetch" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv fetch" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv landmarks" store' -l 'store' -d 'The JSON store file (default: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv landmarks" server' -l 'server' -d 'A resv-server to use instead of the file (default: $RESV_SERVER, else the config file\'s server).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv landmarks" profile' -l 'profile' -d 'The config file\'s profile to use (default: $RESV_PROFILE, else the one \'resv config use\' chose).' -rfka '(__resv_custom_completion ---completion landmarks -- --profile (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv landmarks" config' -l 'config' -d 'The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv landmarks" offline' -l 'offline' -d 'Read the server\'s answers cached by earlier commands; never use the network.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv landmarks" json' -l 'json' -d 'Print JSON (same as --format json).'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv landmarks" format' -l 'format' -d 'Output format (default: table): json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).' -rfka 'table json ndjson csv ics'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv landmarks" v verbose' -l 'verbose' -s 'v' -d 'List every skipped record with its reason.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv landmarks" tz' -l 'tz' -d 'Show times in this zone: local (TZ), utc or an IANA zone such as Europe/Paris (default: a visit at its landmark\'s time, a change in TZ).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv landmarks" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv landmarks" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv config" -eq 1' -fa 'list' -d 'Every setting, its value and where it comes from (the token, and a server\'s password, as ****).'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv config" -eq 1' -fa 'get' -d 'Print one setting\'s value (the token, and a server\'s password, as ****).'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv config" -eq 1' -fa 'set' -d 'Write a setting to the config file.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv config" -eq 1' -fa 'unset' -d 'Remove a setting from the config file.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv config" -eq 1' -fa 'use' -d 'Make a profile the one in use (written to the config file; \'default\' is its top level).'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv config" -eq 1' -fa 'remove' -d 'Remove a profile and its settings (its token too) from the config file.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv config" -eq 1' -fa 'path' -d 'Print the config file\'s path.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config list" profile' -l 'profile' -d 'The profile (default: $RESV_PROFILE, else the one \'resv config use\' chose; \'default\' is the file\'s top level).' -rfka '(__resv_custom_completion ---completion config list -- --profile (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config list" config' -l 'config' -d 'The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config list" json' -l 'json' -d 'Print JSON: {key: {value, source}}.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config list" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config get" profile' -l 'profile' -d 'The profile (default: $RESV_PROFILE, else the one \'resv config use\' chose; \'default\' is the file\'s top level).' -rfka '(__resv_custom_completion ---completion config get -- --profile (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config get" config' -l 'config' -d 'The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config get" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config get" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config set" profile' -l 'profile' -d 'The profile (default: $RESV_PROFILE, else the one \'resv config use\' chose; \'default\' is the file\'s top level).' -rfka '(__resv_custom_completion ---completion config set -- --profile (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config set" config' -l 'config' -d 'The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config set" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config set" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config unset" profile' -l 'profile' -d 'The profile (default: $RESV_PROFILE, else the one \'resv config use\' chose; \'default\' is the file\'s top level).' -rfka '(__resv_custom_completion ---completion config unset -- --profile (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config unset" config' -l 'config' -d 'The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config unset" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config unset" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv config use" -eq 1' -fka '(__resv_custom_completion ---completion config use -- positional@0 (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config use" config' -l 'config' -d 'The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config use" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config use" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_positional "resv config remove" -eq 1' -fka '(__resv_custom_completion ---completion config remove -- positional@0 (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config remove" config' -l 'config' -d 'The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config remove" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config remove" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config path" profile' -l 'profile' -d 'The profile (default: $RESV_PROFILE, else the one \'resv config use\' chose; \'default\' is the file\'s top level).' -rfka '(__resv_custom_completion ---completion config path -- --profile (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config path" config' -l 'config' -d 'The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config path" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv config path" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv repl" stop-on-error' -l 'stop-on-error' -d 'Without a terminal: stop at the first line that fails.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv repl" store' -l 'store' -d 'The JSON store file (default: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv repl" server' -l 'server' -d 'A resv-server to use instead of the file (default: $RESV_SERVER, else the config file\'s server).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv repl" profile' -l 'profile' -d 'The config file\'s profile to use (default: $RESV_PROFILE, else the one \'resv config use\' chose).' -rfka '(__resv_custom_completion ---completion repl -- --profile (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv repl" config' -l 'config' -d 'The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv repl" offline' -l 'offline' -d 'Read the server\'s answers cached by earlier commands; never use the network.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv repl" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv repl" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv whoami" store' -l 'store' -d 'The JSON store file (default: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv whoami" server' -l 'server' -d 'A resv-server to use instead of the file (default: $RESV_SERVER, else the config file\'s server).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv whoami" profile' -l 'profile' -d 'The config file\'s profile to use (default: $RESV_PROFILE, else the one \'resv config use\' chose).' -rfka '(__resv_custom_completion ---completion whoami -- --profile (count (__resv_tokens -pc)) (__resv_tokens -tC))'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv whoami" config' -l 'config' -d 'The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv whoami" offline' -l 'offline' -d 'Read the server\'s answers cached by earlier commands; never use the network.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv whoami" json' -l 'json' -d 'Print JSON (same as --format json).'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv whoami" format' -l 'format' -d 'Output format (default: table): json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).' -rfka 'table json ndjson csv ics'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv whoami" v verbose' -l 'verbose' -s 'v' -d 'List every skipped record with its reason.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv whoami" tz' -l 'tz' -d 'Show times in this zone: local (TZ), utc or an IANA zone such as Europe/Paris (default: a visit at its landmark\'s time, a change in TZ).' -rfka ''
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv whoami" version' -l 'version' -d 'Show the version.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv whoami" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv' -n '__resv_should_offer_completions_for_flags_or_options "resv help" version' -l 'version' -d 'Show the version.'
