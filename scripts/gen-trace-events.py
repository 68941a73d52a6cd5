#!/usr/bin/env python3
"""Generate QEMU's trace events for snic from the core's one list.

    scripts/gen-trace-events.py [--check] EVENTS_H GLUE_EVENTS OUTDIR

EVENTS_H is hw/snic/core/events.h (the SNIC_EVENTS X-macro list),
GLUE_EVENTS hw/snic/trace-events.in (the events of the QEMU glue itself).
Writes OUTDIR/trace-events (QEMU's tracetool input) and
OUTDIR/trace-switch.c.inc (the cases of the glue's switch from the core's
SnicTracePoint to trace_snic_*()), each only if its text changed, so an
unchanged list rebuilds nothing. --check validates the list and writes
nothing. Fails (exit 1) on an entry whose format and arguments disagree:
every argument is a uint64_t printed with one PRI*64 conversion.
"""
import os
import re
import sys

MAX_ARGS = 4


def fail(msg):
    sys.exit("gen-trace-events: " + msg)


def macro_body(text):
    """The SNIC_EVENTS(X) definition, continuations joined, comments gone."""
    m = re.search(r'#define SNIC_EVENTS\(X\)((?:[^\n]*\\\n)*[^\n]*\n)', text)
    if not m:
        fail("no '#define SNIC_EVENTS(X)' found")
    body = m.group(1).replace('\\\n', ' ')
    return re.sub(r'/\*.*?\*/', ' ', body, flags=re.S)


def split_entries(body):
    """The argument lists of every X(...), respecting strings and parens."""
    entries, i = [], 0
    while True:
        i = body.find('X(', i)
        if i < 0:
            return entries
        j, depth, in_str, parts, cur = i + 2, 1, False, [], ''
        while depth:
            ch = body[j]
            if in_str:
                cur += ch
                if ch == '\\':
                    cur += body[j + 1]
                    j += 1
                elif ch == '"':
                    in_str = False
            elif ch == '"':
                in_str = True
                cur += ch
            elif ch == '(':
                depth += 1
                cur += ch
            elif ch == ')':
                depth -= 1
                if depth:
                    cur += ch
            elif ch == ',' and depth == 1:
                parts.append(cur.strip())
                cur = ''
            else:
                cur += ch
            j += 1
        parts.append(cur.strip())
        entries.append(parts)
        i = j


def check_format(name, fmt, nargs):
    """fmt is C tokens: string literals and PRI*64 macros, concatenated."""
    tokens = re.findall(r'"(?:[^"\\]|\\.)*"|PRI[diouxX]64|\S+', fmt)
    convs = 0
    for k, tok in enumerate(tokens):
        if tok.startswith('"'):
            lit = tok[1:-1].replace('%%', '')
            if '%' in lit[:-1] or (lit.endswith('%') and
                                   (k + 1 >= len(tokens) or
                                    not tokens[k + 1].startswith('PRI'))):
                fail(f"{name}: a conversion other than %\" PRI*64 in {tok}")
            if '\\n' in lit:
                fail(f"{name}: trace formats carry no newline")
        elif tok.startswith('PRI'):
            if k == 0 or not tokens[k - 1].endswith('%"'):
                fail(f"{name}: {tok} does not follow a '%'")
            convs += 1
        else:
            fail(f"{name}: unexpected token {tok!r} in the format")
    if convs != nargs:
        fail(f"{name}: {nargs} argument(s) but {convs} conversion(s)")
    # trace-events style: adjacent literals joined, "...%"PRIu64"..."
    out = ''
    for tok in tokens:
        if tok.startswith('"') and out.endswith('"'):
            out = out[:-1] + tok[1:]
        else:
            out += tok
    return out


def parse(path):
    with open(path) as f:
        entries = split_entries(macro_body(f.read()))
    if not entries:
        fail(f"{path}: SNIC_EVENTS lists no event")
    events, seen = [], set()
    for parts in entries:
        if len(parts) < 3:
            fail(f"entry {parts!r}: X(NAME, format, arguments...)")
        name, fmt, args = parts[0], parts[1], parts[2:]
        if not re.fullmatch(r'[A-Z][A-Z0-9_]*', name) or name in seen:
            fail(f"bad or repeated event name {name!r}")
        seen.add(name)
        if len(args) > MAX_ARGS:
            fail(f"{name}: more than {MAX_ARGS} arguments")
        for a in args:
            if not re.fullmatch(r'[a-z_][a-z0-9_]*', a):
                fail(f"{name}: argument {a!r} is not a lower-case name")
        events.append((name, check_format(name, fmt, len(args)), args))
    return events


def write_if_changed(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(path + '.tmp', 'w') as f:
        f.write(text)
    os.replace(path + '.tmp', path)


def main(argv):
    if argv[:1] in (['-h'], ['--help']):
        print(__doc__.strip())
        return
    check = argv[:1] == ['--check']
    if check:
        argv = argv[1:]
    if len(argv) != 3:
        sys.exit(__doc__)
    events_h, glue, outdir = argv
    events = parse(events_h)
    if check:
        print(f"gen-trace-events: {len(events)} events in {events_h}: ok")
        return
    with open(glue) as f:
        lines = [f.read().rstrip('\n'), '',
                 '# core/events.h (generated by scripts/gen-trace-events.py: '
                 'edit events.h, not this file)']
    cases = ['/* Generated by scripts/gen-trace-events.py from '
             'core/events.h: do not edit. */']
    abcd = 'abcd'
    for name, fmt, args in events:
        lower = 'snic_' + name.lower()
        proto = ', '.join('uint64_t ' + a for a in args)
        lines.append(f'{lower}({proto}) {fmt}')
        call = ', '.join(abcd[:len(args)])
        cases.append(f'case SNIC_TRACE_{name}:\n    trace_{lower}({call});\n'
                     f'    break;')
    write_if_changed(os.path.join(outdir, 'trace-events'),
                     '\n'.join(lines) + '\n')
    write_if_changed(os.path.join(outdir, 'trace-switch.c.inc'),
                     '\n'.join(cases) + '\n')


if __name__ == '__main__':
    main(sys.argv[1:])
