#!/usr/bin/python3
"""Count individual test cases across the whole suite and print the final
'N passed, N failed' line.

Inputs: meson's testlog.json (TAP tests, those printing a plan line, are
counted per test case, others per executable) and plain result files with
'ok NAME' / 'not ok NAME' lines (the VM tests). Exit status 1 if anything failed or nothing ran.
A case with a TAP directive is not a pass: 'ok ... # SKIP' counts as skipped, and
'not ok ... # TODO' (a known failure, e.g. an rdma-core test Linux rxe fails too) as
skipped and not failed, listed by name. A '# SUMMARY: TEXT' line is printed as is before
the final line.
"""
import json
import re
import sys

passed = failed = skipped = 0
failures = []
todos = []
summaries = []
# The VM tests' TAP diagnostic lines ('# ...', the guest's output) under the
# first failed case that has them.
first_diag = []


def tap_counts(name, stdout, diagnostics=False):
    global passed, failed, skipped
    n = 0
    in_failure = False
    for line in stdout.splitlines():
        m = re.match(r'^(not ok|ok)\b\s*\d*\s*(.*)$', line)
        if not m:
            if line.startswith('# SUMMARY: '):
                summaries.append(line[len('# SUMMARY: '):])
                continue
            if diagnostics and in_failure and line.startswith('#') and \
                    (not first_diag or first_diag[0] == failures[-1]):
                if not first_diag:
                    first_diag.append(failures[-1])
                first_diag.append(line)
            continue
        n += 1
        desc = m.group(2)
        todo = m.group(1) == 'not ok' and re.search(r'#\s*TODO\b', desc, re.I)
        in_failure = m.group(1) == 'not ok' and not todo
        if todo:
            skipped += 1
            todos.append(f'{name}: {desc}')
        elif re.search(r'#\s*SKIP\b', desc, re.I):
            skipped += 1
        elif m.group(1) == 'ok':
            passed += 1
        else:
            failed += 1
            failures.append(f'{name}: {desc}')
    return n


def meson_log(path):
    global passed, failed
    with open(path) as f:
        for line in f:
            t = json.loads(line)
            name = t['name']
            ok = t['result'] in ('OK', 'EXPECTEDFAIL')
            n = 0
            out = t.get('stdout', '') or ''
            # meson's log does not record the protocol: a TAP plan line
            # (GTest --tap and the TAP scripts print one) marks TAP output.
            if re.search(r'^1\.\.\d+', out, re.M):
                n = tap_counts(name, out)
            if n == 0 or not ok:
                # No test cases seen, or the executable itself failed
                # (crash, timeout, bad plan): count the executable.
                if ok:
                    passed += 1
                else:
                    failed += 1
                    failures.append(f'{name}: {t["result"]}')


def result_file(path):
    """A TAP file with a plan: missing results count as failures."""
    global failed
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        failed += 1
        failures.append(f'{path}: {e.strerror}')
        return
    seen = tap_counts(path, text, diagnostics=True)
    m = re.search(r'^1\.\.(\d+)', text, re.M)
    planned = int(m.group(1)) if m else 0
    if planned == 0 or seen < planned:
        failed += max(planned - seen, 1)
        failures.append(f'{path}: {seen} of {planned} planned tests ran')


if set(sys.argv[1:]) & {'-h', '--help'}:
    print(__doc__.strip())
    sys.exit(0)
for arg in sys.argv[1:]:
    if arg.endswith('.json'):
        meson_log(arg)
    else:
        result_file(arg)

if first_diag:
    # CI shows the end of the output: why the first failure failed goes
    # just above the list of failures and the summary.
    print(f'--- first failure, {first_diag[0]}:')
    print('\n'.join(first_diag[1:]))
for t in todos:
    print(f'TODO (known failure, not counted as failed): {t}')
for f in failures:
    print(f'FAILED: {f}')
for t in summaries:
    print(t)
if skipped:
    print(f'{passed} passed, {failed} failed, {skipped} skipped')
else:
    print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed or passed == 0 else 0)
