#!/usr/bin/python3
"""Run rdma-core's Python tests (run_tests.py's suite) one test per process.

Used by the rdma-core-tests role (scripts/guest/roles/rdma-core-tests.sh) in the guest:

    rdma-core-runner.py --dev DEV [--tests DIR] [--timeout S] [--budget S] [--seed S]
                        [--list] [-k SUBSTRING]... [PATTERN]...

The tests are loaded exactly as run_tests.py loads them (tests/__init__.py through
SourceFileLoader, args_parser given `--dev DEV`, the unittest loader's load_tests hook), so
the ids are those of `run_tests.py --list-tests`. This process imports the suite once; each
test then runs in a child forked from it (a fresh process with everything imported: a
test's state, crash or hang stays in its child), in its own process group, under a
per-test timeout. A child still running at its timeout prints its Python stacks
(faulthandler, SIGUSR1), is killed with its whole group (multiprocessing helpers
included) and the test is reported as `timeout`; the suite goes on. Each child seeds
`random` with SEED:TEST-ID: the tests draw QP sizes and create masks at random, and a run
is repeatable only with the same draws.

One console line per test, the reason (if any) last:

    SNIC-RDMA-TEST result=pass|fail|error|skip|timeout|notrun id=ID time=SECONDS [reason=TEXT]

A failed, erroring or timed-out test's output and traceback (their last lines) are
printed just before its line, each prefixed with '  | '. `notrun`: the --budget (whole-suite time
limit) was used up first. Last: `SNIC-RDMA-SUMMARY total=N pass=N ... time=S`. Exit
status 0 when every selected test was run and reported (whatever its result), else 1.
"""
import argparse
import faulthandler
import fnmatch
import json
import os
import random
import signal
import sys
import tempfile
import time
import traceback
import unittest
from importlib.machinery import SourceFileLoader

RESULTS = ('pass', 'fail', 'error', 'skip', 'timeout', 'notrun')


def one_line(text, limit=300):
    text = ' '.join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + '...'


def load_suite(tests_dir, dev):
    """The test cases run_tests.py would run, in its order."""
    sys.path.insert(0, tests_dir)
    from args_parser import parser   # the suite's own: tests read --dev through it
    tests = SourceFileLoader('tests', os.path.join(tests_dir, '__init__.py')).load_module()
    sys.argv = [os.path.join(tests_dir, 'run_tests.py'), '--dev', dev]
    parser.parse_args()
    cases = []

    def flatten(suite):
        for t in suite:
            if isinstance(t, unittest.TestSuite):
                flatten(t)
            else:
                cases.append(t)
    flatten(unittest.TestLoader().loadTestsFromModule(tests))
    return cases


class Result(unittest.TestResult):
    """One test's outcome, worst first: error > fail > skip > pass."""
    def __init__(self):
        super().__init__()
        self.outcome, self.reason, self.details = 'pass', '', ''

    def _set(self, outcome, reason, details=''):
        rank = {'pass': 0, 'skip': 1, 'fail': 2, 'error': 3}
        if rank[outcome] >= rank[self.outcome]:
            self.outcome, self.reason = outcome, reason
        if details:
            self.details += details

    def _exc(self, outcome, err):
        etype, value, _ = err
        self._set(outcome, f'{etype.__name__}: {value}',
                  ''.join(traceback.format_exception(*err)))

    def addError(self, test, err):
        super().addError(test, err)
        self._exc('error', err)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._exc('fail', err)

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._exc('fail' if issubclass(err[0], test.failureException) else 'error', err)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._set('skip', reason)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._set('pass', 'expected failure')

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._set('fail', 'unexpected success of a test marked expectedFailure')


def run_child(test, out_path, res_path, seed):
    """In the forked child: run the test, write its result as JSON; never returns."""
    code = 0
    try:
        os.setsid()
        # The tests draw QP sizes, create masks, ... from `random`: the same draws for
        # the same test in every run (and every other seed gives other draws).
        random.seed(f'{seed}:{test.id()}')
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        # At its timeout the parent asks for the Python stacks (where it hangs) first.
        faulthandler.register(signal.SIGUSR1, all_threads=True)
        result = Result()
        unittest.TestSuite([test]).run(result)   # as unittest runs it (class fixtures too)
        with open(res_path, 'w') as f:
            json.dump({'outcome': result.outcome, 'reason': result.reason,
                       'details': result.details}, f)
    except BaseException:
        traceback.print_exc()
        code = 70
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def wait_child(pid, deadline):
    """Wait for the child until deadline; returns its wait status, or None on timeout."""
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        # SIGCHLD is blocked in this process: wait for it (or time out), no busy loop.
        signal.sigtimedwait([signal.SIGCHLD], min(left, 1.0))


def kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def tail(path, lines):
    try:
        with open(path, errors='replace') as f:
            text = f.read().splitlines()
    except OSError:
        return []
    return text[-lines:]


def run_one(test, timeout, tmpdir, seed):
    out_path = os.path.join(tmpdir, 'out')
    res_path = os.path.join(tmpdir, 'res')
    for p in (out_path, res_path):
        if os.path.exists(p):
            os.unlink(p)
    sys.stdout.flush()
    sys.stderr.flush()
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        run_child(test, out_path, res_path, seed)
    status = wait_child(pid, t0 + timeout)
    if status is None:
        try:
            os.kill(pid, signal.SIGUSR1)      # faulthandler: its stacks into its output
        except ProcessLookupError:
            pass
        time.sleep(1)
    # Whatever the child left behind (multiprocessing helpers) goes with it.
    kill_group(pid)
    if status is None:
        # Reap it; a process stuck in the kernel (D state) may not die: don't wait forever.
        status = wait_child(pid, time.monotonic() + 10)
        outcome, reason = 'timeout', f'timeout: killed after {timeout:g} s'
        if status is None:
            reason += ' (and it had not exited 10 s after SIGKILL)'
        details = ''
    else:
        try:
            with open(res_path) as f:
                r = json.load(f)
            outcome, reason, details = r['outcome'], r['reason'], r['details']
        except (OSError, ValueError, KeyError):
            if os.WIFSIGNALED(status):
                sig = os.WTERMSIG(status)
                reason = f'crashed: killed by signal {sig} ({signal.Signals(sig).name})'
            else:
                reason = f'the test process exited with status {os.waitstatus_to_exitcode(status)} without a result'
            outcome, details = 'error', ''
    return outcome, reason, details, time.monotonic() - t0, out_path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--dev', required=True, help='RDMA device (run_tests.py --dev)')
    ap.add_argument('--tests', default='/usr/share/doc/rdma-core/tests',
                    help='the directory holding run_tests.py')
    ap.add_argument('--timeout', type=float, default=45, help='seconds per test')
    ap.add_argument('--budget', type=float, default=0,
                    help='seconds for the whole run (0: no limit); later tests: notrun')
    ap.add_argument('--seed', default='0',
                    help='seeds `random` in each test with SEED:TEST-ID (run_tests.py does not '
                         'seed it: the tests draw random QP sizes and attributes)')
    ap.add_argument('--tail', type=int, default=40,
                    help='lines of a failed test\'s traceback and output to print')
    ap.add_argument('--list', action='store_true', help='print the test ids and exit')
    ap.add_argument('-k', dest='substrings', action='append', default=[],
                    help='only tests whose id contains this (repeatable)')
    ap.add_argument('patterns', nargs='*', help='only tests whose id matches (fnmatch)')
    args = ap.parse_args()

    t_start = time.monotonic()
    cases = load_suite(args.tests, args.dev)
    if args.substrings or args.patterns:
        cases = [c for c in cases
                 if any(s in c.id() for s in args.substrings) or
                 any(fnmatch.fnmatchcase(c.id(), p) for p in args.patterns)]
    if args.list:
        for c in cases:
            print(c.id())
        return 0
    print(f'rdma-core-runner: {len(cases)} tests on {args.dev} from {args.tests}, '
          f'{args.timeout:g} s each at most, random seed {args.seed}:TEST-ID, '
          f'suite loaded in {time.monotonic() - t_start:.1f} s', flush=True)

    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])
    counts = dict.fromkeys(RESULTS, 0)
    with tempfile.TemporaryDirectory(prefix='rdma-core-runner.') as tmpdir:
        for c in cases:
            if args.budget and time.monotonic() - t_start >= args.budget:
                outcome, reason, details, took, out = \
                    'notrun', f'the run\'s time budget of {args.budget:g} s was used up', '', 0.0, None
            else:
                outcome, reason, details, took, out = run_one(c, args.timeout, tmpdir, args.seed)
            counts[outcome] += 1
            if outcome in ('fail', 'error', 'timeout'):
                output = tail(out, args.tail // 2)
                if outcome == 'timeout':
                    # The stacks faulthandler printed, innermost frame first: its head.
                    output = tail(out, 1000)
                    heads = [i for i, line in enumerate(output) if 'most recent call first' in line]
                    output = output[heads[0]:heads[0] + args.tail] if heads else output[-args.tail // 2:]
                if output:
                    print(f'  | --- the test\'s output ({len(output)} lines):')
                    print('\n'.join(f'  | {line}' for line in output))
                tb = details.splitlines()[-args.tail:]
                if tb:
                    print('\n'.join(f'  | {line}' for line in tb))
            line = f'SNIC-RDMA-TEST result={outcome} id={c.id()} time={took:.1f}'
            if reason:
                line += f' reason={one_line(reason)}'
            print(line, flush=True)
    total = time.monotonic() - t_start
    print('SNIC-RDMA-SUMMARY total=%d %s time=%.0f' %
          (len(cases), ' '.join(f'{k}={v}' for k, v in counts.items()), total), flush=True)
    return 1 if counts['notrun'] else 0


if __name__ == '__main__':
    sys.exit(main())
