#!/usr/bin/env python3
"""Heap allocations a callgrind profile shows inside the device core.

    scripts/callgrind-allocs.py CALLGRIND.OUT

Reads the call graph of a callgrind output file (what was collected:
scripts/bench-engine.sh toggles its measured windows on) and follows the
calls from the core's entry points (snic_core.h: snic_core_run, _receive,
_timer, _doorbell, _reg_read, _reg_write), not into the host interface's
callbacks (the fake host's fh_* functions, the harness's). Prints each
allocator reached (malloc, calloc, realloc, the aligned ones) with a call
chain to it, and exits 1 if there is one; prints "0" and exits 0 if not.
The graph is callgrind's, by function and not by call path: a function
both the core and the harness call counts as the core's.
"""
import re
import sys

ENTRY = re.compile(r'^snic_core_(run|receive|timer|doorbell|reg_read|reg_write)$')
HOST = re.compile(r'^fh_')
ALLOC = {'malloc', 'calloc', 'realloc', 'memalign', 'posix_memalign',
         'aligned_alloc', 'valloc', 'pvalloc'}


def graph(path):
    """{caller: {callee: calls}} from a callgrind output file"""
    names, edges = {}, {}
    fn = cfn = None

    def name(spec):
        m = re.match(r'\((\d+)\)(?: (.*))?$', spec)
        if not m:
            return spec
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), spec)

    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('fn='):
                fn = name(line[3:])
            elif line.startswith('cfn='):
                cfn = name(line[4:])
            elif line.startswith('calls=') and fn and cfn:
                n = int(line[6:].split()[0])
                callee = edges.setdefault(fn, {})
                callee[cfn] = callee.get(cfn, 0) + n
    return edges


def base(fn):
    """a function's name without callgrind's recursion suffix ('2)"""
    return re.sub(r"'\d+$", '', fn)


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        return 0 if len(sys.argv) == 2 else 2
    edges = graph(sys.argv[1])
    came = {fn: None for fn in edges if ENTRY.match(base(fn))}
    todo = list(came)
    found = []
    while todo:
        fn = todo.pop()
        for callee, n in edges.get(fn, {}).items():
            if n <= 0 or callee in came or HOST.match(base(callee)):
                continue
            came[callee] = fn
            if base(callee) in ALLOC:
                found.append(callee)
            todo.append(callee)
    for fn in found:
        chain = [fn]
        while came[chain[-1]] is not None:
            chain.append(came[chain[-1]])
        print(' <- '.join(base(f) for f in chain))
    if not found:
        print(0)
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
