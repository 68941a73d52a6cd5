#!/usr/bin/python3
"""Check the programmer's reference manual (docs/*.md) against include/snic/.

The headers are the hardware: every constant, register, enumerator, struct
field, helper and wire op-code they define must be in the manual with the
same value, offset, size and type, and nothing the manual names may be
missing from the headers. Values come from the compiler, not from reading
the headers: pycparser (Debian's python3-pycparser) lists the structs,
their fields and the enums; a generated C program compiled against the real
headers prints every value, offset and size, and the op-code table
snic_opcode_info() holds.

How the manual is read (docs/hardware-interface.md says the same):
  * A constant table has a "Name" column and a "Value" (or "Offset")
    column: Name holds `IDENT`, Value a number (0x1f, 31) or "bit N".
    With "Wire name", "Headers" and "Flags" columns it is the op-code
    table: the name snic_opcode_info() gives, and the SNIC_HDR_* and
    SNIC_OPF_* flags without their prefix.
  * A struct table has "Offset", "Size", "Type" and "Field" columns and
    belongs to the nearest heading above it naming `struct snic_x` and
    "(N bytes)". Fields of anonymous unions/structs are listed by name,
    those of named inner structs as `outer.field`; arrays as `name[N]`.
  * Helpers are named in backticks as `name()` (functions) and
    `NAME(arg)` (function-like macros); enum types as `enum snic_x`.
  * Generated blocks (between <!-- NAME begin --> and <!-- NAME end -->)
    are skipped: their own lints check them against the code.

    check-manual.py [--tap] [--self-test] [--include DIR] ROOT

ROOT is the repository; DIR (default ROOT/include) holds snic/*.h. Every
problem is printed with the exact row to add or fix. --self-test also
renames a struct field and changes a constant in a copy of the headers
and expects both to be reported. Exit status 1 on any problem.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pycparser
from pycparser import c_ast

# Stand-ins for <linux/types.h>: pycparser needs C without GNU extensions.
FAKE_TYPES = '''
typedef unsigned char __u8; typedef unsigned short __u16;
typedef unsigned int __u32; typedef unsigned long long __u64;
typedef __u16 __le16; typedef __u32 __le32; typedef __u64 __le64;
typedef __u16 __be16; typedef __u32 __be32; typedef __u64 __be64;
typedef __u64 __aligned_u64;
'''


class Item:
    """One thing a header defines: kind, name, header:line, details."""

    def __init__(self, kind, name, where, **kw):
        self.kind, self.name, self.where = kind, name, where
        self.__dict__.update(kw)


def hx(v):
    return f'{v:#04x}' if isinstance(v, int) else repr(v)


def fmt_value(v):
    return f'{v} ({v:#x})' if v > 9 else str(v)


def c_eval(node):
    """Value of a constant expression of the preprocessed headers."""
    if isinstance(node, c_ast.Constant):
        return int(node.value.rstrip('uUlL'), 0)
    if isinstance(node, c_ast.BinaryOp):
        a, b = c_eval(node.left), c_eval(node.right)
        return {'+': a + b, '-': a - b, '*': a * b, '<<': a << b,
                '>>': a >> b, '|': a | b, '/': a // b}[node.op]
    if isinstance(node, c_ast.UnaryOp) and node.op == 'sizeof':
        raise ValueError('sizeof in an array bound')
    raise ValueError(f'cannot evaluate {type(node).__name__}')


def type_name(t):
    """(type text, [array dims]) of a declaration's type."""
    dims = []
    while isinstance(t, c_ast.ArrayDecl):
        dims.append(c_eval(t.dim))
        t = t.type
    if isinstance(t, c_ast.PtrDecl):
        inner, _ = type_name(t.type)
        return inner + ' *', dims
    base = t.type
    quals = ' '.join(t.quals) + ' ' if getattr(t, 'quals', None) else ''
    if isinstance(base, c_ast.IdentifierType):
        return quals + ' '.join(base.names), dims
    kind = 'struct' if isinstance(base, c_ast.Struct) else 'union'
    return f'{quals}{kind} {base.name}', dims


def leaves(decls, prefix=''):
    """Documentable fields: (path, type, dims); anonymous aggregates open."""
    out = []
    for d in decls:
        t = d.type
        # An unnamed member's type is the aggregate itself, a named one's
        # is wrapped in a TypeDecl.
        inner = t.type if isinstance(t, c_ast.TypeDecl) else t
        if isinstance(inner, (c_ast.Struct, c_ast.Union)) and \
                inner.name is None and inner.decls is not None:
            sub = prefix + d.name + '.' if d.name else prefix
            out += leaves(inner.decls, sub)
            continue
        ty, dims = type_name(t)
        out.append((prefix + d.name, ty, dims))
    return out


class Headers:
    """Everything include/snic/*.h defines, with compiler-computed values."""

    def __init__(self, incdir, tmp):
        self.incdir = incdir
        self.files = sorted(glob.glob(os.path.join(incdir, 'snic', '*.h')))
        if not self.files:
            raise SystemExit(f'check-manual: no headers in {incdir}/snic')
        self.text = {f: open(f).read() for f in self.files}
        self.items = []
        self.tmp = tmp
        self._macros()
        self._parse()
        self._compile()

    def where(self, pattern):
        for f in self.files:
            for n, line in enumerate(self.text[f].splitlines(), 1):
                if re.search(pattern, line):
                    return f'{os.path.relpath(f, os.path.dirname(self.incdir))}:{n}'
        return 'include/snic/?'

    def _macros(self):
        self.macros = []        # object-like: evaluated by the compiler
        self.fn_macros = []
        for f in self.files:
            text = self.text[f].replace('\\\n', ' ')
            undef = set(re.findall(r'^\s*#\s*undef\s+(\w+)', text, re.M))
            for m in re.finditer(r'^\s*#\s*define\s+(\w+)(\(([^)]*)\))?(.*)$',
                                 text, re.M):
                name, fn, args, body = m.group(1), m.group(2), m.group(3), m.group(4)
                if name in undef:
                    continue        # a helper local to the header's code
                if re.fullmatch(r'SNIC_\w+_H', name) and not body.strip():
                    continue        # include guard
                where = self.where(rf'#\s*define\s+{name}\b')
                if fn:
                    self.fn_macros.append(Item('fn-macro', name, where, args=args))
                else:
                    self.macros.append(Item('const', name, where))

    def _parse(self):
        os.makedirs(os.path.join(self.tmp, 'fake', 'linux'), exist_ok=True)
        with open(os.path.join(self.tmp, 'fake', 'linux', 'types.h'), 'w') as f:
            f.write(FAKE_TYPES)
        unit = os.path.join(self.tmp, 'all.c')
        with open(unit, 'w') as f:
            for h in self.files:
                f.write(f'#include "{h}"\n')
        # pycparser knows offsetof (a header's _Static_assert) by that name
        pre = subprocess.run(['gcc', '-E', '-P', '-nostdinc',
                              '-D__builtin_offsetof(t,m)=offsetof(t,m)', '-I',
                              os.path.join(self.tmp, 'fake'), unit],
                             capture_output=True, text=True)
        if pre.returncode:
            raise SystemExit('check-manual: gcc -E failed:\n' + pre.stderr)
        ast = pycparser.CParser().parse(pre.stdout, 'include/snic')
        self.enum_consts, self.structs, self.enums, self.funcs = [], [], [], []
        for e in ast.ext:
            if isinstance(e, c_ast.FuncDef):
                n = e.decl.name
                self.funcs.append(Item('function', n, self.where(rf'\b{n}\s*\(')))
                continue
            if not isinstance(e, c_ast.Decl) or e.name is not None:
                continue
            t = e.type
            if isinstance(t, c_ast.Enum) and t.values is not None:
                self.enums.append(Item('enum', 'enum ' + t.name,
                                       self.where(rf'enum {t.name}\s*\{{')))
                for v in t.values.enumerators:
                    self.enum_consts.append(
                        Item('const', v.name, self.where(rf'\b{v.name}\s*=')))
            elif isinstance(t, c_ast.Struct) and t.decls is not None:
                self.structs.append(Item('struct', t.name,
                                         self.where(rf'struct {t.name}\s*\{{'),
                                         fields=leaves(t.decls)))

    def _compile(self):
        prog = ['#include <stddef.h>', '#include <stdio.h>']
        prog += [f'#include "{h}"' for h in self.files]
        prog += ['int main(void)', '{', '    int op;']
        for it in self.macros + self.enum_consts:
            prog.append(f'    printf("C {it.name} %llu\\n", '
                        f'(unsigned long long)({it.name}));')
        for s in self.structs:
            prog.append(f'    printf("S {s.name} %zu\\n", sizeof(struct {s.name}));')
            for path, _, _ in s.fields:
                prog.append(f'    printf("F {s.name} {path} %zu %zu\\n", '
                            f'offsetof(struct {s.name}, {path}), '
                            f'sizeof(((struct {s.name} *)0)->{path}));')
        if any(f.name == 'snic_opcode_info' for f in self.funcs):
            prog += ['    for (op = 0; op < 256; op++) {',
                     '        const struct snic_opcode_info *i = snic_opcode_info(op);',
                     '        if (i)',
                     '            printf("O %d %u %u %s\\n", op, i->headers, i->flags, i->name);',
                     '    }']
        prog += ['    return 0;', '}']
        src = os.path.join(self.tmp, 'values.c')
        exe = os.path.join(self.tmp, 'values')
        with open(src, 'w') as f:
            f.write('\n'.join(prog) + '\n')
        cc = subprocess.run(['gcc', '-std=gnu11', '-w', '-o', exe, src],
                            capture_output=True, text=True)
        if cc.returncode:
            raise SystemExit('check-manual: compiling the value printer failed '
                             '(is every object-like macro an integer?):\n' + cc.stderr)
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
        self.value, self.size, self.field, self.opcodes = {}, {}, {}, {}
        for line in out.splitlines():
            kind, rest = line.split(' ', 1)
            if kind == 'C':
                n, v = rest.split()
                self.value[n] = int(v)
            elif kind == 'S':
                n, v = rest.split()
                self.size[n] = int(v)
            elif kind == 'F':
                s, p, off, size = rest.split()
                self.field[(s, p)] = (int(off), int(size))
            elif kind == 'O':
                op, hdrs, flags, name = rest.split(' ', 3)
                self.opcodes[int(op)] = (int(hdrs), int(flags), name)

    def flag_names(self, prefix, bits):
        """'RETH IMMDT' for SNIC_HDR_RETH | SNIC_HDR_IMMDT."""
        names = [n[len(prefix):] for n in sorted(self.value)
                 if n.startswith(prefix) and self.value[n] and
                 self.value[n] & (self.value[n] - 1) == 0 and bits & self.value[n]]
        return ' '.join(sorted(names))


# ---- the manual ----------------------------------------------------------

def parse_number(cell):
    c = cell.replace('`', '').strip()
    m = re.match(r'bit\s+(\d+)\b', c)
    if m:
        return 1 << int(m.group(1))
    m = re.match(r'(0x[0-9a-fA-F]+|\d+)', c)
    return int(m.group(1), 0) if m else None


def ticked(cell):
    return re.findall(r'`([^`]+)`', cell)


class Manual:
    """Tables and mentions of docs/*.md."""

    def __init__(self, files):
        self.consts = []    # (file:line, name, value, row dict)
        self.fields = []    # (file:line, struct, heading size, offset, size, type, field)
        self.struct_tables = {}     # struct -> (file:line, size in heading)
        self.mentions = []  # (file:line, token)
        for f in files:
            self._read(f)

    def _read(self, path):
        lines = open(path).read().splitlines()
        rel = os.path.join('docs', os.path.basename(path))
        struct = None
        in_code = False
        i = 0
        while i < len(lines):
            line = lines[i]
            # A generated block (the QP context's table, Table 3, ...) is
            # checked against the code by its own lint, not read here.
            if re.match(r'^<!-- [\w:-]+ begin -->$', line):
                while i < len(lines) and not re.match(r'^<!-- [\w:-]+ end -->$', lines[i]):
                    i += 1
                i += 1
                continue
            if line.startswith('```'):
                in_code = not in_code
            if not in_code:
                for tok in ticked(line):
                    self.mentions.append((f'{rel}:{i + 1}', tok))
            if line.startswith('#'):
                m = re.search(r'`struct (snic_\w+)`.*\((\d+) bytes\)', line)
                struct = (m.group(1), int(m.group(2))) if m else None
                if m:
                    self.struct_tables.setdefault(m.group(1), (f'{rel}:{i + 1}', int(m.group(2))))
            if in_code or not line.startswith('|') or i + 1 >= len(lines) or \
                    not re.match(r'^\|[\s:|-]+\|$', lines[i + 1]):
                i += 1
                continue
            head = [c.strip().lower() for c in line.strip('|').split('|')]
            i += 2
            while i < len(lines) and lines[i].startswith('|'):
                cells = [c.strip() for c in lines[i].strip('|').split('|')]
                row = dict(zip(head, cells))
                where = f'{rel}:{i + 1}'
                for tok in ticked(lines[i]):
                    self.mentions.append((where, tok))
                if 'field' in row and 'offset' in row:
                    f = ticked(row['field'])
                    t = ticked(row.get('type', ''))
                    self.fields.append((where, struct, parse_number(row['offset']),
                                        parse_number(row.get('size', '')),
                                        t[0] if t else '', f[0] if f else ''))
                elif 'name' in row:
                    vcol = 'value' if 'value' in row else 'offset' if 'offset' in row else None
                    names = [t for t in ticked(row['name']) if re.fullmatch(r'SNIC_\w+', t)]
                    if vcol and names:
                        self.consts.append((where, names[0], parse_number(row[vcol]), row))
                i += 1


# ---- the comparison --------------------------------------------------------

def check(hdr, man):
    """Problems as {group: [message]}: groups are header files and docs."""
    probs = {}

    def add(group, msg):
        probs.setdefault(group, []).append(msg)

    def hgroup(item):
        return item.where.split(':')[0]

    rows = {}
    for where, name, value, row in man.consts:
        rows.setdefault(name, []).append((where, value, row))
    for it in hdr.macros + hdr.enum_consts:
        want = hdr.value[it.name]
        found = rows.get(it.name)
        if not found:
            add(hgroup(it), f'{it.name} = {fmt_value(want)} ({it.where}) is not in the manual: '
                f'add the row | `{it.name}` | {fmt_value(want)} | ... | to a Name/Value table')
            continue
        for where, value, row in found:
            if value != want:
                add(hgroup(it), f'{where}: {it.name} is {row.get("value", row.get("offset"))!r} '
                    f'in the manual but {fmt_value(want)} in {it.where}')
    # The op-code table: every op-code snic_opcode_info() knows, as it knows it.
    by_value = {}
    for where, name, value, row in man.consts:
        if 'headers' in row and 'flags' in row:
            by_value[value] = (where, name, row)
    for op, (hdrs, flags, wire) in sorted(hdr.opcodes.items()):
        where = hdr.where(r'snic_opcode_info')
        if op not in by_value:
            add(hgroup(Item('', '', where)),
                f'op-code {op:#04x} "{wire}" (snic_opcode_info(), {where}) has no row in the '
                f'op-code table: | `SNIC_OP_...` | {op:#04x} | {wire} | '
                f'{hdr.flag_names("SNIC_HDR_", hdrs) or "-"} | {hdr.flag_names("SNIC_OPF_", flags)} |')
            continue
        mwhere, _, row = by_value[op]
        got_h = ' '.join(sorted(row['headers'].replace('`', '').replace(',', ' ').split()) or [])
        got_h = '' if got_h == '-' else got_h
        got_f = ' '.join(sorted(row['flags'].replace('`', '').replace(',', ' ').split()))
        got_w = row.get('wire name', '').replace('`', '').strip()
        if got_h != hdr.flag_names('SNIC_HDR_', hdrs):
            add(hgroup(Item('', '', where)), f'{mwhere}: op-code {op:#04x} headers "{got_h}" '
                f'but snic_opcode_info() says "{hdr.flag_names("SNIC_HDR_", hdrs)}"')
        if got_f != hdr.flag_names('SNIC_OPF_', flags):
            add(hgroup(Item('', '', where)), f'{mwhere}: op-code {op:#04x} flags "{got_f}" '
                f'but snic_opcode_info() says "{hdr.flag_names("SNIC_OPF_", flags)}"')
        if got_w != wire:
            add(hgroup(Item('', '', where)), f'{mwhere}: op-code {op:#04x} wire name '
                f'"{got_w}" but snic_opcode_info() says "{wire}"')
    for value, (mwhere, name, _) in by_value.items():
        if value not in hdr.opcodes:
            add('docs', f'{mwhere}: op-code row {name} ({value}): snic_opcode_info() has no such op-code')

    # Structs: a table each, every field at its offset with its size and type.
    doc_fields = {}
    for where, struct, off, size, ty, field in man.fields:
        if struct is None:
            add('docs', f'{where}: a struct table without a heading naming `struct snic_x` (N bytes) above it')
            continue
        doc_fields.setdefault(struct[0], []).append((where, off, size, ty, field))
    known = {s.name: s for s in hdr.structs}
    for s in hdr.structs:
        size = hdr.size[s.name]
        if s.name not in man.struct_tables:
            rows_ = '\n'.join(f'    | {hdr.field[(s.name, p)][0]:#04x} | {hdr.field[(s.name, p)][1]} | '
                              f'`{ty}` | `{p}{"".join(f"[{d}]" for d in dims)}` | ... |'
                              for p, ty, dims in s.fields)
            add(hgroup(s), f'struct {s.name} ({size} bytes, {s.where}) has no table: add a heading '
                f'with `struct {s.name}` ({size} bytes) and\n    | Offset | Size | Type | Field | Meaning |\n'
                f'    |---|---|---|---|---|\n{rows_}')
            continue
        hwhere, hsize = man.struct_tables[s.name]
        if hsize != size:
            add(hgroup(s), f'{hwhere}: struct {s.name} is {hsize} bytes in the manual, {size} in {s.where}')
        docs = {}
        for where, off, fsize, ty, field in doc_fields.get(s.name, []):
            docs[re.sub(r'\[.*', '', field)] = (where, off, fsize, ty, field)
        for p, ty, dims in s.fields:
            off, fsize = hdr.field[(s.name, p)]
            name = p + ''.join(f'[{d}]' for d in dims)
            if p not in docs:
                add(hgroup(s), f'struct {s.name}: field {name} (offset {off:#04x}, {fsize} bytes, '
                    f'{ty}; {s.where}) is not in the manual: add | {off:#04x} | {fsize} | `{ty}` | `{name}` | ... |')
                continue
            where, doff, dsize, dty, dfield = docs.pop(p)
            if (doff, dsize, dty, dfield) != (off, fsize, ty, name):
                add(hgroup(s), f'{where}: struct {s.name} field {dfield!r} is at {hx(doff)}, {dsize} bytes, '
                    f'{dty!r} in the manual but `{name}` at {off:#04x}, {fsize} bytes, {ty!r} in {s.where}')
        for p, (where, *_rest) in docs.items():
            add('docs', f'{where}: struct {s.name} has no field {p!r} in include/snic/ '
                f'(renamed or removed? fields there: {", ".join(f[0] for f in s.fields)})')
    for struct in doc_fields:
        if struct not in known:
            add('docs', f'{man.struct_tables[struct][0]}: struct {struct} is not defined in include/snic/')

    # Helpers and enum types: named somewhere.
    toks = {t for _, t in man.mentions}
    for it in hdr.funcs:
        if f'{it.name}()' not in toks:
            add(hgroup(it), f'helper {it.name}() ({it.where}) is not in the manual: name it as `{it.name}()`')
    for it in hdr.fn_macros:
        if not any(t.startswith(it.name + '(') for t in toks):
            add(hgroup(it), f'macro {it.name}({it.args}) ({it.where}) is not in the manual: '
                f'name it as `{it.name}({it.args})`')
    for it in hdr.enums:
        if it.name not in toks:
            add(hgroup(it), f'{it.name} ({it.where}) is not in the manual: name it as `{it.name}`')

    # Nothing in the manual that the headers lack.
    names = set(hdr.value) | {i.name for i in hdr.fn_macros} | \
        {i.name for i in hdr.funcs} | set(known) | {i.name for i in hdr.enums}
    # The reference manual itself; the other documents also name the
    # code's internals (functions, build variables).
    for where, tok in man.mentions:
        if not where.startswith('docs/hardware-interface.md:'):
            continue
        for m in re.finditer(r'\b(struct|enum) (snic_\w+)', tok):
            if m.group(2) not in known and f'enum {m.group(2)}' not in names:
                add('docs', f'{where}: `{m.group(0)}` is not defined in include/snic/')
        for m in re.finditer(r'\b(SNIC_[A-Z0-9_]+)(\*)?', tok):
            if m.group(2):      # a family: SNIC_CAP_*
                if not any(n.startswith(m.group(1)) for n in names):
                    add('docs', f'{where}: no name in include/snic/ matches {m.group(0)}')
            elif m.group(1) not in names:
                add('docs', f'{where}: {m.group(1)} is not defined in include/snic/')
        m = re.fullmatch(r'(snic_\w+)\(\)', tok)
        if m and m.group(1) not in names:
            add('docs', f'{where}: {m.group(1)}() is not a helper of include/snic/')
    return probs


def run(root, incdir, tmp):
    docs = sorted(glob.glob(os.path.join(root, 'docs', '*.md')))
    if not docs:
        return {'docs': [f'no docs/*.md in {root}']}, None
    hdr = Headers(incdir, tmp)
    return check(hdr, Manual(docs)), hdr


def tap_report(results):
    """results: [(description, [problems])] -> TAP on stdout; ok?"""
    print(f'1..{len(results)}')
    ok = True
    for n, (desc, problems) in enumerate(results, 1):
        if problems:
            ok = False
            print(f'not ok {n} - {desc}')
            for p in problems:
                for line in p.splitlines():
                    print(f'# {line}')
        else:
            print(f'ok {n} - {desc}')
    return ok


def self_test(root, hdr, tmp):
    """A renamed field and a changed constant must both be reported."""
    results = []
    s, field = next((s, f[0]) for s in hdr.structs for f in s.fields
                    if re.fullmatch(r'\w+', f[0]) and not f[0].startswith(('rsvd', 'reserved')))
    c = next(m for m in hdr.macros if re.match(r'SNIC_REG_', m.name))
    for desc, mutate, expect in [
        (f'renaming struct {s.name}.{field} in a copy of the headers is reported',
         lambda text: re.sub(rf'(struct {s.name} \{{[^}}]*?)\b{field}\b', rf'\1{field}_renamed',
                             text, count=1, flags=re.S),
         [f'field {field}_renamed', f'has no field {field!r}']),
        (f'changing {c.name} in a copy of the headers is reported',
         lambda text: re.sub(rf'(#define {c.name}\s+)(\w+)', lambda m: m.group(1) + hex(
             int(m.group(2).rstrip('uUlL'), 0) + 4), text, count=1),
         [f'{c.name} is']),
    ]:
        inc = os.path.join(tmp, 'mutant', 'include')
        shutil.rmtree(os.path.dirname(inc), ignore_errors=True)
        shutil.copytree(os.path.join(hdr.incdir, 'snic'), os.path.join(inc, 'snic'))
        changed = False
        for f in glob.glob(os.path.join(inc, 'snic', '*.h')):
            text = open(f).read()
            new = mutate(text)
            if new != text:
                open(f, 'w').write(new)
                changed = True
                break
        work = os.path.join(tmp, 'mutant', 'work')
        os.makedirs(work)
        probs, _ = run(root, inc, work)
        text = '\n'.join(sum(probs.values(), []))
        missing = [e for e in expect if e not in text]
        results.append((desc, [] if changed and not missing else
                        [f'mutation applied: {changed}; expected messages with {missing!r}; got:'] +
                        (text.splitlines() or ['(no problems)'])))
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--tap', action='store_true', help='TAP output (meson)')
    ap.add_argument('--self-test', action='store_true',
                    help='also check that a renamed field and a changed constant are caught')
    ap.add_argument('--include', help='directory holding snic/*.h (default ROOT/include)')
    ap.add_argument('root', help='the repository')
    a = ap.parse_args()
    incdir = os.path.abspath(a.include or os.path.join(a.root, 'include'))
    with tempfile.TemporaryDirectory() as tmp:
        probs, hdr = run(a.root, incdir, tmp)
        groups = [os.path.relpath(f, os.path.dirname(incdir)) for f in hdr.files] if hdr else []
        results = [(f'{g}: everything it defines is in docs/ with the same value, offset, size and type',
                    probs.pop(g, [])) for g in groups]
        results.append(('docs/: everything the manual names is defined in include/snic/',
                        probs.pop('docs', []) + sum(probs.values(), [])))
        if a.self_test and hdr:
            results += self_test(a.root, hdr, tmp)
    if a.tap:
        ok = tap_report(results)
    else:
        ok = True
        for desc, problems in results:
            for p in problems:
                ok = False
                print(p)
        if ok:
            print('check-manual: docs/ matches include/snic/')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
