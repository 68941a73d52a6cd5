#!/usr/bin/env python3
"""The measured numbers of the docs, generated from the reproductions' runs, never typed.

Every measured result the docs quote stands in a marked block of a file of docs/,

    <!-- repro:NAME:BLOCK begin -->
    ...
    <!-- repro:NAME:BLOCK end -->

rendered from the template BLOCK of scripts/repro/NAME-docs.md and the files a run of
scripts/repro/NAME.sh wrote (the reference run: docs/repro/NAME). In a template,

    {{CSV:KEY:COLUMN:FORMAT}}   the cell of CSV (a path in the run's directory) in the row
                                whose key columns (KEYS below; by default the first) hold
                                KEY (several joined by ','; none: its one row), column
                                COLUMN, written with Python's format spec FORMAT (empty:
                                as the CSV has it; a spec ending in d rounds to an
                                integer). KEY may also be
                                min or max over every row, or over the rows matching
                                [COND,...], each COL=VALUE or a number's COL<VALUE (<=,
                                >, >=, !=): max[transport=gbn,loss_pct>0]. CSV @FILE is
                                scripts/repro/FILE (a paper's numbers, keyed by figure
                                and quantity); history.csv is docs/repro/NAME's
    {{for CSV}} ... (a line)    that line once per row of CSV (or of CSV[COND,...]),
                                with {{.COLUMN:FORMAT}} the row's cell
    {{include FILE}}            (alone on a line) the file, Markdown the run wrote

and a template may hold only these, prose, and model parameters and paper numbers whose
values are the run's model.csv or scripts/repro/NAME-paper.csv rows.

    render.py NAME DIR [--args ARGS]  after a run of NAME into DIR: write DIR/run.txt (the
                                      git object ids of the trees the run depends on, DEPENDS
                                      below, ARGS its options), then render NAME's blocks:
                                      into the docs if DIR is docs/repro/NAME, else to stdout
    render.py --update [NAME...]      rewrite the blocks from docs/repro/NAME (all: every NAME)
    render.py --check [--tap] [--self-test]
                                      the lint: (a) every block is its rendering from
                                      docs/repro/NAME, every template block is in the docs
                                      once; (c) a reference run whose recorded trees differ
                                      from HEAD's is a TODO naming the paths that changed.
                                      --self-test first edits a number of a block, a cell of
                                      a reference CSV and a recorded id in a copy and expects
                                      each reported
    render.py --shape NAME DIR [--tap]
                                      the lint: (b) DIR (a fresh smoke run) has the CSV files,
                                      columns and row keys of docs/repro/NAME (values not
                                      compared: a smoke run is shorter), and EXACT files equal
"""
import argparse
import csv
import filecmp
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# What each reference run depends on: a change there (since the run) makes it stale.
SIM = ['hw/snic/core', 'include/snic', 'tests/sim', 'tests/unit/fake-host.c',
       'tests/unit/fake-host.h', 'tests/unit/engine-node.c', 'tests/unit/engine-node.h',
       'tests/bench/repro-csv.c', 'scripts/repro/lib.sh']
DEPENDS = {
    'strom': SIM + ['tests/unit/rpc-node.c', 'tests/unit/rpc-node.h',
                    'tests/bench/strom-repro.c', 'scripts/repro/strom.sh',
                    'scripts/repro/strom-plot.gp', 'scripts/repro/strom-paper.csv'],
    'strom-vm': ['hw/snic', 'include/snic', 'guest-driver', 'tests/vm/strom-bench.c',
                 'scripts/guest', 'scripts/repro/strom-vm.sh', 'scripts/repro/lib.sh',
                 'scripts/repro/strom-vm-plot.gp', 'scripts/repro/strom-paper.csv'],
    'srnic': SIM + ['tests/bench/srnic-repro.c', 'scripts/repro/srnic.sh',
                    'scripts/repro/srnic-plot.gp', 'scripts/repro/srnic-paper.csv'],
    'srnic-fig11': SIM + ['tests/unit/sr-host.c', 'tests/unit/sr-host.h',
                          'guest-driver/common', 'tests/bench/srnic-fig11-repro.c',
                          'scripts/repro/srnic-fig11.sh', 'scripts/repro/srnic-fig11-plot.gp',
                          'scripts/repro/srnic-fig11-paper.csv'],
    'tonic': SIM + ['tests/unit/fabric.c', 'tests/unit/fabric.h',
                    'tests/bench/tonic-repro.c', 'tests/bench/tonic-ns3-newreno.cc',
                    'scripts/repro/tonic.sh', 'scripts/repro/tonic-plot.gp',
                    'scripts/repro/tonic-fig3.gp', 'scripts/repro/tonic-fig3c.gp',
                    'scripts/repro/tonic-dcqcn200.gp', 'scripts/repro/tonic-paper.csv',
                    'scripts/repro/tonic-paper-text.csv'],
    'dctcp': SIM + ['tests/unit/fabric.c', 'tests/unit/fabric.h', 'tests/unit/dctcp-incast.c',
                    'tests/unit/dctcp-incast.h', 'tests/unit/sr-host.c', 'guest-driver/common',
                    'tests/bench/dctcp-repro.c', 'scripts/repro/dctcp.sh',
                    'scripts/repro/dctcp-plot.gp', 'scripts/repro/dctcp-paper.csv'],
    'cl': SIM + ['tests/unit/cl-fabric.c', 'tests/unit/cl-fabric.h', 'tests/bench/cl-repro.c',
                 'scripts/repro/cl.sh', 'scripts/repro/cl-plot.gp', 'scripts/repro/cl-paper.csv'],
}
# The key columns of a CSV where not its first column; () for a series (its rows are
# samples: a smoke run has fewer) or a single row of results.
KEYS = {
    'strom': {'fig10.csv': ('object_bytes', 'failure_pct'), 'fig13a.csv': ()},
    'strom-vm': {'fig10-vm.csv': ('object_bytes', 'failure_pct'), 'rtt-vm.csv': (),
                 'host-vm.csv': (), 'fig7-vm-derived.csv': ()},
    'srnic-fig11': {'bdp/fig11.csv': ('loss_pct', 'transport'),
                    'b2b/fig11.csv': ('loss_pct', 'transport'),
                    'send/bdp/fig11.csv': ('loss_pct', 'transport'),
                    'send/b2b/fig11.csv': ('loss_pct', 'transport'),
                    'summary.csv': ('op', 'loss_pct')},
    'tonic': {'fig3a.csv': (), 'fig3b.csv': (), 'fig4.csv': (), 'fig4-summary.csv': (),
              'fig3c.csv': (), 'fig3c-epochs.csv': (), 'dcqcn200.csv': (),
              'dcqcn200-epochs.csv': (), 'dcqcn200-summary.csv': ()},
    'dctcp': {'incast.csv': (), 'summary.csv': (), 'srnic/incast.csv': (),
              'srnic/summary.csv': ()},
    'cl': {'fig7-summary.csv': (), 'system.csv': ()},
}
# Rows a smoke run may lack: ns-3 draws Fig 3 beside ours only where it is installed.
OPTIONAL_ROWS = {'tonic': {'fig3-summary.csv': {('ns-3',)}},
                 'strom': {'fig11.csv': {('65536',), ('262144',), ('2097152',)}}}
# Files that do not depend on the run's length: a smoke run writes them exactly.
EXACT = {'tonic': ['table3.csv', 'table3.md', 'device.csv'],
         'cl': ['fig7.csv', 'fig7-summary.csv']}
# The paper's numbers (scripts/repro/NAME-paper.csv), keyed by figure and quantity
PAPER_KEYS = {f'{n}-paper.csv': ('figure', 'quantity') for n in ('strom', 'srnic', 'srnic-fig11', 'cl')}
# Earlier runs' numbers (docs/repro/NAME/history.csv: commit,figure,quantity,value,unit,what)
HISTORY_KEYS = ('figure', 'quantity')
# Not a run's output, never compared: what the run depended on, and earlier runs' numbers
NOT_OUTPUT = {'run.txt', 'history.csv'}

BEGIN = re.compile(r'^<!-- repro:([a-z0-9-]+):([a-z0-9-]+) begin -->$')
END = '<!-- repro:{}:{} end -->'
TBLOCK = re.compile(r'^<!-- block ([a-z0-9-]+) -->$')
FIELD = re.compile(r'\{\{([^{}]*)\}\}')
FOR = re.compile(r'^\{\{for ([^{}\[\]]+)(?:\[([^{}\]]*)\])?\}\}')
INCLUDE = re.compile(r'^\{\{include ([^{}]+)\}\}$')
AGG = re.compile(r'^(min|max)(?:\[([^\]]*)\])?$')


class RenderError(Exception):
    pass


class Table:
    """A CSV of a run: its columns, rows and key columns."""

    def __init__(self, path, keys):
        with open(path, newline='', encoding='utf-8') as f:
            rows = [r for r in csv.reader(f) if r and not r[0].startswith('#')]
        if not rows:
            raise RenderError(f'{path}: empty')
        self.path, self.columns, self.rows = path, rows[0], rows[1:]
        self.keys = keys if keys is not None else tuple(rows[0][:1])
        for k in self.keys:
            self.col(k)

    def col(self, name):
        if name not in self.columns:
            raise RenderError(f'{self.path}: no column {name} (it has {",".join(self.columns)})')
        return self.columns.index(name)

    def key_of(self, row):
        return tuple(row[self.col(k)] for k in self.keys)

    def matching(self, cond):
        """The rows where each COL=VALUE (a string), or COL<VALUE, <=, >, >=, != (numbers)
        of cond holds."""
        rows = self.rows
        for c in filter(None, (cond or '').split(',')):
            m = re.match(r'^\s*(\w+)\s*(<=|>=|!=|=|<|>)\s*(.*?)\s*$', c)
            if not m:
                raise RenderError(f'{self.path}: bad condition {c!r}')
            i, op, value = self.col(m.group(1)), m.group(2), m.group(3)
            if op == '=':
                rows = [r for r in rows if r[i] == value]
                continue
            v = num(value, self.path)
            test = {'<': float.__lt__, '<=': float.__le__, '>': float.__gt__,
                    '>=': float.__ge__, '!=': float.__ne__}[op]
            rows = [r for r in rows if test(num(r[i], self.path), v)]
        return rows

    def cell(self, key, column):
        i = self.col(column)
        agg = AGG.match(key)
        if agg:
            rows = self.matching(agg.group(2))
            if not rows:
                raise RenderError(f'{self.path}: no row matches [{agg.group(2)}]')
            values = [num(r[i], self.path) for r in rows]
            return repr(min(values) if agg.group(1) == 'min' else max(values))
        if not key:
            if len(self.rows) != 1:
                raise RenderError(f'{self.path}: no KEY, but {len(self.rows)} rows')
            return self.rows[0][i]
        want = tuple(key.split(','))
        if len(want) != len(self.keys):
            raise RenderError(f'{self.path}: key {key} for key columns {",".join(self.keys)}')
        found = [r for r in self.rows if self.key_of(r) == want]
        if len(found) != 1:
            raise RenderError(f'{self.path}: {len(found)} rows with {",".join(self.keys)} = {key}')
        return found[0][i]


def num(text, where):
    try:
        return float(text)
    except ValueError:
        raise RenderError(f'{where}: {text!r} is not a number') from None


def fmt(value, spec, where):
    if not spec:
        return value
    x = num(value, where)
    try:
        return format(int(round(x)), spec) if spec.endswith('d') else format(x, spec)
    except ValueError as e:
        raise RenderError(f'{where}: format {spec!r}: {e}') from None


class Run:
    """The files of one run of NAME, in DIR."""

    def __init__(self, root, name, path):
        self.root, self.name, self.path, self.tables = root, name, path, {}

    def file(self, rel):
        """A file of the run; @FILE: scripts/repro/FILE (a paper's numbers); history.csv:
        the reference run's (earlier runs' numbers, not a run's output)."""
        if rel.startswith('@'):
            return os.path.join(self.root, 'scripts/repro', rel[1:])
        if rel in NOT_OUTPUT:
            return os.path.join(self.root, 'docs/repro', self.name, rel)
        return os.path.join(self.path, rel)

    def table(self, rel):
        if rel not in self.tables:
            p = self.file(rel)
            if not os.path.isfile(p):
                raise RenderError(f'{p}: no such file')
            keys = PAPER_KEYS.get(rel[1:]) if rel.startswith('@') else \
                HISTORY_KEYS if rel == 'history.csv' else KEYS.get(self.name, {}).get(rel)
            self.tables[rel] = Table(p, keys)
        return self.tables[rel]

    def field(self, text, row=None, table=None):
        if text.startswith('.'):
            if row is None:
                raise RenderError(f'{{{{{text}}}}} outside a {{{{for}}}} line')
            column, _, spec = text[1:].partition(':')
            return fmt(row[table.col(column)], spec, f'{table.path}: {column}')
        parts = text.split(':')
        if len(parts) != 4:
            raise RenderError(f'{{{{{text}}}}}: not CSV:KEY:COLUMN:FORMAT')
        rel, key, column, spec = parts
        t = self.table(rel)
        return fmt(t.cell(key, column), spec, f'{t.path}: {key}, {column}')

    def line(self, line):
        m = FOR.match(line)
        if m:
            t = self.table(m.group(1))
            body = line[m.end():]
            return [FIELD.sub(lambda f: self.field(f.group(1), r, t), body)
                    for r in t.matching(m.group(2))]
        m = INCLUDE.match(line)
        if m:
            with open(self.file(m.group(1)), encoding='utf-8') as f:
                return f.read().rstrip('\n').split('\n')
        return [FIELD.sub(lambda f: self.field(f.group(1)), line)]

    def render(self, template):
        out = []
        for line in template:
            out += self.line(line)
        return reflow(out)


WIDTH = 78
UNWRAPPED = re.compile(r'^(\||!\[|#|```|<!--|\s*$)')


def reflow(lines):
    """Paragraphs and list items filled to WIDTH (what a placeholder's value leaves ragged);
    tables, images, headings, code and blank lines as they are."""
    out, para, code = [], [], False

    def flush():
        if para:
            bullet = re.match(r'^(\s*[*-] |\s*\d+\. )', para[0])
            lead = bullet.group(1) if bullet else ''
            text = ' '.join(x.strip() for x in para)[len(lead.strip()):].strip()
            out.extend(textwrap.wrap(text, WIDTH, initial_indent=lead,
                                     subsequent_indent=' ' * len(lead),
                                     break_long_words=False, break_on_hyphens=False))
            para.clear()
    for line in lines:
        if line.startswith('```'):
            flush()
            code = not code
            out.append(line)
        elif code or UNWRAPPED.match(line):
            flush()
            out.append(line)
        else:
            if re.match(r'^\s*([*-] |\d+\. )', line):
                flush()
            para.append(line)
    flush()
    return out


def templates(root, name):
    """{BLOCK: [lines]} of scripts/repro/NAME-docs.md (text before the first block: notes)."""
    path = os.path.join(root, 'scripts/repro', name + '-docs.md')
    blocks, cur = {}, None
    with open(path, encoding='utf-8') as f:
        for line in f.read().split('\n'):
            m = TBLOCK.match(line)
            if m:
                if m.group(1) in blocks:
                    raise RenderError(f'{path}: block {m.group(1)} twice')
                cur = blocks[m.group(1)] = []
            elif cur is not None:
                cur.append(line)
    for lines in blocks.values():
        while lines and not lines[-1].strip():
            lines.pop()
    return blocks


def names(root):
    return sorted(f[:-len('-docs.md')] for f in os.listdir(os.path.join(root, 'scripts/repro'))
                  if f.endswith('-docs.md'))


def doc_files(root):
    d = os.path.join(root, 'docs')
    return [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith('.md')]


def doc_blocks(path):
    """[(name, block, first line index, end line index)] of a doc's marked blocks."""
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    out = []
    i = 0
    while i < len(lines):
        m = BEGIN.match(lines[i])
        if m:
            end = END.format(m.group(1), m.group(2))
            j = i + 1
            while j < len(lines) and lines[j] != end:
                if BEGIN.match(lines[j]):
                    raise RenderError(f'{path}:{j + 1}: a block begins inside {m.group(2)}')
                j += 1
            if j == len(lines):
                raise RenderError(f'{path}:{i + 1}: {m.group(1)}:{m.group(2)} has no end')
            out.append((m.group(1), m.group(2), i, j))
            i = j
        i += 1
    return lines, out


def update(root, only, strict=True):
    """Rewrite the blocks of the NAMEs in 'only' from their runs; the blocks changed. Not
    strict: a block that cannot be rendered stays as it is."""
    changed = []
    for path in doc_files(root):
        lines, blocks = doc_blocks(path)
        new, last = [], 0
        for name, block, i, j in blocks:
            new += lines[last:i + 1]
            body = lines[i + 1:j]
            if name in only:
                try:
                    t = templates(root, name)
                    if block not in t:
                        raise RenderError(f'{path}: block {name}:{block} has no template')
                    body = Run(root, name, os.path.join(root, 'docs/repro', name)).render(
                        t[block])
                except (RenderError, OSError):
                    if strict:
                        raise
                if body != lines[i + 1:j]:
                    changed.append(f'{name}:{block}')
            new += body
            last = j
        new += lines[last:]
        if new != lines:
            with open(path, 'w', encoding='utf-8') as f:
                f.write('\n'.join(new))
    return changed


# ---- what a run depends on ----

def git(root, *args, env=None):
    r = subprocess.run(['git', '-C', root] + list(args), capture_output=True, text=True,
                       env=env)
    if r.returncode:
        raise RenderError(f'git {" ".join(args)}: {r.stderr.strip()}')
    return r.stdout.strip()


def worktree_ids(root, paths):
    """{path: object id} of the working tree (uncommitted changes included)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, GIT_INDEX_FILE=os.path.join(tmp, 'index'))
        git(root, 'read-tree', 'HEAD', env=env)
        git(root, 'add', '-A', '--', *paths, env=env)
        tree = git(root, 'write-tree', env=env)
        return {p: object_id(root, tree, p) for p in paths}


def object_id(root, rev, path):
    r = subprocess.run(['git', '-C', root, 'rev-parse', '-q', '--verify', f'{rev}:{path}'],
                       capture_output=True, text=True)
    return r.stdout.strip() or 'none'


def stamp(root, name, d, args):
    """DIR/run.txt: the options and the trees the run depends on."""
    with open(os.path.join(d, 'run.txt'), 'w', encoding='utf-8') as f:
        f.write(f'# scripts/repro/{name}.sh: the git object ids of what this run depends on\n'
                f'# (scripts/repro/render.py --check compares them with HEAD\'s)\n')
        f.write(f'args {args}\n' if args else 'args\n')
        try:
            ids = worktree_ids(root, DEPENDS[name])
        except (RenderError, OSError):
            ids = {p: 'unknown' for p in DEPENDS[name]}     # not a git checkout
        for p, oid in ids.items():
            f.write(f'{p} {oid}\n')


def stale(root, name, path=None):
    """(None or a problem, [paths whose ids differ from HEAD's]) of docs/repro/NAME/run.txt."""
    path = path or os.path.join(root, 'docs/repro', name, 'run.txt')
    if not os.path.isfile(path):
        return f'{os.path.relpath(path, root)} missing', []
    ids = {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.startswith('#') or line.startswith('args'):
                if '--smoke' in line.split() and line.startswith('args'):
                    return 'the reference run is a smoke run', []
                continue
            p, _, oid = line.strip().partition(' ')
            ids[p] = oid
    missing = [p for p in DEPENDS[name] if p not in ids]
    if missing:
        return f'run.txt names no id for {", ".join(missing)}', []
    return None, [p for p in DEPENDS[name] if object_id(root, 'HEAD', p) != ids[p]]


# ---- the lint ----

class Tap:
    def __init__(self, tap):
        self.tap, self.n, self.failed = tap, 0, 0

    def result(self, ok, what, diag=(), todo=None):
        self.n += 1
        self.failed += not ok and not todo
        if self.tap:
            print(f'{"ok" if ok else "not ok"} {self.n} - {what}' + (f' # TODO {todo}' if todo else ''))
            for d in diag:
                print('# ' + d)
        elif not ok:
            print(f'render: {what}' + (f' (TODO: {todo})' if todo else ''), file=sys.stderr)
            for d in diag:
                print('  ' + d, file=sys.stderr)

    def plan(self):
        if self.tap:
            print(f'1..{self.n}')


def check_blocks(root):
    """(a): [(ok, what, diagnostics)]"""
    out, seen = [], {}
    for path in doc_files(root):
        rel = os.path.relpath(path, root)
        try:
            lines, blocks = doc_blocks(path)
        except RenderError as e:
            out.append((False, f'{rel}: {e}', []))
            continue
        for name, block, i, j in blocks:
            seen.setdefault((name, block), []).append(f'{rel}:{i + 1}')
            what = f'{rel}:{i + 1} block {name}:{block} is its rendering from docs/repro/{name}'
            try:
                want = Run(root, name, os.path.join(root, 'docs/repro', name)).render(
                    templates(root, name).get(block) or missing_template(name, block))
            except (RenderError, OSError) as e:
                out.append((False, what, [str(e)]))
                continue
            have = lines[i + 1:j]
            diag = []
            if have != want:
                import difflib
                diag = list(difflib.unified_diff(have, want, 'docs', 'rendered', lineterm='', n=0))
                diag.append(f'(scripts/repro/render.py --update {name} rewrites it)')
            out.append((have == want, what, diag))
    for name in names(root):
        for block in templates(root, name):
            where = seen.get((name, block), [])
            if len(where) != 1:
                out.append((False, f'template {name}:{block} is in the docs once',
                            [f'found {len(where)} times {" ".join(where)}']))
    return out


def missing_template(name, block):
    raise RenderError(f'scripts/repro/{name}-docs.md has no block {block}')


def check(root, tap):
    for ok, what, diag in check_blocks(root):
        tap.result(ok, what, diag)
    in_git = subprocess.run(['git', '-C', root, 'rev-parse', 'HEAD'], capture_output=True).returncode == 0
    for name in sorted(DEPENDS):
        what = f'docs/repro/{name} is a run of the tree at HEAD'
        if not in_git:
            tap.result(True, what + ' # SKIP not a git checkout')
            continue
        problem, changed = stale(root, name)
        if problem:
            tap.result(False, what, [problem])
        elif changed:
            tap.result(False, what, [f'rerun scripts/repro/{name}.sh --out docs/repro/{name}'],
                       todo='stale: changed since the run: ' + ', '.join(changed))
        else:
            tap.result(True, what)


def self_test(root, tap):
    """Hand-edit a copy and expect each edit reported."""
    def results(tmp):
        return {what: ok for ok, what, _ in check_blocks(tmp)}

    with tempfile.TemporaryDirectory() as tmp:
        for d in ('docs', 'scripts/repro'):
            shutil.copytree(os.path.join(root, d), os.path.join(tmp, d))
        update(tmp, names(tmp), strict=False)
        before = results(tmp)
        # a number of a block that renders, edited by hand
        edited, what = None, None
        for path in doc_files(tmp):
            lines, blocks = doc_blocks(path)
            for name, block, i, j in blocks:
                what = next((w for w in before if w.endswith(f' block {name}:{block} is its '
                                                             f'rendering from docs/repro/{name}')
                             and w.startswith(f'{os.path.relpath(path, tmp)}:{i + 1} ')), None)
                if not before.get(what):
                    continue
                for k in range(i + 1, j):
                    m = re.search(r'\d+\.\d+', lines[k])
                    if m:
                        lines[k] = (lines[k][:m.start()] + f'{float(m.group()) + 1:g}' +
                                    lines[k][m.end():])
                        edited = f'{os.path.relpath(path, tmp)}:{k + 1}'
                        break
                if edited:
                    break
            if edited:
                with open(path, 'w', encoding='utf-8') as f:
                    f.write('\n'.join(lines))
                break
        tap.result(bool(edited) and results(tmp).get(what) is False,
                   f'self-test: a number edited by hand in a block ({edited}) fails (a)')
        update(tmp, names(tmp), strict=False)
        before = results(tmp)
        # a cell of a reference run changed: the block quoting it no longer matches
        quoted = next(((name, block, f.group(1).split(':')) for name in names(tmp)
                       for block, lines in templates(tmp, name).items() for x in lines
                       for f in FIELD.finditer(x)
                       if f.group(1).count(':') == 3 and not f.group(1).startswith('@')
                       and f.group(1).split(':')[0] not in NOT_OUTPUT
                       and f.group(1).split(':')[1] and not AGG.match(f.group(1).split(':')[1])
                       and f.group(1).split(':')[3] and
                       any(ok and f' block {name}:{block} ' in w for w, ok in before.items())),
                      None)
        ok = False
        if quoted:
            name, block, (rel, key, column, _) = quoted
            p = os.path.join(tmp, 'docs/repro', name, rel)
            t = Table(p, KEYS.get(name, {}).get(rel))
            for r in t.rows:
                if t.key_of(r) == tuple(key.split(',')):
                    r[t.col(column)] = str(num(r[t.col(column)], p) * 3 + 7)
            with open(p, 'w', newline='', encoding='utf-8') as f:
                csv.writer(f, lineterminator='\n').writerows([t.columns] + t.rows)
            ok = any(not ok and f' block {name}:{block} ' in w for w, ok in results(tmp).items())
        tap.result(ok, 'self-test: a changed cell of a reference run fails (a)' +
                   (f' ({name}/{rel}, {key}, {column})' if quoted else ''))
        # a recorded id that is not HEAD's: stale, and named
        name = sorted(DEPENDS)[0]
        p = os.path.join(root, 'docs/repro', name, 'run.txt')
        ok = False
        if os.path.isfile(p):
            q = os.path.join(tmp, 'run.txt')
            with open(p, encoding='utf-8') as f:
                text = re.sub(r'^(tests/sim) \S+$', r'\1 ' + '0' * 40, f.read(), flags=re.M)
            with open(q, 'w', encoding='utf-8') as f:
                f.write(text)
            ok = 'tests/sim' in stale(root, name, q)[1]
        tap.result(ok, 'self-test: a recorded tree that is not HEAD\'s is named stale (c)')


def shape(root, name, d, tap):
    """(b): DIR's CSVs against docs/repro/NAME's."""
    ref = os.path.join(root, 'docs/repro', name)

    def csvs(top):
        out = set()
        for dirpath, _, files in os.walk(top):
            for f in files:
                rel = os.path.relpath(os.path.join(dirpath, f), top)
                if f.endswith('.csv') and f not in NOT_OUTPUT:
                    out.add(rel)
        return out
    have, want = csvs(d), csvs(ref)
    tap.result(have == want, f'a smoke run of {name} writes the CSV files of docs/repro/{name}',
               [f'only in the smoke run: {" ".join(sorted(have - want))}'] * bool(have - want) +
               [f'only in docs/repro/{name}: {" ".join(sorted(want - have))}'] * bool(want - have))
    for rel in sorted(have & want):
        keys = KEYS.get(name, {}).get(rel)
        try:
            a, b = Table(os.path.join(d, rel), keys), Table(os.path.join(ref, rel), keys)
        except RenderError as e:
            tap.result(False, f'{rel}: columns and rows', [str(e)])
            continue
        diag = []
        if a.columns != b.columns:
            diag.append(f'columns: smoke {",".join(a.columns)}; reference {",".join(b.columns)}')
        elif a.keys:
            ka, kb = [a.key_of(r) for r in a.rows], [b.key_of(r) for r in b.rows]
            optional = OPTIONAL_ROWS.get(name, {}).get(rel, set())
            kb_needed = [k for k in kb if k not in optional or k in ka]
            if ka != kb_needed:
                diag.append(f'row keys ({",".join(a.keys)}): smoke {" ".join("/".join(k) for k in ka)}')
                diag.append(f'reference {" ".join("/".join(k) for k in kb)}')
        what = f'{rel}: the columns' + (f' and row keys ({",".join(a.keys)})' if a.keys else '') + \
               ' of the reference'
        tap.result(not diag, what, diag)
    for rel in EXACT.get(name, []):
        p, q = os.path.join(d, rel), os.path.join(ref, rel)
        same = os.path.isfile(p) and os.path.isfile(q) and filecmp.cmp(p, q, shallow=False)
        tap.result(same, f'{rel} is the reference\'s (it does not depend on the run\'s length)',
                   [] if same else [f'rerun scripts/repro/{name}.sh --out docs/repro/{name}'])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('name', nargs='?', help='a reproduction (scripts/repro/NAME.sh)')
    ap.add_argument('dir', nargs='?', help='the directory its run wrote')
    ap.add_argument('--args', default='', help='after a run: the options it was given')
    ap.add_argument('--update', nargs='*', metavar='NAME',
                    help='rewrite the blocks from docs/repro/NAME (no NAME: all)')
    ap.add_argument('--check', action='store_true', help='the lint: (a) and (c)')
    ap.add_argument('--shape', action='store_true', help='the lint: (b), NAME DIR')
    ap.add_argument('--self-test', action='store_true', help='with --check: edit a copy first')
    ap.add_argument('--tap', action='store_true', help='TAP output (the lint)')
    a = ap.parse_args()
    root = ROOT
    try:
        if a.update is not None:
            changed = update(root, a.update or names(root))
            print('render: ' + (f'rewrote {", ".join(changed)}' if changed else 'every block was up to date'))
            return 0
        if a.check:
            tap = Tap(a.tap)
            if a.self_test:
                self_test(root, tap)
            check(root, tap)
            tap.plan()
            return 1 if tap.failed and not a.tap else 0
        if a.shape:
            if not a.name or not a.dir:
                ap.error('--shape NAME DIR')
            tap = Tap(a.tap)
            shape(root, a.name, a.dir, tap)
            tap.plan()
            return 1 if tap.failed and not a.tap else 0
        if not a.name or not a.dir:
            ap.error('NAME DIR, --update, --check or --shape')
        if a.name not in DEPENDS:
            ap.error(f'no reproduction {a.name} (one of {", ".join(sorted(DEPENDS))})')
        stamp(root, a.name, a.dir, a.args)
        ref = os.path.join(root, 'docs/repro', a.name)
        if os.path.realpath(a.dir) == os.path.realpath(ref):
            changed = update(root, [a.name])
            print(f'{a.name}: the docs\' blocks ' +
                  (f'rewritten from {os.path.relpath(ref, root)}: {", ".join(changed)}' if changed
                   else 'were up to date'))
        else:
            run = Run(root, a.name, a.dir)
            for block, lines in templates(root, a.name).items():
                try:
                    text = run.render(lines)
                except (RenderError, OSError) as e:
                    print(f'{a.name}: warning: the docs\' block {block} cannot be rendered from '
                          f'this run: {e}')
                    continue
                print(f'{a.name}: the docs\' block {block} from this run:')
                for x in text:
                    print('  ' + x)
        return 0
    except (RenderError, OSError) as e:
        print(f'render: error: {e}', file=sys.stderr)
        return 1


if __name__ == '__main__':
    sys.exit(main())
