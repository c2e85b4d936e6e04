# Bash completion for preflight. Source it (`source scripts/preflight-completion.bash`, or
# copy it to /etc/bash_completion.d/preflight). It reads the commands and their flags from
# the binary's own `--help`, so it knows exactly what that preflight's command syntax knows
# (CommandSyntax in Sources/PreflightService/CLI), and completes file names elsewhere.

_preflight() {
  local word=${COMP_WORDS[COMP_CWORD]} program=${COMP_WORDS[0]}
  local -a commands
  mapfile -t commands < <("$program" --help 2>/dev/null | awk '/^commands:/ { listing = 1; next }
    listing && /^$/ { exit } listing { sub(/^ +/, ""); split($0, parts, /  +/); print parts[1] }')
  # The command typed so far: the longest listed name ("plan import") the words start with.
  local command="" words=" ${COMP_WORDS[*]:1:COMP_CWORD-1} " name
  for name in "${commands[@]}"; do
    if [[ "$words" == " $name "* ]] && [ ${#name} -gt ${#command} ]; then command=$name; fi
  done
  if [ -z "$command" ]; then
    if [[ "$word" == -* ]]; then
      mapfile -t COMPREPLY < <(compgen -W "--help --version" -- "$word")
    else
      local first=()
      for name in "${commands[@]}"; do first+=("${name%% *}"); done
      if [ "$COMP_CWORD" -eq 2 ] && [ "${COMP_WORDS[1]}" = plan ]; then first=(import); fi
      mapfile -t COMPREPLY < <(compgen -W "${first[*]}" -- "$word")
    fi
    return
  fi
  if [[ "$word" == -* ]]; then
    local flags
    # shellcheck disable=SC2086 # "plan import" is two words
    flags=$("$program" $command --help 2>/dev/null | grep -oE -- '--[a-z][a-z-]*' | sort -u)
    mapfile -t COMPREPLY < <(compgen -W "$flags --help" -- "$word")
  else
    mapfile -t COMPREPLY < <(compgen -f -- "$word")
  fi
}
complete -o filenames -F _preflight preflight
