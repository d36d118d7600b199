function __resv-server_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __resv-server_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __resv-server_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __resv-server_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __resv-server_parse_tokens -S
    set -l unparsed_tokens (__resv-server_tokens -pc)
    switch $unparsed_tokens[1]
    case 'resv-server'
        __resv-server_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'serve'
            __resv-server_parse_subcommand 0 'config=' 'database=' 'host=' 'port=' 'log-level=' 'landmarks=' 'request-timeout=' 'idle-timeout=' 'rate-limit=' 'max-holds-per-user=' 'no-metrics' 'tls-cert=' 'tls-key=' 'state-directory=' 'version' 'h/help'
        case 'token'
            __resv-server_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'create'
                __resv-server_parse_subcommand 1 'config=' 'database=' 'scope=' 'expires-in=' 'version' 'h/help'
            case 'list'
                __resv-server_parse_subcommand 0 'config=' 'database=' 'json' 'version' 'h/help'
            case 'revoke'
                __resv-server_parse_subcommand 1 'config=' 'database=' 'id=' 'version' 'h/help'
            end
        case 'user'
            __resv-server_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'add'
                __resv-server_parse_subcommand 1 'config=' 'database=' 'role=' 'landmark=+' 'landmarks=' 'version' 'h/help'
            case 'set'
                __resv-server_parse_subcommand 1 'config=' 'database=' 'role=' 'landmark=+' 'landmarks=' 'version' 'h/help'
            case 'list'
                __resv-server_parse_subcommand 0 'config=' 'database=' 'landmarks=' 'json' 'version' 'h/help'
            end
        case 'catalog'
            __resv-server_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'import'
                __resv-server_parse_subcommand 1 'config=' 'database=' 'version' 'h/help'
            end
        case 'help'
            __resv-server_parse_subcommand -r 1 'version'
        end
    end
end

function __resv-server_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __resv-server_parse_subcommand -S -a positional_count
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

function __resv-server_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __resv-server_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__resv-server_tokens -p)
    if test -z "$(__resv-server_tokens -t)"
        set -l index (count (__resv-server_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'resv-server' -f
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server" version' -l 'version' -d 'Show the version.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_positional "resv-server" -eq 1' -fa 'serve' -d 'Serve the HTTP API until interrupted (SIGINT or SIGTERM).'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_positional "resv-server" -eq 1' -fa 'token' -d 'Manage users\' bearer tokens.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_positional "resv-server" -eq 1' -fa 'user' -d 'Manage users\' roles: member, staff of named landmarks, or admin.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_positional "resv-server" -eq 1' -fa 'catalog' -d 'Manage the catalog of landmarks the database holds.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_positional "resv-server" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server serve" config' -l 'config' -d 'A JSON file of settings, each key named as a long option of serve (database, host, port, tls-cert and the rest; the token commands read only database, the user commands database and landmarks); an option given wins over RESV_SERVER_<KEY> in the environment, which wins over the file (default: $RESV_SERVER_CONFIG, else /etc/resv-server/config.json when it exists).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server serve" database' -l 'database' -d 'An SQLite file (created when missing) or a postgres://user[:password]@host[:port]/database URL; a cluster\'s hosts as libpq lists them (host1:port,host2:port,…/database?target_session_attrs=read-write): the one that takes writes is used, and found again after a failover.' -rfka ''
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server serve" host' -l 'host' -d 'The address to listen on.' -rfka ''
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server serve" port' -l 'port' -d 'The port to listen on; 0 picks a free one (the log says which).' -rfka ''
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server serve" log-level' -l 'log-level' -d 'How much to log on stderr.' -rfka 'trace debug info notice warning error critical'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server serve" landmarks' -l 'landmarks' -d 'A JSON file of the landmarks to offer, with their capacity and timeZone (default: the built-in catalog).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server serve" request-timeout' -l 'request-timeout' -d 'Seconds a client has to send a whole request (head and body) from its first byte; then the connection is closed.' -rfka ''
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server serve" idle-timeout' -l 'idle-timeout' -d 'Seconds a connection may stay open with no request under way (keep-alive); then it is closed.' -rfka ''
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server serve" rate-limit' -l 'rate-limit' -d 'Requests a second each token may make (bursts up to the same number); more get 429 with Retry-After. Default: no limit.' -rfka ''
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server serve" max-holds-per-user' -l 'max-holds-per-user' -d 'The most holds (reserve --hold) one user may have live at once; beyond, 409 tooManyHolds.' -rfka ''
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server serve" no-metrics' -l 'no-metrics' -d 'Do not serve /metrics (Prometheus text, open without a token; served by default).'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server serve" tls-cert' -l 'tls-cert' -d 'Serve HTTPS (TLS 1.2 and 1.3) with this PEM certificate chain; needs --tls-key. SIGHUP reloads both files.' -rfa '(set -l exts \'pem\' \'crt\';for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.{$exts};printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server serve" tls-key' -l 'tls-key' -d 'The PEM private key of --tls-cert\'s certificate.' -rfa '(set -l exts \'pem\' \'key\';for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.{$exts};printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server serve" state-directory' -l 'state-directory' -d 'Refuse to start (exit 73) unless this folder exists, belongs to the user the server runs as and no one else may write to it: the state directory of a service (/var/lib/resv-server in the packages).' -rfa '(__resv-server_complete_directories)'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server serve" version' -l 'version' -d 'Show the version.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server serve" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server token" version' -l 'version' -d 'Show the version.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server token" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_positional "resv-server token" -eq 1' -fa 'create' -d 'Create a token for a user (new or existing) and print it once.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_positional "resv-server token" -eq 1' -fa 'list' -d 'List every token: its id, user, scope, when it was created, last used and expires.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_positional "resv-server token" -eq 1' -fa 'revoke' -d 'Revoke one token of a user (--id), or all of them.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server token create" config' -l 'config' -d 'A JSON file of settings, each key named as a long option of serve (database, host, port, tls-cert and the rest; the token commands read only database, the user commands database and landmarks); an option given wins over RESV_SERVER_<KEY> in the environment, which wins over the file (default: $RESV_SERVER_CONFIG, else /etc/resv-server/config.json when it exists).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server token create" database' -l 'database' -d 'An SQLite file (created when missing) or a postgres://user[:password]@host[:port]/database URL; a cluster\'s hosts as libpq lists them (host1:port,host2:port,…/database?target_session_attrs=read-write): the one that takes writes is used, and found again after a failover.' -rfka ''
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server token create" scope' -l 'scope' -d 'What the token may do: write (everything), read (reads only) or calendar (the calendar address).' -rfka 'read write calendar'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server token create" expires-in' -l 'expires-in' -d 'How long the token works: a number with s, m, h or d (90m, 12h, 30d). Default: until revoked.' -rfka ''
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server token create" version' -l 'version' -d 'Show the version.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server token create" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server token list" config' -l 'config' -d 'A JSON file of settings, each key named as a long option of serve (database, host, port, tls-cert and the rest; the token commands read only database, the user commands database and landmarks); an option given wins over RESV_SERVER_<KEY> in the environment, which wins over the file (default: $RESV_SERVER_CONFIG, else /etc/resv-server/config.json when it exists).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server token list" database' -l 'database' -d 'An SQLite file (created when missing) or a postgres://user[:password]@host[:port]/database URL; a cluster\'s hosts as libpq lists them (host1:port,host2:port,…/database?target_session_attrs=read-write): the one that takes writes is used, and found again after a failover.' -rfka ''
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server token list" json' -l 'json' -d 'Print a JSON array of {id, user, scope, createdAt, lastUsedAt, expiresAt} instead of a table.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server token list" version' -l 'version' -d 'Show the version.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server token list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server token revoke" config' -l 'config' -d 'A JSON file of settings, each key named as a long option of serve (database, host, port, tls-cert and the rest; the token commands read only database, the user commands database and landmarks); an option given wins over RESV_SERVER_<KEY> in the environment, which wins over the file (default: $RESV_SERVER_CONFIG, else /etc/resv-server/config.json when it exists).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server token revoke" database' -l 'database' -d 'An SQLite file (created when missing) or a postgres://user[:password]@host[:port]/database URL; a cluster\'s hosts as libpq lists them (host1:port,host2:port,…/database?target_session_attrs=read-write): the one that takes writes is used, and found again after a failover.' -rfka ''
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server token revoke" id' -l 'id' -d 'Revoke only the token of this id (\'token list\' shows it).' -rfka ''
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server token revoke" version' -l 'version' -d 'Show the version.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server token revoke" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server user" version' -l 'version' -d 'Show the version.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server user" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_positional "resv-server user" -eq 1' -fa 'add' -d 'Add a user with a role (the first admin is made this way); exit 1 if the name is taken.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_positional "resv-server user" -eq 1' -fa 'set' -d 'Change a user\'s role and landmarks (they replace the ones before).'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_positional "resv-server user" -eq 1' -fa 'list' -d 'List every user: name, role, the landmarks of staff, how many tokens they hold.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server user add" config' -l 'config' -d 'A JSON file of settings, each key named as a long option of serve (database, host, port, tls-cert and the rest; the token commands read only database, the user commands database and landmarks); an option given wins over RESV_SERVER_<KEY> in the environment, which wins over the file (default: $RESV_SERVER_CONFIG, else /etc/resv-server/config.json when it exists).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server user add" database' -l 'database' -d 'An SQLite file (created when missing) or a postgres://user[:password]@host[:port]/database URL; a cluster\'s hosts as libpq lists them (host1:port,host2:port,…/database?target_session_attrs=read-write): the one that takes writes is used, and found again after a failover.' -rfka ''
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server user add" role' -l 'role' -d 'member (their own reservations), staff (of the --landmark ones) or admin (everything).' -rfka 'member staff admin'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server user add"' -l 'landmark' -d 'A landmark staff manage (repeat for more); only with --role staff.' -rfka ''
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server user add" landmarks' -l 'landmarks' -d 'A JSON file of the landmarks the names are looked up in (default: the built-in catalog).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server user add" version' -l 'version' -d 'Show the version.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server user add" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server user set" config' -l 'config' -d 'A JSON file of settings, each key named as a long option of serve (database, host, port, tls-cert and the rest; the token commands read only database, the user commands database and landmarks); an option given wins over RESV_SERVER_<KEY> in the environment, which wins over the file (default: $RESV_SERVER_CONFIG, else /etc/resv-server/config.json when it exists).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server user set" database' -l 'database' -d 'An SQLite file (created when missing) or a postgres://user[:password]@host[:port]/database URL; a cluster\'s hosts as libpq lists them (host1:port,host2:port,…/database?target_session_attrs=read-write): the one that takes writes is used, and found again after a failover.' -rfka ''
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server user set" role' -l 'role' -d 'member (their own reservations), staff (of the --landmark ones) or admin (everything).' -rfka 'member staff admin'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server user set"' -l 'landmark' -d 'A landmark staff manage (repeat for more); only with --role staff.' -rfka ''
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server user set" landmarks' -l 'landmarks' -d 'A JSON file of the landmarks the names are looked up in (default: the built-in catalog).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server user set" version' -l 'version' -d 'Show the version.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server user set" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server user list" config' -l 'config' -d 'A JSON file of settings, each key named as a long option of serve (database, host, port, tls-cert and the rest; the token commands read only database, the user commands database and landmarks); an option given wins over RESV_SERVER_<KEY> in the environment, which wins over the file (default: $RESV_SERVER_CONFIG, else /etc/resv-server/config.json when it exists).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server user list" database' -l 'database' -d 'An SQLite file (created when missing) or a postgres://user[:password]@host[:port]/database URL; a cluster\'s hosts as libpq lists them (host1:port,host2:port,…/database?target_session_attrs=read-write): the one that takes writes is used, and found again after a failover.' -rfka ''
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server user list" landmarks' -l 'landmarks' -d 'A JSON file of the landmarks, to name staff\'s landmarks (default: the built-in catalog).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server user list" json' -l 'json' -d 'Print a JSON array of {name, role, landmarks: [{id, name}], tokens} instead of a table.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server user list" version' -l 'version' -d 'Show the version.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server user list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server catalog" version' -l 'version' -d 'Show the version.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server catalog" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_positional "resv-server catalog" -eq 1' -fa 'import' -d 'Add and change the database\'s landmarks from a JSON file; never deletes.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server catalog import" config' -l 'config' -d 'A JSON file of settings, each key named as a long option of serve (database, host, port, tls-cert and the rest; the token commands read only database, the user commands database and landmarks); an option given wins over RESV_SERVER_<KEY> in the environment, which wins over the file (default: $RESV_SERVER_CONFIG, else /etc/resv-server/config.json when it exists).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server catalog import" database' -l 'database' -d 'An SQLite file (created when missing) or a postgres://user[:password]@host[:port]/database URL; a cluster\'s hosts as libpq lists them (host1:port,host2:port,…/database?target_session_attrs=read-write): the one that takes writes is used, and found again after a failover.' -rfka ''
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_positional "resv-server catalog import" -eq 1' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server catalog import" version' -l 'version' -d 'Show the version.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server catalog import" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'resv-server' -n '__resv-server_should_offer_completions_for_flags_or_options "resv-server help" version' -l 'version' -d 'Show the version.'
