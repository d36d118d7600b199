#compdef resv

__resv_complete() {
    local -ar non_empty_completions=("${@:#(|:*)}")
    local -ar empty_completions=("${(M)@:#(|:*)}")
    _describe -V '' non_empty_completions -M 'm:{[:lower:]}={[:upper:]}' -- empty_completions -P $'\'\''
}

__resv_custom_complete() {
    local -a completions
    completions=("${(@f)"$("${command_name}" "${@}" "${command_line[@]}")"}")
    if [[ "${#completions[@]}" -gt 1 ]]; then
        __resv_complete "${completions[@]:0:-1}"
    fi
}

__resv_cursor_index_in_current_word() {
    if [[ -z "${QIPREFIX}${IPREFIX}${PREFIX}" ]]; then
        printf 0
    else
        printf %s "${#${(z)LBUFFER}[-1]}"
    fi
}

_resv() {
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
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format\: table, json, ndjson, csv or ics.]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program.]:expression:'
        '--no-pager[Write to the terminal even when the output is taller than it (no pager).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'list:List reservations, sorted by date (active ones unless asked otherwise).'
            'reserve:Reserve a visit to a landmark and print the new reservation.'
            'cancel:Cancel reservations; they stay in the history as cancelled.'
            'confirm:Confirm pending reservations.'
            'modify:Change a reservation'\''s date, party size, landmark or note in one step.'
            'checkin:Mark a party arrived (status checked-in).'
            'noshow:Mark a party that did not come (status no-show).'
            'day:List every party booked at a landmark on one day, across users.'
            'log:Show the history of changes, newest first.'
            'undo:Take back the last command that changed reservations.'
            'redo:Take back the last undo.'
            'show:Show one reservation.'
            'watch:Print changes to your reservations as they happen.'
            'wait:Wait until a reservation has a status.'
            'availability:Show the places taken and left at a landmark, day by day.'
            'fetch:Read everything from the backend afresh and report what maps and what is skipped.'
            'landmarks:List the landmarks of the active backend.'
            'config:Show and change settings (store, server, token, timeouts, queue) and profiles.'
            'repl:An interactive prompt: type commands as on the shell, without '\''resv'\''.'
            'whoami:Show the server user the token belongs to, the server'\''s origin and the token'\''s scope.'
            'login:Check a token with a server and keep it for that server only.'
            'logout:Remove the token kept for a server.'
            'sync:Send the changes queued while the server could not be reached (--queue).'
            'outbox:List the changes queued for the server (--queue), or drop one.'
            'calendar:Print the secret URL calendar apps subscribe to, or make a new one.'
            'import:Book the events of an iCalendar (.ics) or CSV file: what can be booked, the rest counted.'
            'admin:Run a landmark: a day'\''s capacity, closures.'
            'completion:Print the shell completion script for bash, zsh or fish.'
            'help:Show subcommand help information.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        list|reserve|cancel|confirm|modify|checkin|noshow|day|log|undo|redo|show|watch|wait|availability|fetch|landmarks|config|repl|whoami|login|logout|sync|outbox|calendar|import|admin|completion|help)
            "_resv_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_resv_list() {
    local -i ret=1
    local -ar ___status=('pending' 'confirmed' 'cancelled' 'held' 'expired' 'waitlisted' 'checked-in' 'no-show')
    local -ar ___sort=('date' 'landmark' 'party-size' 'status')
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        '*--status[Only reservations with this status; repeat for several.]:status:{__resv_complete "${___status[@]}"}'
        '--all[Include cancelled reservations, expired holds, and checked-in and no-show ones.]'
        '(--landmark -l)'{--landmark,-l}'[Only reservations at this landmark (id, id prefix, name or the starts of its words).]:landmark:{__resv_custom_complete ---completion list -- --landmark "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--from[Only reservations on or after this day (all of it) or time, at each landmark (the date the table shows)\: 2026-12-01, today, tmrw, -7d, in 2 weeks, fri, next fri, dec 24, tomorrow at 10am.]:date:'
        '--to[Only reservations on or before this day (all of it) or time.]:date:'
        '--sort[The order\: date, landmark, party-size or status (default\: date).]:sort:{__resv_complete "${___sort[@]}"}'
        '--reverse[The opposite order (latest first with the default sort).]'
        '--limit[Show at most this many (1 or more), after sorting.]:n:'
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion list -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_reserve() {
    local -i ret=1
    local -ar ___every=('day' 'week' 'month')
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        '(--landmark -l)'{--landmark,-l}'[The landmark\: id, id prefix, name, or the starts of its words (golden gate).]:landmark:{__resv_custom_complete ---completion reserve -- --landmark "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '(--date -d)'{--date,-d}'[When, at the landmark\: 2026-12-01 10\:00, tomorrow at 9\:30 am, 10am fri, dec 24 noon, in 2 days 14\:00, or with a zone 2026-12-01T10\:00\:00Z.]:date:'
        '--note[A note kept with the reservation (at most 500 characters).]:text:'
        '(--party-size -n)'{--party-size,-n}'[How many people (1 to 10,000).]:n:'
        '--batch[Reserve every request in this file ('\''-'\'' for standard input), one JSON object per line.]:file:_files'
        '--pending[Book as pending (to confirm later with '\''resv confirm'\'') instead of confirmed.]'
        '--hold[Hold the places this long (90s, 10m, 2h; 1s to 24h) until confirmed with '\''resv confirm'\''.]:duration:'
        '--waitlist[When the day is full, join its waitlist instead of being refused.]'
        '--every[Book a series\: a visit every day, week or month from --date.]:period:{__resv_complete "${___every[@]}"}'
        '--count[How many visits the series has (1 to 1000).]:n:'
        '--until[The series'\'' last day, at the landmark\: 2027-01-31, +8w, in 3 weeks, dec 24 (its visits up to and including it).]:day:'
        '--idempotency-key[On a server\: the Idempotency-Key of this booking, so a script that retries it never books twice (1 to 255 printable ASCII characters, no spaces; default\: a new key per run; a batch is one request with this key).]:key:'
        '--queue[On a server\: when it cannot be reached, keep the change in its outbox (status queued), sent by '\''resv sync'\'' or the next command that reaches it (default\: the config key queue).]'
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion reserve -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_cancel() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        '*:ids:{__resv_custom_complete ---completion cancel -- positional@0 "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--series[Cancel the visits ahead of this series (its id or a unique prefix of at least 4 hex digits).]:id:'
        '--queue[On a server\: when it cannot be reached, keep the change in its outbox (status queued), sent by '\''resv sync'\'' or the next command that reaches it (default\: the config key queue).]'
        '--idempotency-key[On a server\: the Idempotency-Key this change is sent under, so running the command again never makes it twice (1 to 255 printable ASCII characters, no spaces; default\: a new key per run).]:key:'
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion cancel -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_confirm() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        '*:ids:{__resv_custom_complete ---completion confirm -- positional@0 "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--queue[On a server\: when it cannot be reached, keep the change in its outbox (status queued), sent by '\''resv sync'\'' or the next command that reaches it (default\: the config key queue).]'
        '--idempotency-key[On a server\: the Idempotency-Key this change is sent under, so running the command again never makes it twice (1 to 255 printable ASCII characters, no spaces; default\: a new key per run).]:key:'
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion confirm -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_modify() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        ':id:{__resv_custom_complete ---completion modify -- positional@0 "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '(--date -d)'{--date,-d}'[The new date, in the future, at the landmark\: 2026-12-01 10\:00, tomorrow at 9\:30 am, 10am fri, dec 24 noon, or with a zone 2026-12-01T10\:00\:00Z.]:date:'
        '(--party-size -n)'{--party-size,-n}'[The new number of people (1 to 10,000).]:n:'
        '(--landmark -l)'{--landmark,-l}'[The new landmark\: id, id prefix, name or the starts of its words.]:landmark:{__resv_custom_complete ---completion modify -- --landmark "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--note[A note kept with the reservation (at most 500 characters; "" removes it).]:text:'
        '--queue[On a server\: when it cannot be reached, keep the change in its outbox (status queued), sent by '\''resv sync'\'' or the next command that reaches it (default\: the config key queue).]'
        '--idempotency-key[On a server\: the Idempotency-Key this change is sent under, so running the command again never makes it twice (1 to 255 printable ASCII characters, no spaces; default\: a new key per run).]:key:'
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion modify -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_checkin() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        ':id:{__resv_custom_complete ---completion checkin -- positional@0 "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--idempotency-key[On a server\: the Idempotency-Key this change is sent under, so running the command again never makes it twice (1 to 255 printable ASCII characters, no spaces; default\: a new key per run).]:key:'
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion checkin -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_noshow() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        ':id:{__resv_custom_complete ---completion noshow -- positional@0 "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--idempotency-key[On a server\: the Idempotency-Key this change is sent under, so running the command again never makes it twice (1 to 255 printable ASCII characters, no spaces; default\: a new key per run).]:key:'
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion noshow -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_day() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        ':day:'
        '(--landmark -l)'{--landmark,-l}'[The landmark (id, id prefix, name or the starts of its words).]:landmark:{__resv_custom_complete ---completion day -- --landmark "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion day -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_log() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        ':id:{__resv_custom_complete ---completion log -- positional@0 "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--limit[Show the newest this many changes (1 or more).]:n:'
        '--from[Only changes made on or after this day (all of it) or time, in TZ\: 2026-12-01, today, -7d, mon, dec 24, yesterday at noon.]:date:'
        '--to[Only changes made on or before this day (all of it) or time.]:date:'
        '--user[On a server, this user'\''s history instead of yours (an admin'\''s token; ID then a whole id).]:name:'
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion log -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_undo() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        '(-y --yes)'{-y,--yes}'[Do not ask first, even on a terminal.]'
        '--idempotency-key[On a server\: the Idempotency-Key this change is sent under, so running the command again never makes it twice (1 to 255 printable ASCII characters, no spaces; default\: a new key per run).]:key:'
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion undo -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_redo() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        '(-y --yes)'{-y,--yes}'[Do not ask first, even on a terminal.]'
        '--idempotency-key[On a server\: the Idempotency-Key this change is sent under, so running the command again never makes it twice (1 to 255 printable ASCII characters, no spaces; default\: a new key per run).]:key:'
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion redo -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_show() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        ':id:{__resv_custom_complete ---completion show -- positional@0 "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion show -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_watch() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        '--after[Start just after this change\: a cursor watch printed.]:cursor:'
        '--no-follow[Print the changes there are, then exit.]'
        '--timeout[Stop after this many seconds (exit 0).]:seconds:'
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion watch -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_wait() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        ':id:{__resv_custom_complete ---completion wait -- positional@0 "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--for[The status to wait for\: pending, confirmed, cancelled, held, expired, waitlisted, checked-in, no-show.]:status:'
        '--timeout[Give up after this many seconds (default 300)\: exit 1.]:seconds:'
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion wait -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_availability() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        ':landmark:{__resv_custom_complete ---completion availability -- positional@0 "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--from[The first day at the landmark\: YYYY-MM-DD, today, tmrw, +3d, in 2 weeks, fri, next fri, dec 24 (a date-time counts as its day there); default today.]:day:'
        '--to[The last day, as --from; default 13 days after the first.]:day:'
        '--calendar[Draw each month as a calendar (weeks as rows, from Monday), every day with the places left, coloured by how full it is on a terminal, marked without colour; default range\: today to the end of next month.]'
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion availability -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_fetch() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion fetch -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_landmarks() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion landmarks -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_config() {
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
            'list:Every setting, its value and where it comes from (the token, and a server'\''s password, as ****).'
            'get:Print one setting'\''s value (the token, and a server'\''s password, as ****).'
            'set:Write a setting to the config file.'
            'unset:Remove a setting from the config file.'
            'use:Make a profile the one in use (written to the config file; '\''default'\'' is its top level).'
            'remove:Remove a profile and its settings (its token too) from the config file.'
            'path:Print the config file'\''s path.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        list|get|set|unset|use|remove|path)
            "_resv_config_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_resv_config_list() {
    local -i ret=1
    local -ar arg_specs=(
        '--profile[The profile (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose; '\''default'\'' is the file'\''s top level).]:name:{__resv_custom_complete ---completion config list -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--json[Print JSON\: {key\: {value, source}}.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_config_get() {
    local -i ret=1
    local -ar _key=('store' 'server' 'token' 'connectTimeout' 'requestTimeout' 'queue')
    local -ar arg_specs=(
        ':key:{__resv_complete "${_key[@]}"}'
        '--profile[The profile (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose; '\''default'\'' is the file'\''s top level).]:name:{__resv_custom_complete ---completion config get -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_config_set() {
    local -i ret=1
    local -ar _key=('store' 'server' 'token' 'connectTimeout' 'requestTimeout' 'queue')
    local -ar arg_specs=(
        ':key:{__resv_complete "${_key[@]}"}'
        ':value:'
        '--profile[The profile (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose; '\''default'\'' is the file'\''s top level).]:name:{__resv_custom_complete ---completion config set -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_config_unset() {
    local -i ret=1
    local -ar _key=('store' 'server' 'token' 'connectTimeout' 'requestTimeout' 'queue')
    local -ar arg_specs=(
        ':key:{__resv_complete "${_key[@]}"}'
        '--profile[The profile (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose; '\''default'\'' is the file'\''s top level).]:name:{__resv_custom_complete ---completion config unset -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_config_use() {
    local -i ret=1
    local -ar arg_specs=(
        ':name:{__resv_custom_complete ---completion config use -- positional@0 "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_config_remove() {
    local -i ret=1
    local -ar arg_specs=(
        ':name:{__resv_custom_complete ---completion config remove -- positional@0 "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_config_path() {
    local -i ret=1
    local -ar arg_specs=(
        '--profile[The profile (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose; '\''default'\'' is the file'\''s top level).]:name:{__resv_custom_complete ---completion config path -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_repl() {
    local -i ret=1
    local -ar arg_specs=(
        '--stop-on-error[Without a terminal\: stop at the first line that fails.]'
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion repl -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_whoami() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion whoami -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_login() {
    local -i ret=1
    local -ar arg_specs=(
        ':server:'
        '--server[The server, as the argument names it.]:url:'
        '--profile[The profile (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose; '\''default'\'' is the file'\''s top level).]:name:{__resv_custom_complete ---completion login -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--cacert[CA certificates (PEM) to verify the server with, kept with the token (default\: the system'\''s).]:file:_files -g '\''*.pem *.crt'\'''
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_logout() {
    local -i ret=1
    local -ar arg_specs=(
        ':server:'
        '--server[The server, as the argument names it.]:url:'
        '--profile[The profile (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose; '\''default'\'' is the file'\''s top level).]:name:{__resv_custom_complete ---completion logout -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_sync() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion sync -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_outbox() {
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
            'list:List the queued changes (the default).'
            'drop:Remove queued changes from the outbox, unsent.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        list|drop)
            "_resv_outbox_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_resv_outbox_list() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion outbox list -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_outbox_drop() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        '*:ids:'
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion outbox drop -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_calendar() {
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
            'url:Print the calendar'\''s URL (made on first use; the default).'
            'reset:Replace the calendar'\''s URL; the old one stops working at once.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        url|reset)
            "_resv_calendar_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_resv_calendar_url() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion calendar url -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_calendar_reset() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion calendar reset -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_import() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        ':file:_files -g '\''*.ics *.csv'\'''
        '--dry-run[Check everything against your reservations, print what would be booked, and change nothing.]'
        '--strict[All or nothing\: an event that cannot be booked refuses the whole file.]'
        '--new-ids[Book every event as a new reservation of yours (a teammate'\''s export), not under its own id.]'
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion import -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_admin() {
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
            'capacity:Set how many people a landmark takes on a day or a range of days.'
            'close:Close a landmark on a day or a range of days, with a reason.'
            'open:Open a landmark'\''s days again, with the catalog'\''s capacity.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        capacity|close|open)
            "_resv_admin_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_resv_admin_capacity() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        ':landmark:{__resv_custom_complete ---completion admin capacity -- positional@0 "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        ':n:'
        '--on[The day, or the days DAY..DAY.]:day\[..day\]:'
        '--cancel[Cancel the parties over (the latest booked first), with the reason.]'
        '--waitlist[Move the parties over to the head of the day'\''s waitlist, in booking order.]'
        '--idempotency-key[On a server\: the Idempotency-Key this change is sent under, so running the command again never makes it twice (1 to 255 printable ASCII characters, no spaces; default\: a new key per run).]:key:'
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion admin capacity -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_admin_close() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        ':landmark:{__resv_custom_complete ---completion admin close -- positional@0 "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        ':day\[..day\]:'
        '--reason[Why\: one line, at most 500 characters.]:text:'
        '--cancel[Cancel the parties over (the latest booked first), with the reason.]'
        '--waitlist[Move the parties over to the head of the day'\''s waitlist, in booking order.]'
        '--idempotency-key[On a server\: the Idempotency-Key this change is sent under, so running the command again never makes it twice (1 to 255 printable ASCII characters, no spaces; default\: a new key per run).]:key:'
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion admin close -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_admin_open() {
    local -i ret=1
    local -ar ___format=('table' 'json' 'ndjson' 'csv' 'ics')
    local -ar arg_specs=(
        ':landmark:{__resv_custom_complete ---completion admin open -- positional@0 "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        ':day\[..day\]:'
        '--idempotency-key[On a server\: the Idempotency-Key this change is sent under, so running the command again never makes it twice (1 to 255 printable ASCII characters, no spaces; default\: a new key per run).]:key:'
        '--store[The JSON store file (default\: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).]:path:_files -g '\''*.json'\'''
        '--server[A resv-server to use instead of the file (default\: $RESV_SERVER, else the config file'\''s server).]:url:'
        '--profile[The config file'\''s profile to use (default\: $RESV_PROFILE, else the one '\''resv config use'\'' chose).]:name:{__resv_custom_complete ---completion admin open -- --profile "${current_word_index}" "$(__resv_cursor_index_in_current_word)"}'
        '--config[The config file (default\: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).]:path:_files -g '\''*.json'\'''
        '--offline[Read the server'\''s answers cached by earlier commands; never use the network.]'
        '--cacert[CA certificates (PEM) to verify an https server with, instead of the system'\''s (default\: $RESV_CACERT, else the config file'\''s cacert for that server).]:file:_files -g '\''*.pem *.crt'\'''
        '--json[Print JSON (same as --format json).]'
        '--format[Output format (default\: table)\: json, ndjson (one object per line), csv (RFC 4180, a header row, CRLF line ends) or ics (an RFC 5545 calendar, for reservations).]:format:{__resv_complete "${___format[@]}"}'
        '--jq[Run the JSON output through this jq program (libjq)\: a result a line, a string as itself, anything else as compact JSON; implies --json (with --format ndjson, each line is an input).]:expression:'
        '(--verbose -v)'{--verbose,-v}'[List every skipped record with its reason.]'
        '--tz[Show times in this zone\: local (TZ), utc or an IANA zone such as Europe/Paris (default\: a visit at its landmark'\''s time, a change in TZ).]:zone:'
        '--no-pager[Write to the terminal even when the output is taller than it (default\: list, log, show, availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_completion() {
    local -i ret=1
    local -ar _shell=('bash' 'zsh' 'fish')
    local -ar arg_specs=(
        ':shell:{__resv_complete "${_shell[@]}"}'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_resv_help() {
    local -i ret=1
    local -ar arg_specs=(
        '*:subcommands:'
        '--version[Show the version.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

if [[ "${funcstack[1]}" = _resv ]]; then
    _resv "${@}"
else
    compdef _resv resv
fi
