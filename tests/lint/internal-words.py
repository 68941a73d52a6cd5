#!/usr/bin/env python3
"""Product files speak to users: no paths they do not have, no words of ours.

Fails on any tracked text file (binary files and the committed VM result
lists tests/vm/*results*.txt excepted) that names the development
workspace's shared folder or its wire reference notes, an issue by number,
the project's goal list, or labels a pass mark with "bar" and a colon;
prints every hit.

    tests/lint/internal-words.py [--tap] [--self-test] REPO

--self-test plants each pattern in a file of its own (and one in an
excepted result list, which must not be reported) and expects each found.
"""
import argparse
import fnmatch
import re
import subprocess
import sys

# Written in pieces so that this file does not match itself.
PATTERNS = [
    ('a path into the shared workspace', re.compile(re.escape('..' + '/shared'))),
    ('the wire reference notes', re.compile('roce' + '-wire')),
    ('an issue number', re.compile(r'\bissue' + r' \d', re.I)),
    ('the goal list', re.compile(r'\bcompa' + r'ss\b', re.I)),
    ('a pass mark', re.compile(r'\bb' + r'ar:')),
]
EXCEPT = ['tests/vm/*results*.txt']


def hits(files):
    """[(path, line number, what, line)] for [(path, text)]."""
    out = []
    for path, text in files:
        if any(fnmatch.fnmatch(path, e) for e in EXCEPT):
            continue
        for n, line in enumerate(text.split('\n'), 1):
            for what, pat in PATTERNS:
                if pat.search(line):
                    out.append((path, n, what, line.strip()))
    return out


def tracked(repo):
    """[(path, text)] of the tracked text files."""
    names = subprocess.run(['git', '-C', repo, 'grep', '-I', '-l', '-e', ''],
                           capture_output=True, text=True, check=True)
    out = []
    for path in names.stdout.split('\n'):
        if path:
            with open(f'{repo}/{path}', encoding='utf-8',
                      errors='replace') as f:
                out.append((path, f.read()))
    return out


def self_test():
    """[(ok, what)]: each pattern planted alone is found, the exception holds."""
    samples = {
        'a path into the shared workspace': 'see ' + '..' + '/shared/papers/x.txt',
        'the wire reference notes': 'as the roce' + '-wire notes say',
        'an issue number': 'fixed for Iss' + 'ue 17',
        'the goal list': 'one of the comp' + 'ass goals',
        'a pass mark': "printf 'b" + "ar: %s met'",
    }
    results = []
    for what, text in samples.items():
        found = [h for h in hits([(f'planted/{what}.md', 'clean line\n' + text)])
                 if h[2] == what]
        results.append((len(found) == 1 and found[0][1] == 2,
                        f'self-test: {what} is reported'))
    spared = hits([('tests/vm/rdma-core-rxe-results.txt', samples['an issue number'])])
    results.append((not spared, 'self-test: the committed result lists are excepted'))
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('repo')
    ap.add_argument('--tap', action='store_true')
    ap.add_argument('--self-test', action='store_true')
    a = ap.parse_args()
    found = hits(tracked(a.repo))
    results = [(not found, 'no tracked file names internal words or paths')]
    if a.self_test:
        results += self_test()
    if a.tap:
        print(f'1..{len(results)}')
    for i, (ok, what) in enumerate(results, 1):
        if a.tap:
            print(f'{"ok" if ok else "not ok"} {i} - {what}')
        elif not ok:
            print(f'FAIL: {what}')
        if i == 1:
            for path, n, why, line in found:
                print(f'# {path}:{n}: {why}: {line[:120]}')
    return 0 if all(ok for ok, _ in results) else 1


if __name__ == '__main__':
    sys.exit(main())
