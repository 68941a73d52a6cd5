#!/usr/bin/env python3
"""The device core's call graph, and the layer rules it must keep.

An arrow runs from file A to file B when A uses a non-static function that
B defines (headers and static functions are left out: an inline helper in a
header is shared code, not a call into another unit).  The rules are the
table "Which folder may call which" in hw/snic/core/README.md: a row names a
folder (or a file) and, in back quotes, the folders and files it may call.
A file always may call its own folder.  An arrow no row allows fails the
lint unless ALLOWED below lists it with the reason; that list only shrinks.

    tests/lint/core-graph.py [--tap] [--self-test] [--dir DIR] [--no-rules] REPO

Prints the number of arrows, the largest circle (strongly connected set of
files) and the allow-list's length; fails on a circle of more than
MAX_CIRCLE files.  --dir DIR graphs another tree of C
files (e.g. guest-driver/kernel) with no rules, failing on the same
circle size.  --self-test plants three
violations in a copy of the core and expects each reported.
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

CORE = 'hw/snic/core'

# The largest circle (files that reach each other through calls) allowed
MAX_CIRCLE = 3

# Arrows the layer rules forbid, allowed for now with the reason for each:
# none are left, and nothing may be added.
ALLOWED = {}

IDENT = re.compile(r'[A-Za-z_]\w*')
STORAGE = re.compile(r'^\s*((static|inline|extern|const|__attribute__'
                     r'\s*\(\(.*?\)\)|G_GNUC_\w+)\s+)*')


def strip_c(text):
    """Comments, string and character literals and #include lines out."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append('\n' * text.count('\n', i, j) or ' ')
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(' ')
            i = j + 1
        else:
            out.append(c)
            i += 1
    return re.sub(r'^\s*#\s*include.*$', '', ''.join(out), flags=re.M)


def functions(code):
    """(every function defined, the non-static ones) of stripped C code."""
    defined, public = set(), set()
    depth, start = 0, 0
    for m in re.finditer(r'[{};]|^\s*#.*$', code, flags=re.M):
        tok = m.group(0)
        if tok.lstrip().startswith('#'):
            if depth == 0:
                start = m.end()
            continue
        if tok == '{':
            if depth == 0:
                head = code[start:m.start()]
                f = re.search(r'(\w+)\s*\((?:[^()]|\([^()]*\))*\)\s*$', head)
                if f and not re.search(r'=|\b(struct|union|enum)\s*\w*\s*$',
                                       head):
                    name = f.group(1)
                    if name not in ('if', 'while', 'for', 'switch'):
                        defined.add(name)
                        decl = head[:f.start()]
                        if not re.search(r'\bstatic\b', decl):
                            public.add(name)
            depth += 1
        elif tok == '}':
            depth = max(depth - 1, 0)
            if depth == 0:
                start = m.end()
        elif depth == 0:
            start = m.end()
    return defined, public


def graph(root, files):
    """{file: set of files it calls}, from the .c files given (relative)."""
    code, defined, owner = {}, {}, {}
    for f in files:
        with open(os.path.join(root, f), encoding='utf-8') as fh:
            code[f] = strip_c(fh.read())
        defined[f], public = functions(code[f])
        for name in public:
            owner.setdefault(name, f)
    arrows = {f: set() for f in files}
    for f in files:
        for name in set(IDENT.findall(code[f])) - defined[f]:
            b = owner.get(name)
            if b and b != f:
                arrows[f].add(b)
    return arrows


def largest_circle(arrows):
    """The largest strongly connected set of files (Tarjan, iterative)."""
    index, low, on, stack, best = {}, {}, set(), [], []
    counter = [0]
    for v0 in sorted(arrows):
        if v0 in index:
            continue
        work = [(v0, iter(sorted(arrows[v0])))]
        index[v0] = low[v0] = counter[0]
        counter[0] += 1
        stack.append(v0)
        on.add(v0)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(arrows[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > len(best):
                    best = sorted(comp)
    return best


def c_files(root):
    out = []
    for d, _, names in os.walk(root):
        for n in names:
            if n.endswith('.c'):
                out.append(os.path.relpath(os.path.join(d, n), root))
    return sorted(out)


def folder(path):
    """A file's folder in the rules: '' for the shell, 'transport/programs'."""
    return os.path.dirname(path)


def listed(readme):
    """The files and folders the README's file table names."""
    with open(readme, encoding='utf-8') as fh:
        text = fh.read()
    sect = re.search(r'^## Files\n(.*?)(?=^## |\Z)', text, flags=re.M | re.S)
    names = set()
    for line in (sect.group(1) if sect else '').splitlines():
        cell = line.strip().strip('|').split('|')[0]
        names.update(n.rstrip('/') for n in re.findall(r'`([^`]+)`', cell))
    return names


def read_rules(readme):
    """{folder or file: [folders and files it may call]} from the table."""
    rules = {}
    with open(readme, encoding='utf-8') as fh:
        text = fh.read()
    sect = re.search(r'^## Which folder may call which\n(.*?)(?=^## |\Z)',
                     text, flags=re.M | re.S)
    if not sect:
        raise SystemExit(f'{readme}: no "## Which folder may call which"')
    for line in sect.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) < 2 or not cells[0].startswith('`'):
            continue
        frm = cells[0].strip('`').rstrip('/')
        if frm == '(shell)':
            frm = ''
        rules[frm] = [t.rstrip('/') for t in re.findall(r'`([^`]+)`',
                                                        cells[1])]
    return rules


def allowed(rules, a, b):
    """May file a call file b?  A file's own row replaces its folder's."""
    row = rules.get(a)
    if row is None:
        if folder(a) == folder(b):
            return True
        row = rules.get(folder(a), [])
    return b in row or folder(b) in row


def check(root, tap, out=sys.stdout, extra=()):
    """Lint the core at ROOT; returns the list of rule violations.
    EXTRA: more (ok, what, why) results to report (the self-test's)."""
    core = os.path.join(root, CORE)
    files = c_files(core)
    arrows = graph(core, files)
    rules = read_rules(os.path.join(core, 'README.md'))
    n = sum(len(v) for v in arrows.values())
    circle = largest_circle(arrows)
    bad = []
    unfiled = [f for f in files if folder(f) not in rules and f not in rules]
    names = listed(os.path.join(core, 'README.md'))
    unlisted = []
    for d, _, fs in os.walk(core):
        rel = os.path.relpath(d, core)
        for f in fs:
            path = os.path.normpath(os.path.join(rel, f))
            if f.endswith(('.c', '.h')) and path not in names \
                    and rel.split('/')[0] not in names:
                unlisted.append(path)
    for a in files:
        for b in sorted(arrows[a]):
            if not allowed(rules, a, b) and (a, b) not in ALLOWED:
                bad.append((a, b))
    stale = [k for k in ALLOWED if k[1] not in arrows.get(k[0], ())
             or allowed(rules, *k)]
    p = (lambda s: print('# ' + s, file=out)) if tap else \
        (lambda s: print(s, file=out))
    p(f'{CORE}: {len(files)} files, {n} arrows, largest circle '
      f'{len(circle)} files: {" ".join(circle)}')
    p(f'allow-list: {len(ALLOWED)} arrows the layer rules forbid')
    results = [
        (len(circle) <= MAX_CIRCLE,
         f'no circle of more than {MAX_CIRCLE} files',
         [] if len(circle) <= MAX_CIRCLE else [' '.join(circle)]),
        (not unfiled, 'every file lies in a folder the rules name',
         [f'{f}: no row for its folder' for f in unfiled]),
        (not unlisted, 'README.md\'s file table names every file',
         [f'{f}: not in hw/snic/core/README.md' for f in sorted(unlisted)]),
        (not bad, 'no arrow breaks the layer rules',
         [f'{a} -> {b} ({shared(arrows, a, b, core)})' for a, b in bad]),
        (not stale, 'every allow-listed arrow still exists and is still '
         'forbidden', [f'{a} -> {b}: remove it from ALLOWED' for a, b in stale]),
    ] + list(extra)
    if tap:
        print(f'1..{len(results)}', file=out)
    for i, (ok, what, why) in enumerate(results, 1):
        if tap:
            print(f'{"ok" if ok else "not ok"} {i} - {what}', file=out)
        for w in why:
            p(('  ' if not tap else '') + w)
    too_big = [('circle',) + tuple(circle)] if len(circle) > MAX_CIRCLE \
        else []
    return bad + too_big + [('unfiled', f) for f in unfiled] + \
        [('unlisted', f) for f in unlisted] + \
        [('stale',) + k for k in stale] + [w for ok, w, _ in extra if not ok]


def shared(arrows, a, b, core):
    """The functions file a uses from file b, for the report."""
    with open(os.path.join(core, a), encoding='utf-8') as fh:
        used = set(IDENT.findall(strip_c(fh.read())))
    with open(os.path.join(core, b), encoding='utf-8') as fh:
        _, public = functions(strip_c(fh.read()))
    return ', '.join(sorted(used & public))


def self_test(root):
    """Plant three violations in a copy of the core: a result for each."""
    tmp = tempfile.mkdtemp()
    try:
        dst = os.path.join(tmp, CORE)
        shutil.copytree(os.path.join(root, CORE), dst)
        plants = [
            ('transport/programs/reno.c', 'engine/wq.c',
             'void snic_sq_fail(void *c, void *qp, int status);\n'
             'void planted_reno(void);\n'
             'void planted_reno(void)\n{\n    snic_sq_fail(0, 0, 0);\n}\n'),
            ('port/link.c', 'objects/qp.c',
             'void planted_link(void);\n'
             'void planted_link(void)\n{\n    snic_qp_get(0, 0);\n}\n'),
            ('strom/rpc.c', 'engine/resp.c',
             'void planted_rpc(void);\n'
             'void planted_rpc(void)\n{\n    planted_resp_internal();\n}\n'),
        ]
        with open(os.path.join(dst, 'engine/resp.c'), 'a',
                  encoding='utf-8') as fh:
            fh.write('void planted_resp_internal(void);\n'
                     'void planted_resp_internal(void)\n{\n}\n')
        for f, _, body in plants:
            with open(os.path.join(dst, f), 'a', encoding='utf-8') as fh:
                fh.write(body)
        with open(os.devnull, 'w', encoding='utf-8') as sink:
            found = check(tmp, False, sink)
        return [((f, target) in found,
                 f'self-test: a planted {f} -> {target} is reported', [])
                for f, target, _ in plants]
    finally:
        shutil.rmtree(tmp)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('repo')
    ap.add_argument('--tap', action='store_true')
    ap.add_argument('--self-test', action='store_true')
    ap.add_argument('--dir', help='graph this folder (no rules)')
    args = ap.parse_args()
    if args.dir:
        d = os.path.join(args.repo, args.dir)
        arrows = graph(d, c_files(d))
        circle = largest_circle(arrows)
        ok = len(circle) <= MAX_CIRCLE
        pre = '# ' if args.tap else ''
        print(f'{pre}{args.dir}: {sum(len(v) for v in arrows.values())} '
              f'arrows, largest circle {len(circle)} files: '
              f'{" ".join(circle)}')
        if args.tap:
            print(f'1..1\n{"ok" if ok else "not ok"} 1 - no circle of more '
                  f'than {MAX_CIRCLE} files in {args.dir}')
        return 0 if ok else 1
    extra = self_test(args.repo) if args.self_test else []
    return 1 if check(args.repo, args.tap, extra=extra) else 0


if __name__ == '__main__':
    sys.exit(main())
