#!/bin/bash

__darkroom_cursor_index_in_current_word() {
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
__darkroom_offer_flags_options() {
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

__darkroom_add_completions() {
    local completion
    while IFS='' read -r completion; do
        COMPREPLY+=("${completion}")
    done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
}

__darkroom_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_darkroom() {
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
    local -a non_repeating_flags=(--version -h --help)
    local -a repeating_options=()
    local -a non_repeating_options=()
    __darkroom_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    develop|thumbnail|recipe|info|explain|profiles|make-samples|convert|verify|extract|compare|constant-colour|profile|report|help)
        # Offer subcommand argument completions
        "_darkroom_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'develop thumbnail recipe info explain profiles make-samples convert verify extract compare constant-colour profile report help' -- "${cur}"))
        ;;
    esac
}

_darkroom_develop() {
    repeating_flags=()
    non_repeating_flags=(--recursive -r --overwrite --retry-failed --quiet -q --nclx --no-nclx --strip-metadata --no-strip-metadata --profile-look --no-profile-look --baseline-exposure --no-baseline-exposure --dither --no-dither --crop --no-crop --orientation --no-orientation --version -h --help)
    repeating_options=(--matte)
    non_repeating_options=(-o --output --jobs --memory --shard --report --timeout --stage --log --recipe --format --quality --chroma --name --mattes --color-space --demosaic --wb --wb-rect --wb-gains --profile --profile-name --gamut --highlights --noise-reduction --sharpen --lens --exposure --look --tone --tone-shoulder --bit-depth --opcodes --thumbnail-size --tile-size --threads --bayer --bits --size --black --white --stride)
    __darkroom_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '-o'|'--output')
        return
        ;;
    '--jobs')
        return
        ;;
    '--memory')
        return
        ;;
    '--shard')
        return
        ;;
    '--report')
        return
        ;;
    '--timeout')
        return
        ;;
    '--stage')
        return
        ;;
    '--log')
        __darkroom_add_completions -W 'auto'$'\n''progress'$'\n''json'$'\n''text'
        return
        ;;
    '--recipe')
        return
        ;;
    '--format')
        return
        ;;
    '--quality')
        return
        ;;
    '--chroma')
        return
        ;;
    '--name')
        return
        ;;
    '--mattes')
        return
        ;;
    '--matte')
        return
        ;;
    '--color-space')
        return
        ;;
    '--demosaic')
        return
        ;;
    '--wb')
        return
        ;;
    '--wb-rect')
        return
        ;;
    '--wb-gains')
        return
        ;;
    '--profile')
        return
        ;;
    '--profile-name')
        return
        ;;
    '--gamut')
        return
        ;;
    '--highlights')
        return
        ;;
    '--noise-reduction')
        return
        ;;
    '--sharpen')
        return
        ;;
    '--lens')
        return
        ;;
    '--exposure')
        return
        ;;
    '--look')
        return
        ;;
    '--tone')
        return
        ;;
    '--tone-shoulder')
        return
        ;;
    '--bit-depth')
        return
        ;;
    '--opcodes')
        return
        ;;
    '--thumbnail-size')
        return
        ;;
    '--tile-size')
        return
        ;;
    '--threads')
        return
        ;;
    '--bayer')
        return
        ;;
    '--bits')
        return
        ;;
    '--size')
        return
        ;;
    '--black')
        return
        ;;
    '--white')
        return
        ;;
    '--stride')
        return
        ;;
    esac
}

_darkroom_thumbnail() {
    repeating_flags=()
    non_repeating_flags=(--overwrite --quiet -q --version -h --help)
    repeating_options=()
    non_repeating_options=(-o --output --size)
    __darkroom_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '-o'|'--output')
        return
        ;;
    '--size')
        return
        ;;
    esac
}

_darkroom_recipe() {
    repeating_flags=()
    non_repeating_flags=(--print --nclx --no-nclx --strip-metadata --no-strip-metadata --profile-look --no-profile-look --baseline-exposure --no-baseline-exposure --dither --no-dither --crop --no-crop --orientation --no-orientation --version -h --help)
    repeating_options=(--matte)
    non_repeating_options=(--recipe --format --quality --chroma --name --mattes --color-space --demosaic --wb --wb-rect --wb-gains --profile --profile-name --gamut --highlights --noise-reduction --sharpen --lens --exposure --look --tone --tone-shoulder --bit-depth --opcodes --thumbnail-size --tile-size --threads --bayer --bits --size --black --white --stride)
    __darkroom_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--recipe')
        return
        ;;
    '--format')
        return
        ;;
    '--quality')
        return
        ;;
    '--chroma')
        return
        ;;
    '--name')
        return
        ;;
    '--mattes')
        return
        ;;
    '--matte')
        return
        ;;
    '--color-space')
        return
        ;;
    '--demosaic')
        return
        ;;
    '--wb')
        return
        ;;
    '--wb-rect')
        return
        ;;
    '--wb-gains')
        return
        ;;
    '--profile')
        return
        ;;
    '--profile-name')
        return
        ;;
    '--gamut')
        return
        ;;
    '--highlights')
        return
        ;;
    '--noise-reduction')
        return
        ;;
    '--sharpen')
        return
        ;;
    '--lens')
        return
        ;;
    '--exposure')
        return
        ;;
    '--look')
        return
        ;;
    '--tone')
        return
        ;;
    '--tone-shoulder')
        return
        ;;
    '--bit-depth')
        return
        ;;
    '--opcodes')
        return
        ;;
    '--thumbnail-size')
        return
        ;;
    '--tile-size')
        return
        ;;
    '--threads')
        return
        ;;
    '--bayer')
        return
        ;;
    '--bits')
        return
        ;;
    '--size')
        return
        ;;
    '--black')
        return
        ;;
    '--white')
        return
        ;;
    '--stride')
        return
        ;;
    esac
}

_darkroom_info() {
    repeating_flags=()
    non_repeating_flags=(--json --stats --version -h --help)
    repeating_options=()
    non_repeating_options=(--bayer --bits --size --black --white --stride)
    __darkroom_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--bayer')
        return
        ;;
    '--bits')
        return
        ;;
    '--size')
        return
        ;;
    '--black')
        return
        ;;
    '--white')
        return
        ;;
    '--stride')
        return
        ;;
    esac
}

_darkroom_explain() {
    repeating_flags=()
    non_repeating_flags=(--profile-look --no-profile-look --baseline-exposure --no-baseline-exposure --dither --no-dither --crop --no-crop --orientation --no-orientation --version -h --help)
    repeating_options=()
    non_repeating_options=(--recipe --color-space --demosaic --wb --wb-rect --wb-gains --profile --profile-name --gamut --highlights --noise-reduction --sharpen --lens --exposure --look --tone --tone-shoulder --bit-depth --opcodes --thumbnail-size --tile-size --threads --bayer --bits --size --black --white --stride)
    __darkroom_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--recipe')
        return
        ;;
    '--color-space')
        return
        ;;
    '--demosaic')
        return
        ;;
    '--wb')
        return
        ;;
    '--wb-rect')
        return
        ;;
    '--wb-gains')
        return
        ;;
    '--profile')
        return
        ;;
    '--profile-name')
        return
        ;;
    '--gamut')
        return
        ;;
    '--highlights')
        return
        ;;
    '--noise-reduction')
        return
        ;;
    '--sharpen')
        return
        ;;
    '--lens')
        return
        ;;
    '--exposure')
        return
        ;;
    '--look')
        return
        ;;
    '--tone')
        return
        ;;
    '--tone-shoulder')
        return
        ;;
    '--bit-depth')
        return
        ;;
    '--opcodes')
        return
        ;;
    '--thumbnail-size')
        return
        ;;
    '--tile-size')
        return
        ;;
    '--threads')
        return
        ;;
    '--bayer')
        return
        ;;
    '--bits')
        return
        ;;
    '--size')
        return
        ;;
    '--black')
        return
        ;;
    '--white')
        return
        ;;
    '--stride')
        return
        ;;
    esac
}

_darkroom_profiles() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--profiles-dir)
    non_repeating_options=(--write-icc)
    __darkroom_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--profiles-dir')
        return
        ;;
    '--write-icc')
        return
        ;;
    esac
}

_darkroom_make-samples() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(-o --output)
    __darkroom_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '-o'|'--output')
        return
        ;;
    esac
}

_darkroom_convert() {
    repeating_flags=()
    non_repeating_flags=(--recursive -r --embed-original --overwrite --quiet -q --version -h --help)
    repeating_options=()
    non_repeating_options=(-o --output --compression --preview --jobs --verify --report --memory --timeout --shard)
    __darkroom_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '-o'|'--output')
        return
        ;;
    '--compression')
        return
        ;;
    '--preview')
        return
        ;;
    '--jobs')
        return
        ;;
    '--verify')
        return
        ;;
    '--report')
        return
        ;;
    '--memory')
        return
        ;;
    '--timeout')
        return
        ;;
    '--shard')
        return
        ;;
    esac
}

_darkroom_verify() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--original)
    __darkroom_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--original')
        return
        ;;
    esac
}

_darkroom_extract() {
    repeating_flags=()
    non_repeating_flags=(--overwrite --version -h --help)
    repeating_options=()
    non_repeating_options=(-o --output)
    __darkroom_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '-o'|'--output')
        return
        ;;
    esac
}

_darkroom_compare() {
    repeating_flags=()
    non_repeating_flags=(--overwrite --version -h --help)
    repeating_options=(--profile --illuminant)
    non_repeating_options=(--reference --chart --normalise -o --output --threads)
    __darkroom_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--profile')
        return
        ;;
    '--reference')
        return
        ;;
    '--chart')
        return
        ;;
    '--illuminant')
        return
        ;;
    '--normalise')
        return
        ;;
    '-o'|'--output')
        return
        ;;
    '--threads')
        return
        ;;
    esac
}

_darkroom_constant-colour() {
    repeating_flags=()
    non_repeating_flags=(--explain --overwrite --version -h --help)
    repeating_options=()
    non_repeating_options=(--ambient --flash --pairs --recipe -o --output --flash-profile --flash-xy --flash-spectrum --format --fallback --min-confidence --max-shift --bits --threads)
    __darkroom_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--ambient')
        return
        ;;
    '--flash')
        return
        ;;
    '--pairs')
        return
        ;;
    '--recipe')
        return
        ;;
    '-o'|'--output')
        return
        ;;
    '--flash-profile')
        return
        ;;
    '--flash-xy')
        return
        ;;
    '--flash-spectrum')
        return
        ;;
    '--format')
        return
        ;;
    '--fallback')
        __darkroom_add_completions -W 'auto'$'\n''always'$'\n''never'
        return
        ;;
    '--min-confidence')
        return
        ;;
    '--max-shift')
        return
        ;;
    '--bits')
        return
        ;;
    '--threads')
        return
        ;;
    esac
}

_darkroom_profile() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __darkroom_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    fit)
        # Offer subcommand argument completions
        "_darkroom_profile_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'fit' -- "${cur}"))
        ;;
    esac
}

_darkroom_profile_fit() {
    repeating_flags=()
    non_repeating_flags=(--least-squares-only --hue-sat-map --no-forward-matrix --overwrite --version -h --help)
    repeating_options=(--illuminant)
    non_repeating_options=(--reference --chart --name -o --output --threads)
    __darkroom_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--reference')
        return
        ;;
    '--illuminant')
        return
        ;;
    '--chart')
        return
        ;;
    '--name')
        return
        ;;
    '-o'|'--output')
        return
        ;;
    '--threads')
        return
        ;;
    esac
}

_darkroom_report() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __darkroom_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    merge)
        # Offer subcommand argument completions
        "_darkroom_report_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'merge' -- "${cur}"))
        ;;
    esac
}

_darkroom_report_merge() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --version -h --help)
    repeating_options=()
    non_repeating_options=(-o --output)
    __darkroom_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '-o'|'--output')
        return
        ;;
    esac
}

_darkroom_help() {
    repeating_flags=()
    non_repeating_flags=(--version)
    repeating_options=()
    non_repeating_options=()
    __darkroom_offer_flags_options -1
}

complete -o filenames -F _darkroom darkroom