#compdef resv-server

__resv-server_complete() {
    local -ar non_empty_completions=("${@:#(|:*)}")
    local -ar empty_completions=("${(M)@:#(|:*)}")
    _describe -V '' non_empty_completions -M 'm:{[:lower:]}={[:upper:]}' -- empty_completions -P $'\'\''
}

__resv-server_custom_complete() {
    local -a completions
    completions=("${(@f)"$("${command_name}" "${@}" "${command_line[@]}")"}")
    if [[ "${#completions[@]}" -gt 1 ]]; then
        __resv-server_complete "${completions[@]:0:-1}"
    fi
}

__resv-server_cursor_index_in_current_word() {
    if [[ -z "${QIPREFIX}${IPREFIX}${PREFIX}" ]]; then
        printf 0
    else
        printf %s "${#${(z)LBUFFER}[-1]}"
    fi
}

_resv-server() {
    emulate -RL zsh -G
    setopt extendedglob nullglob numericglobsort
    unsetopt aliases banghist

    local -xr SAP_SHELL=zsh
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(builtin emulate zsh -c 'printf %s "${ZSH_VERSION}"')"
    local -r SAP_SHELL_VERSION

    local context state state_descr line
    local -A opt_args

    local -r command_name="${words[1]}"
    local -ar command_line=("${words[@]}")
    local -ir current_word_index="$((CURRENT - 1))"

    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'serve:Serve the HTTP API until interrupted (SIGINT or SIGTERM).'
            'token:Manage users'\'' bearer tokens.'
            'user:Manage users'\'' roles: member, staff of named landmarks, or admin.'
            'catalog:Manage the catalog of landmarks the database holds.'
            'help:Show subcommand help information.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        serve|token|user|catalog|help)
            "_resv-server_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_resv-server_serve() {
    local -i ret=1
    local -ar ___log_level=('trace' 'debug' 'info' 'notice' 'warning' 'error' 'critical')
    local -ar arg_specs=(
        '--config[A JSON file of settings, each key named as a long option of serve (database, host, port, tls-cert and the rest; the token commands read only database, the user commands database and landmarks); an option given wins over RESV_SERVER_<KEY> in the environment, which wins over the file (default\: $RESV_SERVER_CONFIG, else /etc/resv-server/config.json when it exists).]:file:_files -g '\''*.json'\'''
        '--database[An SQLite file (created when missing) or a postgres\://user\[\:password\]@host\[\:port\]/database URL; a cluster'\''s hosts as libpq lists them (host1\:port,host2\:port,…/database?target_session_attrs=read-write)\: the one that takes writes is used, and found again after a failover.]:path-or-url:'
        '--host[The address to listen on.]:host:'
        '--port[The port to listen on; 0 picks a free one (the log says which).]:port:'
        '--log-level[How much to log on stderr.]:log-level:{__resv-server_complete "${___log_level[@]}"}'
        '--landmarks[A JSON file of the landmarks to offer, with their capacity and timeZone (default\: the built-in catalog).]:path:_files -g '\''*.json'\'''
        '--request-timeout[Seconds a client has to send a whole request (head and body) from its first byte; then the connection is closed.]:seconds:'
        '--idle-timeout[Seconds a connection may stay open with no request under way (keep-alive); then it is closed.]:seconds:'
        '--rate-limit[Requests a second each token may make (bursts up to the same number); more get 429 with Retry-After. Default\: no limit.]:n:'
        '--max-holds-per-user[The most holds (reserve --hold) one user may have live at once; beyond, 409 tooManyHolds.]:n:'
        '--no-metrics[Do not serve /metrics (Prometheus text, open without a token; served by default).]'
        '--tls-cert[Serve HTTPS (TLS 1.2 and 1.3) with this PEM certificate chain; needs --tls-key. SIGHUP reloads both files.]:file:_files -g '\''*.pem *.crt'\'''
        '--tls-key[The PEM private key of --tls-cert'\''s certificate.]:file:_files -g '\''*.pem *.key'\'''
        '--state-directory[Refuse to start (exit 73) unless this folder exists, belongs to the user the server runs as and no one else may write to it\: the state directory of a service (/var/lib/resv-server in the packages).]:folder:_files -/'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv-server_token() {
    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'create:Create a token for a user (new or existing) and print it once.'
            'list:List every token: its id, user, scope, when it was created, last used and expires.'
            'revoke:Revoke one token of a user (--id), or all of them.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        create|list|revoke)
            "_resv-server_token_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_resv-server_token_create() {
    local -i ret=1
    local -ar ___scope=('read' 'write' 'calendar')
    local -ar arg_specs=(
        ':name:'
        '--config[A JSON file of settings, each key named as a long option of serve (database, host, port, tls-cert and the rest; the token commands read only database, the user commands database and landmarks); an option given wins over RESV_SERVER_<KEY> in the environment, which wins over the file (default\: $RESV_SERVER_CONFIG, else /etc/resv-server/config.json when it exists).]:file:_files -g '\''*.json'\'''
        '--database[An SQLite file (created when missing) or a postgres\://user\[\:password\]@host\[\:port\]/database URL; a cluster'\''s hosts as libpq lists them (host1\:port,host2\:port,…/database?target_session_attrs=read-write)\: the one that takes writes is used, and found again after a failover.]:path-or-url:'
        '--scope[What the token may do\: write (everything), read (reads only) or calendar (the calendar address).]:scope:{__resv-server_complete "${___scope[@]}"}'
        '--expires-in[How long the token works\: a number with s, m, h or d (90m, 12h, 30d). Default\: until revoked.]:duration:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv-server_token_list() {
    local -i ret=1
    local -ar arg_specs=(
        '--config[A JSON file of settings, each key named as a long option of serve (database, host, port, tls-cert and the rest; the token commands read only database, the user commands database and landmarks); an option given wins over RESV_SERVER_<KEY> in the environment, which wins over the file (default\: $RESV_SERVER_CONFIG, else /etc/resv-server/config.json when it exists).]:file:_files -g '\''*.json'\'''
        '--database[An SQLite file (created when missing) or a postgres\://user\[\:password\]@host\[\:port\]/database URL; a cluster'\''s hosts as libpq lists them (host1\:port,host2\:port,…/database?target_session_attrs=read-write)\: the one that takes writes is used, and found again after a failover.]:path-or-url:'
        '--json[Print a JSON array of {id, user, scope, createdAt, lastUsedAt, expiresAt} instead of a table.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv-server_token_revoke() {
    local -i ret=1
    local -ar arg_specs=(
        ':name:'
        '--config[A JSON file of settings, each key named as a long option of serve (database, host, port, tls-cert and the rest; the token commands read only database, the user commands database and landmarks); an option given wins over RESV_SERVER_<KEY> in the environment, which wins over the file (default\: $RESV_SERVER_CONFIG, else /etc/resv-server/config.json when it exists).]:file:_files -g '\''*.json'\'''
        '--database[An SQLite file (created when missing) or a postgres\://user\[\:password\]@host\[\:port\]/database URL; a cluster'\''s hosts as libpq lists them (host1\:port,host2\:port,…/database?target_session_attrs=read-write)\: the one that takes writes is used, and found again after a failover.]:path-or-url:'
        '--id[Revoke only the token of this id ('\''token list'\'' shows it).]:id:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv-server_user() {
    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'add:Add a user with a role (the first admin is made this way); exit 1 if the name is taken.'
            'set:Change a user'\''s role and landmarks (they replace the ones before).'
            'list:List every user: name, role, the landmarks of staff, how many tokens they hold.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        add|set|list)
            "_resv-server_user_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_resv-server_user_add() {
    local -i ret=1
    local -ar ___role=('member' 'staff' 'admin')
    local -ar arg_specs=(
        ':name:'
        '--config[A JSON file of settings, each key named as a long option of serve (database, host, port, tls-cert and the rest; the token commands read only database, the user commands database and landmarks); an option given wins over RESV_SERVER_<KEY> in the environment, which wins over the file (default\: $RESV_SERVER_CONFIG, else /etc/resv-server/config.json when it exists).]:file:_files -g '\''*.json'\'''
        '--database[An SQLite file (created when missing) or a postgres\://user\[\:password\]@host\[\:port\]/database URL; a cluster'\''s hosts as libpq lists them (host1\:port,host2\:port,…/database?target_session_attrs=read-write)\: the one that takes writes is used, and found again after a failover.]:path-or-url:'
        '--role[member (their own reservations), staff (of the --landmark ones) or admin (everything).]:role:{__resv-server_complete "${___role[@]}"}'
        '*--landmark[A landmark staff manage (repeat for more); only with --role staff.]:name:'
        '--landmarks[A JSON file of the landmarks the names are looked up in (default\: the built-in catalog).]:file:_files -g '\''*.json'\'''
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv-server_user_set() {
    local -i ret=1
    local -ar ___role=('member' 'staff' 'admin')
    local -ar arg_specs=(
        ':name:'
        '--config[A JSON file of settings, each key named as a long option of serve (database, host, port, tls-cert and the rest; the token commands read only database, the user commands database and landmarks); an option given wins over RESV_SERVER_<KEY> in the environment, which wins over the file (default\: $RESV_SERVER_CONFIG, else /etc/resv-server/config.json when it exists).]:file:_files -g '\''*.json'\'''
        '--database[An SQLite file (created when missing) or a postgres\://user\[\:password\]@host\[\:port\]/database URL; a cluster'\''s hosts as libpq lists them (host1\:port,host2\:port,…/database?target_session_attrs=read-write)\: the one that takes writes is used, and found again after a failover.]:path-or-url:'
        '--role[member (their own reservations), staff (of the --landmark ones) or admin (everything).]:role:{__resv-server_complete "${___role[@]}"}'
        '*--landmark[A landmark staff manage (repeat for more); only with --role staff.]:name:'
        '--landmarks[A JSON file of the landmarks the names are looked up in (default\: the built-in catalog).]:file:_files -g '\''*.json'\'''
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv-server_user_list() {
    local -i ret=1
    local -ar arg_specs=(
        '--config[A JSON file of settings, each key named as a long option of serve (database, host, port, tls-cert and the rest; the token commands read only database, the user commands database and landmarks); an option given wins over RESV_SERVER_<KEY> in the environment, which wins over the file (default\: $RESV_SERVER_CONFIG, else /etc/resv-server/config.json when it exists).]:file:_files -g '\''*.json'\'''
        '--database[An SQLite file (created when missing) or a postgres\://user\[\:password\]@host\[\:port\]/database URL; a cluster'\''s hosts as libpq lists them (host1\:port,host2\:port,…/database?target_session_attrs=read-write)\: the one that takes writes is used, and found again after a failover.]:path-or-url:'
        '--landmarks[A JSON file of the landmarks, to name staff'\''s landmarks (default\: the built-in catalog).]:file:_files -g '\''*.json'\'''
        '--json[Print a JSON array of {name, role, landmarks\: \[{id, name}\], tokens} instead of a table.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv-server_catalog() {
    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'import:Add and change the database'\''s landmarks from a JSON file; never deletes.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        import)
            "_resv-server_catalog_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_resv-server_catalog_import() {
    local -i ret=1
    local -ar arg_specs=(
        '--config[A JSON file of settings, each key named as a long option of serve (database, host, port, tls-cert and the rest; the token commands read only database, the user commands database and landmarks); an option given wins over RESV_SERVER_<KEY> in the environment, which wins over the file (default\: $RESV_SERVER_CONFIG, else /etc/resv-server/config.json when it exists).]:file:_files -g '\''*.json'\'''
        '--database[An SQLite file (created when missing) or a postgres\://user\[\:password\]@host\[\:port\]/database URL; a cluster'\''s hosts as libpq lists them (host1\:port,host2\:port,…/database?target_session_attrs=read-write)\: the one that takes writes is used, and found again after a failover.]:path-or-url:'
        ':file:_files -g '\''*.json'\'''
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv-server_help() {
    local -i ret=1
    local -ar arg_specs=(
        '*:subcommands:'
        '--version[Show the version.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

if [[ "${funcstack[1]}" = _resv-server ]]; then
    _resv-server "${@}"
else
    compdef _resv-server resv-server
fi
