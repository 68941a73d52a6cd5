#!/usr/bin/python3
"""The QP context's per-field table, generated from the compiled core (pahole, Debian's dwarves).

    scripts/gen-qpc-table.py OBJECT             print the table (Markdown)
    scripts/gen-qpc-table.py OBJECT --check FILE  exit 1 if FILE's table differs from it
    scripts/gen-qpc-table.py OBJECT --update FILE rewrite FILE's table

OBJECT is an object file of the core with debug information that uses struct SnicQp, e.g.
build/unit/libsnic-core.a.p/hw_snic_core_objects_qp.c.o. The table sits in FILE between the lines
<!-- qpc-table begin --> and <!-- qpc-table end -->: one row per field (nested structures
flattened to a.b.c, bit-fields with their bits), its offset and size in bytes, then the
holes pahole reports and the total, which is what QUERY_DEVICE reports as qp_state_bytes.
"""
import argparse
import re
import subprocess
import sys

BEGIN = '<!-- qpc-table begin -->'
END = '<!-- qpc-table end -->'

# pahole -E: '<type> name;   /* off size */', bit-fields '/* off: bit size */', nested
# 'struct X {' ... '} name; /* off size */'.
FIELD = re.compile(r'^\s*(?:/\*.*?\*/\s*)?(?P<type>[^;{}]*?)\s+(?P<name>[\w\[\]]+)(?::(?P<bits>\d+))?;'
                   r'\s*/\*\s*(?P<off>\d+)(?::\s*(?P<bit>\d+))?\s+(?P<size>\d+)\s*\*/')
OPEN = re.compile(r'^\s*(?:/\*.*?\*/\s*)?(?:struct|union)\s+\w*\s*\{\s*$')
CLOSE = re.compile(r'^\s*\}\s*(?P<name>[\w\[\]]+);\s*/\*\s*(?P<off>\d+)\s+(?P<size>\d+)\s*\*/')
HOLE = re.compile(r'XXX (\d+) (byte|bit)s? hole')
SIZE = re.compile(r'/\* size: (\d+),')


def pahole(obj):
    out = subprocess.run(['pahole', '-E', '--show_only_data_members', obj], check=True,
                         capture_output=True, text=True).stdout
    m = re.search(r'^struct SnicQp \{\n(.*?)^\};', out, re.S | re.M)
    if not m:
        sys.exit('gen-qpc-table: no struct SnicQp in %s (built with -g?)' % obj)
    return m.group(1)


def rows(body):
    """[(path, offset, size, bits)] of the leaf fields; hole bytes; total size."""
    out, path, holes, total = [], [], 0, None
    for line in body.split('\n'):
        h = HOLE.search(line)
        if h:
            holes += int(h.group(1)) * (8 if h.group(2) == 'byte' else 1)
            continue
        s = SIZE.search(line)
        if s and not path:
            total = int(s.group(1))
            continue
        if OPEN.match(line):
            path.append(None)
            continue
        c = CLOSE.match(line)
        if c:
            path.pop()
            # the nested struct's name closes it: name its fields
            name = c.group('name')
            for i in range(len(out) - 1, -1, -1):
                if out[i][4] != len(path) + 1:
                    break
                out[i] = (name + '.' + out[i][0],) + out[i][1:4] + (len(path),)
            continue
        f = FIELD.match(line)
        if f:
            bits = f.group('bits') and '%s bit%s' % (f.group('bits'), 's' * (f.group('bits') != '1'))
            out.append((f.group('name'), int(f.group('off')), int(f.group('size')), bits, len(path)))
    return [r[:4] for r in out], holes, total


def table(obj):
    fields, hole_bits, total = rows(pahole(obj))
    lines = ['| Offset | Bytes | Field |', '|---|---|---|']
    for name, off, size, bits in fields:
        lines.append('| %d | %s | `%s` |' % (off, bits or size, name))
    lines.append('')
    lines.append('%d bytes in all (`sizeof(SnicQp)`, QUERY_DEVICE `qp_state_bytes`); holes: %d bits.'
                 % (total, hole_bits))
    return '\n'.join(lines) + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('object')
    g = ap.add_mutually_exclusive_group()
    g.add_argument('--check', metavar='FILE')
    g.add_argument('--update', metavar='FILE')
    a = ap.parse_args()
    t = table(a.object)
    if not (a.check or a.update):
        sys.stdout.write(t)
        return
    path = a.check or a.update
    text = open(path).read()
    m = re.search(re.escape(BEGIN) + r'\n(.*?)' + re.escape(END), text, re.S)
    if not m:
        sys.exit('gen-qpc-table: %s has no %s ... %s' % (path, BEGIN, END))
    if a.check:
        if m.group(1) != t:
            sys.stdout.write('not ok - %s: the QPC table is not the code\'s (run scripts/gen-qpc-table.py '
                             '%s --update %s)\n' % (path, a.object, path))
            sys.exit(1)
        print('ok - %s: the QPC table is the code\'s (%s)' % (path, t.strip().split('\n')[-1]))
        return
    open(path, 'w').write(text[:m.start(1)] + t + text[m.end(1):])


if __name__ == '__main__':
    main()
