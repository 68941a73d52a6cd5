#!/usr/bin/env bash
# TAP: scripts/summarize-tests.py counts the cases of every TAP test (GTest
# or script, with or without --tap on its command line) and fails on any
# failure or missing VM result.
set -u
summarize=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A TAP script (no --tap), a GTest binary, a plain test; a VM results file.
python3 - "$tmp/log.json" <<'PY'
import json, sys
rows = [
    {'name': 'lint / tap-script', 'result': 'OK',
     'command': ['/x/check.sh', 'arg'],
     'stdout': '1..3\nok 1 - a\nok 2 - b\nok 3 - c # SKIP no tool\n'},
    {'name': 'unit / gtest', 'result': 'OK', 'command': ['/x/test-a', '--tap'],
     'stdout': '# random seed\nok 1 /a\nok 2 /b\n1..2\n'},
    {'name': 'unit / plain', 'result': 'OK', 'command': ['/x/plain'],
     'stdout': 'all good\n'},
]
with open(sys.argv[1], 'w') as f:
    for r in rows:
        f.write(json.dumps(r) + '\n')
PY
printf '1..2\nok 1 - vm one\nnot ok 2 - vm two\n#   why two failed\n' >"$tmp/vm.tap"
printf '1..2\nok 1 - vm one\n' >"$tmp/vm-short.tap"

echo "1..5"
out=$(python3 "$summarize" "$tmp/log.json" 2>&1); rc=$?
if [[ $rc -eq 0 && $(tail -n1 <<<"$out") == "5 passed, 0 failed, 1 skipped" ]]; then
    echo "ok 1 - cases of TAP scripts and GTest binaries are counted"
else
    echo "not ok 1 - expected "5 passed, 0 failed, 1 skipped", rc 0; got rc $rc:"
    # shellcheck disable=SC2001  # prefixes every line, not only the first
    sed 's/^/# /' <<<"$out"
fi
out=$(python3 "$summarize" "$tmp/log.json" "$tmp/vm.tap" 2>&1); rc=$?
if [[ $rc -ne 0 && $(tail -n1 <<<"$out") == "6 passed, 1 failed, 1 skipped" ]]; then
    echo "ok 2 - a failed VM test fails the run"
else
    echo "not ok 2 - expected "6 passed, 1 failed, 1 skipped", rc != 0; got rc $rc:"
    # shellcheck disable=SC2001  # prefixes every line, not only the first
    sed 's/^/# /' <<<"$out"
fi
out=$(python3 "$summarize" "$tmp/log.json" "$tmp/vm-short.tap" 2>&1); rc=$?
if [[ $rc -ne 0 ]]; then
    echo "ok 3 - a missing VM result fails the run"
else
    echo "not ok 3 - a missing VM result passed:"
    # shellcheck disable=SC2001  # prefixes every line, not only the first
    sed 's/^/# /' <<<"$out"
fi
out=$(python3 "$summarize" "$tmp/log.json" "$tmp/vm.tap" 2>&1)
if grep -q '^#   why two failed$' <<<"$out" &&
   [[ $(tail -n2 <<<"$out" | head -n1) == "FAILED: $tmp/vm.tap: - vm two" ]]; then
    echo "ok 4 - the first VM failure's diagnostics are printed above the list of failures"
else
    echo "not ok 4 - no '#   why two failed' above 'FAILED: ... vm two':"
    # shellcheck disable=SC2001  # prefixes every line, not only the first
    sed 's/^/# /' <<<"$out"
fi
# A 'not ok ... # TODO' (a known failure) is skipped, not failed; '# SUMMARY:' lines print.
printf '1..3\nok 1 - vm one\nnot ok 2 - vm two # TODO rxe fails it too\n# SUMMARY: x passes 1\nok 3 - vm three # SKIP none\n' >"$tmp/vm-todo.tap"
out=$(python3 "$summarize" "$tmp/vm-todo.tap" 2>&1); rc=$?
if [[ $rc -eq 0 && $(tail -n1 <<<"$out") == "1 passed, 0 failed, 2 skipped" &&
      $(tail -n2 <<<"$out" | head -n1) == "x passes 1" ]] &&
   grep -q '^TODO (known failure, not counted as failed): .*vm two' <<<"$out"; then
    echo "ok 5 - a TODO case is a known failure, not a failure; the SUMMARY line is printed"
else
    echo "not ok 5 - expected rc 0, 'x passes 1' then '1 passed, 0 failed, 2 skipped'; got rc $rc:"
    # shellcheck disable=SC2001  # prefixes every line, not only the first
    sed 's/^/# /' <<<"$out"
fi
