#!/usr/bin/env python3
"""Transport programs call only what transport.h declares.

A program (hw/snic/core/transport/programs/NAME.c) may use the template's
calls and nothing else of the core: every symbol its object file leaves
undefined (nm -u) must be a function or object transport.h declares, a C
library symbol (libc.so.6 defines it) or the toolchain's (sanitizers, the
GOT). Checking the object, not the includes, also catches a prototype a
program declares itself.

    tests/lint/program-symbols.py [--tap] [--self-test] REPO OBJDIR

OBJDIR: the core library's object directory (libsnic-core.a.p).
--self-test compiles a copy of gbn.c that calls snic_sq_fail() through
its own prototype and expects it reported.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

PROGRAMS = 'hw/snic/core/transport/programs'
HEADER = 'hw/snic/core/transport/transport.h'
TOOLCHAIN = re.compile(r'^(__asan_|__ubsan_|__sanitizer_|__sancov_|__msan_|'
                       r'_GLOBAL_OFFSET_TABLE_$|__stack_chk_fail$)')


def declared(header):
    """Functions and objects the header declares (not macros, not types)."""
    with open(header, encoding='utf-8') as fh:
        text = fh.read()
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    text = re.sub(r'^\s*#(?:[^\n]*\\\n)*[^\n]*', ' ', text, flags=re.M)
    names, depth, stmt = set(), 0, []
    for ch in text:
        if ch == '{':
            depth += 1
        elif ch == '}':
            depth -= 1
            if depth == 0:
                stmt = []       # a struct, an enum or an inline's body
            continue
        if depth:
            continue
        if ch != ';':
            stmt.append(ch)
            continue
        s = ' '.join(''.join(stmt).split())
        stmt = []
        if s.startswith('typedef') or not s:
            continue
        fn = re.search(r'(\w+)\s*\((?:[^()]|\([^()]*\))*\)$', s)
        if fn:
            names.add(fn.group(1))
        elif s.startswith('extern'):
            names.add(re.search(r'(\w+)\s*(\[[^]]*\])?$', s).group(1))
    return names


def libc_symbols():
    """What the C library defines (its dynamic symbols)."""
    path = subprocess.run(['cc', '-print-file-name=libc.so.6'],
                          capture_output=True, text=True).stdout.strip()
    out = subprocess.run(['nm', '-D', '--defined-only', path],
                         capture_output=True, text=True, check=True).stdout
    return {line.split()[-1].split('@')[0] for line in out.splitlines()
            if line.split()}


def undefined(obj):
    out = subprocess.run(['nm', '-u', obj], capture_output=True, text=True,
                         check=True).stdout
    return sorted({line.split()[-1] for line in out.splitlines()
                   if line.split()})


def strays(obj, allowed, libc):
    return [s for s in undefined(obj)
            if s not in allowed and s not in libc and not TOOLCHAIN.match(s)]


def self_test(repo, allowed, libc):
    """A copy of gbn.c with a locally declared engine call: reported?"""
    tmp = tempfile.mkdtemp()
    try:
        src = os.path.join(tmp, 'planted.c')
        shutil.copy(os.path.join(repo, PROGRAMS, 'gbn.c'), src)
        with open(src, 'a', encoding='utf-8') as fh:
            fh.write('void snic_sq_fail(SnicCore *c, SnicQp *qp, '
                     'uint8_t status);\n'
                     'void planted(SnicCore *c, SnicQp *qp);\n'
                     'void planted(SnicCore *c, SnicQp *qp)\n{\n'
                     '    snic_sq_fail(c, qp, 0);\n}\n')
        glib = subprocess.run(['pkg-config', '--cflags', 'glib-2.0'],
                              capture_output=True, text=True,
                              check=True).stdout.split()
        obj = os.path.join(tmp, 'planted.o')
        subprocess.run(['cc', '-std=gnu11', '-c', '-o', obj, src,
                        '-I' + os.path.join(repo, 'hw/snic/core'),
                        '-I' + os.path.join(repo, 'include')] + glib,
                       check=True)
        return 'snic_sq_fail' in strays(obj, allowed, libc)
    finally:
        shutil.rmtree(tmp)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('repo')
    ap.add_argument('objdir')
    ap.add_argument('--tap', action='store_true')
    ap.add_argument('--self-test', action='store_true')
    args = ap.parse_args()
    allowed = declared(os.path.join(args.repo, HEADER))
    libc = libc_symbols()
    sources = sorted(glob.glob(os.path.join(args.repo, PROGRAMS, '*.c')))
    results = []
    for src in sources:
        rel = os.path.relpath(src, args.repo)
        obj = os.path.join(args.objdir, rel.replace('/', '_') + '.o')
        if not os.path.exists(obj):
            results.append((False, f'{rel}: no object {obj}', []))
            continue
        bad = strays(obj, allowed, libc)
        results.append((not bad, f'{rel} calls only transport.h and libc',
                        [f'{rel}: {s} is not declared in {HEADER}'
                         for s in bad]))
    if args.self_test:
        results.append((self_test(args.repo, allowed, libc),
                        'self-test: a program calling snic_sq_fail() '
                        'through its own prototype is reported', []))
    if args.tap:
        print(f'1..{len(results)}')
    for i, (ok, what, why) in enumerate(results, 1):
        if args.tap:
            print(f'{"ok" if ok else "not ok"} {i} - {what}')
        elif not ok:
            print(f'FAIL: {what}')
        for w in why:
            print(f'# {w}' if args.tap else f'  {w}')
    return 0 if all(ok for ok, _, _ in results) else 1


if __name__ == '__main__':
    sys.exit(main())
