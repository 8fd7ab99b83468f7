# The assertions of the command-line tests (sourced): run a command, check
# its exit code and that stdout+stderr contain a fixed string.
passed=0 failed=0

# report NAME EXIT_CODE PATTERN STATUS OUTPUT: counts a pass or a failure.
report() {
  local name=$1 code=$2 pattern=$3 status=$4 out=$5
  if [[ $status -eq $code && $out == *"$pattern"* ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED $name: exit $status (want $code), output:"
    echo "$out" | sed 's/^/  /'
    echo "  wanted: $pattern"
  fi
}

# expect NAME EXIT_CODE PATTERN -- COMMAND...: the exit code must match and
# stdout+stderr must contain PATTERN (a fixed string).
expect() {
  local name=$1 code=$2 pattern=$3
  shift 4
  local out status
  out=$("$@" 2>&1 </dev/null)
  status=$?
  report "$name" "$code" "$pattern" "$status" "$out"
}

# expect_stdin NAME EXIT_CODE PATTERN INPUT -- COMMAND...: the same, with
# INPUT on standard input.
expect_stdin() {
  local name=$1 code=$2 pattern=$3 input=$4
  shift 5
  local out status
  out=$(printf '%s' "$input" | "$@" 2>&1)
  status=$?
  report "$name" "$code" "$pattern" "$status" "$out"
}

# finish: the summary line; the test's exit status.
finish() {
  echo "$passed passed, $failed failed"
  [[ $failed -eq 0 ]]
}
