#!/usr/bin/python3
"""Judge rdma-core's Python tests run in a VM (the rdma-core-tests role).

    rdma-core-results.py reference CONSOLE-LOG OUT-FILE
        Write the rxe result list (the reference) from a run of the role on rxe.
    rdma-core-results.py compare CONSOLE-LOG --reference FILE --exceptions FILE [--name N]
        TAP lines (unnumbered: 'ok NAME', 'not ok NAME', '# ...') for a run on snic,
        one per test, named NAME/<test id> (NAME: vm/rdma-core), for tests/vm/vm-tests.sh.

    --reference FILE   rxe's result list (tests/vm/rdma-core-rxe-results.txt)
    --exceptions FILE  tests snic may miss, each with its reason
                       (tests/vm/rdma-core-exceptions.txt)
    --name N           the TAP cases' prefix (default vm/rdma-core)

The console holds the role's `SNIC-STEP name=X result=PASS|FAIL` lines, one
`SNIC-RDMA-TEST result=R id=ID time=S [reason=TEXT]` line per test (R: pass, fail, error,
skip, timeout, notrun), the lines '  | ...' (a failed test's output and traceback) before
its line, `SNIC-RDMA-VERSIONS kernel=K pyverbs=V ...` and `SNIC-RDMA-SUMMARY ...`.

How a snic result S is judged against rxe's result R (the reference list):
  S pass                               ok
  test in the exception list           ok # SKIP excepted: <its reason>
  S skip, R pass                       not ok (rxe passes it)
  S skip, otherwise                    ok # SKIP <snic's reason>
  S fail/error/timeout/notrun/missing,
      R fail/error/timeout             not ok # TODO known rxe result (does not fail)
      otherwise                        not ok (rxe skips a test for lack of a feature or,
                                       like the rdma_cm tests, of a netdev under sysfs:
                                       snic must then at least not fail it)
The exception list holds at most 5 entries, each `TEST-ID REASON` (a documented device
capability); it is checked (its own TAP case). Last, a TAP comment
'# SUMMARY: rdma-core tests: snic passes X, rxe passes Y (of Z)'.
"""
import argparse
import datetime
import re
import sys

MAX_EXCEPTIONS = 5
FAILED = ('fail', 'error', 'timeout', 'notrun')
TEST_RE = re.compile(r'^SNIC-RDMA-TEST result=(\w+) id=(\S+) time=(\S+)(?: reason=(.*))?$')
STEP_RE = re.compile(r'^SNIC-STEP name=(\S+) result=(PASS|FAIL)$')


def parse_console(path):
    run = {'tests': {}, 'order': [], 'steps': [], 'versions': {}, 'summary': None}
    diag = []
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\r\n').replace('\r', '')
            if line.startswith('  | '):
                diag.append(line[4:])
                continue
            m = TEST_RE.match(line)
            if m:
                result, tid, took, reason = m.groups()
                if tid not in run['tests']:
                    run['order'].append(tid)
                run['tests'][tid] = {'result': result, 'reason': reason or '',
                                     'time': took, 'diag': diag}
                diag = []
                continue
            m = STEP_RE.match(line)
            if m:
                run['steps'].append(m.groups())
            elif line.startswith('SNIC-RDMA-VERSIONS '):
                run['versions'] = dict(kv.split('=', 1) for kv in line.split()[1:] if '=' in kv)
            elif line.startswith('SNIC-RDMA-SUMMARY '):
                run['summary'] = line
    return run


def read_reference(path):
    ref, meta = {}, {}
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            m = re.match(r'^# (kernel|rdma-core): (\S+)', line)
            if m:
                meta[m.group(1)] = m.group(2)
            if not line.strip() or line.startswith('#'):
                continue
            parts = line.split(None, 2)
            ref[parts[0]] = {'result': parts[1], 'reason': parts[2] if len(parts) > 2 else ''}
    return ref, meta


def read_exceptions(path):
    exc, problems = {}, []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            parts = line.split(None, 1)
            if len(parts) < 2:
                problems.append(f'line {n}: {parts[0]} has no reason')
            exc[parts[0]] = parts[1] if len(parts) > 1 else ''
    if len(exc) > MAX_EXCEPTIONS:
        problems.append(f'{len(exc)} entries, at most {MAX_EXCEPTIONS} allowed')
    return exc, problems


def tap_text(text):
    # A '#' in a description would start a TAP directive.
    return ' '.join(str(text).replace('#', 'No.').split())


def describe(r):
    if r is None:
        return 'gave no result'
    return r['result'] + (f': {r["reason"]}' if r['reason'] else '')


def cmd_reference(args):
    run = parse_console(args.console)
    if not run['summary'] or not run['order']:
        sys.exit(f'rdma-core-results: {args.console}: the suite did not run to its end '
                 '(no SNIC-RDMA-SUMMARY line): no reference written')
    notrun = [t for t in run['order'] if run['tests'][t]['result'] == 'notrun']
    if notrun:
        sys.exit(f'rdma-core-results: {len(notrun)} tests were not run (time budget): '
                 'no reference written')
    counts = {}
    for t in run['order']:
        r = run['tests'][t]['result']
        counts[r] = counts.get(r, 0) + 1
    v = run['versions']
    with open(args.out, 'w') as f:
        f.write(f"""# rdma-core's Python tests (run_tests.py, python3-pyverbs) on Linux rxe: the reference
# the snic run is judged against (scripts/rdma-core-results.py compare).
# Made by scripts/rdma-core-tests-reference.sh on {datetime.date.today().isoformat()}: role rdma-core-tests,
# rdma_rxe on virtio-net, one TCG VM. Make it again when the guest kernel or rdma-core
# (python3-pyverbs, libibverbs1) changes.
# kernel: {v.get('kernel', '?')}
# rdma-core: {v.get('pyverbs', '?')}
# totals: {len(run['order'])} tests: {', '.join(f'{counts.get(k, 0)} {k}' for k in ('pass', 'fail', 'error', 'skip', 'timeout'))}
# Format: TEST-ID RESULT [REASON]
""")
        for t in sorted(run['order']):
            r = run['tests'][t]
            f.write(f"{t} {r['result']}{' ' + ' '.join(r['reason'].split()) if r['reason'] else ''}\n")
    print(f"rdma-core-results: wrote {args.out}: {len(run['order'])} tests, "
          + ', '.join(f'{v} {k}' for k, v in sorted(counts.items())))


def cmd_compare(args):
    out = []

    def case(ok, name, diag=()):
        out.append(f"{'ok' if ok else 'not ok'} {name}")
        out.extend(f'#   {line}' for line in list(diag)[-15:])

    run = parse_console(args.console)
    name = args.name
    for step, res in run['steps']:
        case(res == 'PASS', f'{name}/step/{step}')
    try:
        ref, meta = read_reference(args.reference)
    except OSError as e:
        ref, meta = {}, {}
        case(False, f'{name}/reference ({args.reference}: {e.strerror}; make it with '
                    'scripts/rdma-core-tests-reference.sh)')
    try:
        exc, problems = read_exceptions(args.exceptions)
    except OSError as e:
        exc, problems = {}, [f'{args.exceptions}: {e.strerror}']
    unknown = [t for t in exc if ref and t not in ref]
    problems += [f'{t} is not a test of the suite' for t in unknown]
    case(not problems, f'{name}/exception-list' +
         (f" ({'; '.join(problems)})" if problems else f' ({len(exc)} entries)'))
    v = run['versions']
    for key, mkey in (('kernel', 'kernel'), ('pyverbs', 'rdma-core')):
        if meta.get(mkey) and v.get(key) and meta[mkey] != v[key]:
            out.append(f'# note: the rxe reference was made with {mkey} {meta[mkey]}, this run has '
                       f'{v[key]}: remake it (scripts/rdma-core-tests-reference.sh)')
    if not run['summary']:
        case(False, f'{name}/suite-completed (no SNIC-RDMA-SUMMARY line: the run was cut short)')

    snic_pass = rxe_pass = missing_pass = 0
    for tid in run['order'] + sorted(t for t in ref if t not in run['tests']):
        s, r = run['tests'].get(tid), ref.get(tid)
        sres = s['result'] if s else 'missing'
        rres = r['result'] if r else None
        snic_pass += sres == 'pass'
        rxe_pass += rres == 'pass'
        tname = f'{name}/{tid}'
        diag = s['diag'] if s else []
        if sres == 'pass':
            case(True, tname)
            if tid in exc:
                out.append(f'# note: {tid} passes: drop it from {args.exceptions}')
        elif tid in exc:
            case(True, f'{tname} # SKIP excepted: {tap_text(exc[tid])} (snic: {tap_text(describe(s))})')
        elif sres == 'skip':
            if rres == 'pass':
                missing_pass += 1
                case(False, f'{tname} (rxe passes it; snic skips it: {tap_text(s["reason"])})')
            else:
                case(True, f'{tname} # SKIP {tap_text(s["reason"])}')
        elif rres in ('fail', 'error', 'timeout'):
            case(False, f'{tname} # TODO known rxe result, rxe {tap_text(describe(r))}; '
                        f'snic {tap_text(describe(s))}', diag)
        else:
            missing_pass += rres == 'pass'
            rdesc = f'rxe {rres}' if r else 'no rxe result'
            case(False, f'{tname} (snic {tap_text(describe(s))}; {rdesc})', diag)
    total = len(set(run['order']) | set(ref))
    out.append(f'# SUMMARY: rdma-core tests: snic passes {snic_pass}, rxe passes {rxe_pass} '
               f'(of {total}); {missing_pass} that rxe passes snic does not, '
               f'{len(exc)} excepted')
    print('\n'.join(out))


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('reference')
    p.add_argument('console')
    p.add_argument('out')
    p = sub.add_parser('compare')
    p.add_argument('console')
    p.add_argument('--reference', required=True)
    p.add_argument('--exceptions', required=True)
    p.add_argument('--name', default='vm/rdma-core')
    args = ap.parse_args()
    {'reference': cmd_reference, 'compare': cmd_compare}[args.cmd](args)


if __name__ == '__main__':
    main()
