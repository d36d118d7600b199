#!/bin/bash

__resv_cursor_index_in_current_word() {
    local remaining="${COMP_LINE}"

    local word
    for word in "${COMP_WORDS[@]::COMP_CWORD}"; do
        remaining="${remaining##*([[:space:]])"${word}"*([[:space:]])}"
    done

    local -ir index="$((COMP_POINT - ${#COMP_LINE} + ${#remaining}))"
    if [[ "${index}" -le 0 ]]; then
        printf 0
    else
        printf %s "${index}"
    fi
}

# positional arguments:
#
# - 1: the current (sub)command's count of positional arguments
#
# required variables:
#
# - repeating_flags: the repeating flags that the current (sub)command can accept
# - non_repeating_flags: the non-repeating flags that the current (sub)command can accept
# - repeating_options: the repeating options that the current (sub)command can accept
# - non_repeating_options: the non-repeating options that the current (sub)command can accept
# - positional_number: value ignored
# - unparsed_words: unparsed words from the current command line
#
# modified variables:
#
# - non_repeating_flags: remove flags for this (sub)command that are already on the command line
# - non_repeating_options: remove options for this (sub)command that are already on the command line
# - positional_number: set to the current positional number
# - unparsed_words: remove all flags, options, and option values for this (sub)command
__resv_offer_flags_options() {
    local -ir positional_count="${1}"
    positional_number=0

    local was_flag_option_terminator_seen=false
    local is_parsing_option_value=false

    local -ar unparsed_word_indices=("${!unparsed_words[@]}")
    local -i word_index
    for word_index in "${unparsed_word_indices[@]}"; do
        if "${is_parsing_option_value}"; then
            # This word is an option value:
            # Reset marker for next word iff not currently the last word
            [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]] && is_parsing_option_value=false
            unset "unparsed_words[${word_index}]"
            # Do not process this word as a flag or an option
            continue
        fi

        local word="${unparsed_words["${word_index}"]}"
        if ! "${was_flag_option_terminator_seen}"; then
            case "${word}" in
            --)
                unset "unparsed_words[${word_index}]"
                # by itself -- is a flag/option terminator, but if it is the last word, it is the start of a completion
                if [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]]; then
                    was_flag_option_terminator_seen=true
                fi
                continue
                ;;
            -*)
                # ${word} is a flag or an option
                # If ${word} is an option, mark that the next word to be parsed is an option value
                local option
                for option in "${repeating_options[@]}" "${non_repeating_options[@]}"; do
                    [[ "${word}" = "${option}" ]] && is_parsing_option_value=true && break
                done

                # Remove ${word} from ${non_repeating_flags} or ${non_repeating_options} so it isn't offered again
                local not_found=true
                local -i index
                for index in "${!non_repeating_flags[@]}"; do
                    if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                        unset "non_repeating_flags[${index}]"
                        non_repeating_flags=("${non_repeating_flags[@]}")
                        not_found=false
                        break
                    fi
                done
                if "${not_found}"; then
                    for index in "${!non_repeating_flags[@]}"; do
                        if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                            unset "non_repeating_flags[${index}]"
                            non_repeating_flags=("${non_repeating_flags[@]}")
                            break
                        fi
                    done
                fi
                unset "unparsed_words[${word_index}]"
                continue
                ;;
            esac
        fi

        # ${word} is neither a flag, nor an option, nor an option value
        if [[ "${positional_number}" -lt "${positional_count}" || "${positional_count}" -lt 0 ]]; then
            # ${word} is a positional
            ((positional_number++))
            unset "unparsed_words[${word_index}]"
        else
            if [[ -z "${word}" ]]; then
                # Could be completing a flag, option, or subcommand
                positional_number=-1
            else
                # ${word} is a subcommand or invalid, so stop processing this (sub)command
                positional_number=-2
            fi
            break
        fi
    done

    unparsed_words=("${unparsed_words[@]}")

    if\
        ! "${was_flag_option_terminator_seen}"\
        && ! "${is_parsing_option_value}"\
        && [[ ("${cur}" = -* && "${positional_number}" -ge 0) || "${positional_number}" -eq -1 ]]
    then
        COMPREPLY+=($(compgen -W "${repeating_flags[*]} ${non_repeating_flags[*]} ${repeating_options[*]} ${non_repeating_options[*]}" -- "${cur}"))
    fi
}

__resv_add_completions() {
    local completion
    if [[ "${1}" != -W ]]; then
        # File and folder names: readline quotes them and marks folders.
        compopt -o filenames 2>/dev/null
        while IFS='' read -r completion; do
            COMPREPLY+=("${completion}")
        done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
        return
    fi
    # Words, one a line, taken as they are: compgen -W would expand $(...) in them.
    local -a words=()
    local special=false folder=false
    while IFS='' read -r completion; do
        # In any case: a name is read so when typed (ha finds Half Dome).
        [[ -n "${completion}" && "${completion,,}" == "${cur,,}"* ]] || continue
        words+=("${completion}")
        [[ "${completion}" == *[^[:alnum:]_./:@%+,=-]* ]] && special=true
        [[ -d "${completion}" ]] && folder=true
    done <<< "${2}"
    if "${special}" && "${folder}"; then
        # Quoted here: as file names, readline would add a slash to the folder's name.
        for completion in "${words[@]}"; do
            printf -v completion '%q' "${completion}"
            COMPREPLY+=("${completion}")
        done
        return
    fi
    # Readline quotes a word with a space or a shell character only in a file name.
    "${special}" && compopt -o filenames 2>/dev/null
    COMPREPLY+=("${words[@]}")
}

__resv_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_resv() {
    local state
    state="$(shopt -p;shopt -po)"
    trap "${state//$'\n'/;}" RETURN
    shopt -s extglob
    set +o history +o posix

    local -xr SAP_SHELL=bash
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(IFS='.';printf %s "${BASH_VERSINFO[*]}")"
    local -r SAP_SHELL_VERSION

    local -r cur="${2}"
    local -r prev="${3}"

    local -i positional_number
    local -a unparsed_words=("${COMP_WORDS[@]:1:${COMP_CWORD}}")

    local -a repeating_flags=()
    local -a non_repeating_flags=(--offline --json --no-pager --version -h --help)
    local -a repeating_options=()
    local -a non_repeating_options=(--store --server --profile --config --cacert --format --jq)
    __resv_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    esac

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    list|reserve|cancel|confirm|modify|checkin|noshow|day|log|undo|redo|show|watch|wait|availability|fetch|landmarks|config|repl|whoami|login|logout|sync|outbox|calendar|import|admin|completion|help)
        # Offer subcommand argument completions
        "_resv_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'list reserve cancel confirm modify checkin noshow day log undo redo show watch wait availability fetch landmarks config repl whoami login logout sync outbox calendar import admin completion help' -- "${cur}"))
        ;;
    esac
}

_resv_list() {
    repeating_flags=()
    non_repeating_flags=(--all --reverse --offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=(--status)
    non_repeating_options=(--landmark -l --from --to --sort --limit --store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--status')
        __resv_add_completions -W 'pending'$'\n''confirmed'$'\n''cancelled'$'\n''held'$'\n''expired'$'\n''waitlisted'$'\n''checked-in'$'\n''no-show'
        return
        ;;
    '--landmark'|'-l')
        __resv_add_completions -W "$(__resv_custom_complete ---completion list -- --landmark "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--from')
        return
        ;;
    '--to')
        return
        ;;
    '--sort')
        __resv_add_completions -W 'date'$'\n''landmark'$'\n''party-size'$'\n''status'
        return
        ;;
    '--limit')
        return
        ;;
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion list -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac
}

_resv_reserve() {
    repeating_flags=()
    non_repeating_flags=(--pending --waitlist --queue --offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--landmark -l --date -d --note --party-size -n --batch --hold --every --count --until --idempotency-key --store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--landmark'|'-l')
        __resv_add_completions -W "$(__resv_custom_complete ---completion reserve -- --landmark "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--date'|'-d')
        return
        ;;
    '--note')
        return
        ;;
    '--party-size'|'-n')
        return
        ;;
    '--batch')
        __resv_add_completions -f
        return
        ;;
    '--hold')
        return
        ;;
    '--every')
        __resv_add_completions -W 'day'$'\n''week'$'\n''month'
        return
        ;;
    '--count')
        return
        ;;
    '--until')
        return
        ;;
    '--idempotency-key')
        return
        ;;
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion reserve -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac
}

_resv_cancel() {
    repeating_flags=()
    non_repeating_flags=(--queue --offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--series --idempotency-key --store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--series')
        return
        ;;
    '--idempotency-key')
        return
        ;;
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion cancel -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    *)
        __resv_add_completions -W "$(__resv_custom_complete ---completion cancel -- positional@0 "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_resv_confirm() {
    repeating_flags=()
    non_repeating_flags=(--queue --offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--idempotency-key --store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--idempotency-key')
        return
        ;;
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion confirm -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    *)
        __resv_add_completions -W "$(__resv_custom_complete ---completion confirm -- positional@0 "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_resv_modify() {
    repeating_flags=()
    non_repeating_flags=(--queue --offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--date -d --party-size -n --landmark -l --note --idempotency-key --store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--date'|'-d')
        return
        ;;
    '--party-size'|'-n')
        return
        ;;
    '--landmark'|'-l')
        __resv_add_completions -W "$(__resv_custom_complete ---completion modify -- --landmark "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--note')
        return
        ;;
    '--idempotency-key')
        return
        ;;
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion modify -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __resv_add_completions -W "$(__resv_custom_complete ---completion modify -- positional@0 "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_resv_checkin() {
    repeating_flags=()
    non_repeating_flags=(--offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--idempotency-key --store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--idempotency-key')
        return
        ;;
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion checkin -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __resv_add_completions -W "$(__resv_custom_complete ---completion checkin -- positional@0 "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_resv_noshow() {
    repeating_flags=()
    non_repeating_flags=(--offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--idempotency-key --store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--idempotency-key')
        return
        ;;
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion noshow -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __resv_add_completions -W "$(__resv_custom_complete ---completion noshow -- positional@0 "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_resv_day() {
    repeating_flags=()
    non_repeating_flags=(--offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--landmark -l --store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--landmark'|'-l')
        __resv_add_completions -W "$(__resv_custom_complete ---completion day -- --landmark "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion day -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac
}

_resv_log() {
    repeating_flags=()
    non_repeating_flags=(--offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--limit --from --to --user --store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--limit')
        return
        ;;
    '--from')
        return
        ;;
    '--to')
        return
        ;;
    '--user')
        return
        ;;
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion log -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __resv_add_completions -W "$(__resv_custom_complete ---completion log -- positional@0 "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_resv_undo() {
    repeating_flags=()
    non_repeating_flags=(-y --yes --offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--idempotency-key --store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--idempotency-key')
        return
        ;;
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion undo -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac
}

_resv_redo() {
    repeating_flags=()
    non_repeating_flags=(-y --yes --offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--idempotency-key --store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--idempotency-key')
        return
        ;;
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion redo -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac
}

_resv_show() {
    repeating_flags=()
    non_repeating_flags=(--offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion show -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __resv_add_completions -W "$(__resv_custom_complete ---completion show -- positional@0 "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_resv_watch() {
    repeating_flags=()
    non_repeating_flags=(--no-follow --offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--after --timeout --store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--after')
        return
        ;;
    '--timeout')
        return
        ;;
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion watch -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac
}

_resv_wait() {
    repeating_flags=()
    non_repeating_flags=(--offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--for --timeout --store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--for')
        return
        ;;
    '--timeout')
        return
        ;;
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion wait -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __resv_add_completions -W "$(__resv_custom_complete ---completion wait -- positional@0 "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_resv_availability() {
    repeating_flags=()
    non_repeating_flags=(--calendar --offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--from --to --store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--from')
        return
        ;;
    '--to')
        return
        ;;
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion availability -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __resv_add_completions -W "$(__resv_custom_complete ---completion availability -- positional@0 "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_resv_fetch() {
    repeating_flags=()
    non_repeating_flags=(--offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion fetch -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac
}

_resv_landmarks() {
    repeating_flags=()
    non_repeating_flags=(--offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion landmarks -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac
}

_resv_config() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __resv_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    list|get|set|unset|use|remove|path)
        # Offer subcommand argument completions
        "_resv_config_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'list get set unset use remove path' -- "${cur}"))
        ;;
    esac
}

_resv_config_list() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --config)
    __resv_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion config list -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    esac
}

_resv_config_get() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --config)
    __resv_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion config get -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __resv_add_completions -W 'store'$'\n''server'$'\n''token'$'\n''connectTimeout'$'\n''requestTimeout'$'\n''queue'
        return
        ;;
    esac
}

_resv_config_set() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --config)
    __resv_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion config set -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __resv_add_completions -W 'store'$'\n''server'$'\n''token'$'\n''connectTimeout'$'\n''requestTimeout'$'\n''queue'
        return
        ;;
    esac
}

_resv_config_unset() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --config)
    __resv_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion config unset -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __resv_add_completions -W 'store'$'\n''server'$'\n''token'$'\n''connectTimeout'$'\n''requestTimeout'$'\n''queue'
        return
        ;;
    esac
}

_resv_config_use() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--config)
    __resv_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __resv_add_completions -W "$(__resv_custom_complete ---completion config use -- positional@0 "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_resv_config_remove() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--config)
    __resv_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __resv_add_completions -W "$(__resv_custom_complete ---completion config remove -- positional@0 "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_resv_config_path() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --config)
    __resv_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion config path -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    esac
}

_resv_repl() {
    repeating_flags=()
    non_repeating_flags=(--stop-on-error --offline --version -h --help)
    repeating_options=()
    non_repeating_options=(--store --server --profile --config --cacert)
    __resv_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion repl -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    esac
}

_resv_whoami() {
    repeating_flags=()
    non_repeating_flags=(--offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion whoami -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac
}

_resv_login() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--server --profile --config --cacert)
    __resv_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion login -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    esac
}

_resv_logout() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--server --profile --config)
    __resv_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion logout -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    esac
}

_resv_sync() {
    repeating_flags=()
    non_repeating_flags=(--offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion sync -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac
}

_resv_outbox() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __resv_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    list|drop)
        # Offer subcommand argument completions
        "_resv_outbox_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'list drop' -- "${cur}"))
        ;;
    esac
}

_resv_outbox_list() {
    repeating_flags=()
    non_repeating_flags=(--offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion outbox list -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac
}

_resv_outbox_drop() {
    repeating_flags=()
    non_repeating_flags=(--offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion outbox drop -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac
}

_resv_calendar() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __resv_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    url|reset)
        # Offer subcommand argument completions
        "_resv_calendar_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'url reset' -- "${cur}"))
        ;;
    esac
}

_resv_calendar_url() {
    repeating_flags=()
    non_repeating_flags=(--offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion calendar url -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac
}

_resv_calendar_reset() {
    repeating_flags=()
    non_repeating_flags=(--offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion calendar reset -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac
}

_resv_import() {
    repeating_flags=()
    non_repeating_flags=(--dry-run --strict --new-ids --offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion import -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __resv_add_completions -o plusdirs -fX '!*.@(ics|csv)'
        return
        ;;
    esac
}

_resv_admin() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __resv_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    capacity|close|open)
        # Offer subcommand argument completions
        "_resv_admin_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'capacity close open' -- "${cur}"))
        ;;
    esac
}

_resv_admin_capacity() {
    repeating_flags=()
    non_repeating_flags=(--cancel --waitlist --offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--on --idempotency-key --store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--on')
        return
        ;;
    '--idempotency-key')
        return
        ;;
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion admin capacity -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __resv_add_completions -W "$(__resv_custom_complete ---completion admin capacity -- positional@0 "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_resv_admin_close() {
    repeating_flags=()
    non_repeating_flags=(--cancel --waitlist --offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--reason --idempotency-key --store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--reason')
        return
        ;;
    '--idempotency-key')
        return
        ;;
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion admin close -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __resv_add_completions -W "$(__resv_custom_complete ---completion admin close -- positional@0 "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_resv_admin_open() {
    repeating_flags=()
    non_repeating_flags=(--offline --json --verbose -v --no-pager --version -h --help)
    repeating_options=()
    non_repeating_options=(--idempotency-key --store --server --profile --config --cacert --format --jq --tz)
    __resv_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--idempotency-key')
        return
        ;;
    '--store')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--server')
        return
        ;;
    '--profile')
        __resv_add_completions -W "$(__resv_custom_complete ---completion admin open -- --profile "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    '--config')
        __resv_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--cacert')
        __resv_add_completions -o plusdirs -fX '!*.@(pem|crt)'
        return
        ;;
    '--format')
        __resv_add_completions -W 'table'$'\n''json'$'\n''ndjson'$'\n''csv'$'\n''ics'
        return
        ;;
    '--jq')
        return
        ;;
    '--tz')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __resv_add_completions -W "$(__resv_custom_complete ---completion admin open -- positional@0 "${COMP_CWORD}" "$(__resv_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_resv_completion() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __resv_offer_flags_options 1

    # Offer positional completions
    case "${positional_number}" in
    1)
        __resv_add_completions -W 'bash'$'\n''zsh'$'\n''fish'
        return
        ;;
    esac
}

_resv_help() {
    repeating_flags=()
    non_repeating_flags=(--version)
    repeating_options=()
    non_repeating_options=()
    __resv_offer_flags_options -1
}

complete -F _resv resv
