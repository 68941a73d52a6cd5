#!/usr/bin/env python3
"""Docs that cannot drift from what they describe.

  * README.md is a front door: at most 250 lines, none over 100 characters.
  * The manual's version line ("device ABI M.m" in the first paragraph of
    docs/hardware-interface.md) and the reset value of its ABI version
    register are SNIC_ABI_VERSION_MAJOR/MINOR of include/snic/snic_regs.h.
  * docs/device.md's property table (section "Properties", one row per
    property, names in back quotes in the first column) names exactly the
    properties hw/snic/snic.c defines (DEFINE_PROP_*("name", ...), and mac
    and netdev from DEFINE_NIC_PROPERTIES).

    tests/lint/docs.py [--tap] [--self-test] [--update] REPO

--update rewrites the version line and register value from the header.
--self-test changes SNIC_ABI_VERSION_MINOR and adds a DEFINE_PROP in a copy
and expects each reported.
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

README_LINES, README_WIDTH = 250, 100
MANUAL = 'docs/hardware-interface.md'
DEVICE = 'docs/device.md'
VERSION_LINE = re.compile(r'device ABI (\d+)\.(\d+)')
REG_ROW = re.compile(r'^(\| 0x004 \| `SNIC_REG_ABI_VERSION` \| RO \| )(0x[0-9a-fA-F]+)( \|)',
                     re.M)


def read(root, path):
    with open(os.path.join(root, path), encoding='utf-8') as f:
        return f.read()


def abi(root):
    text = read(root, 'include/snic/snic_regs.h')
    get = lambda n: int(re.search(rf'#define {n}\s+(\d+)', text).group(1))
    return get('SNIC_ABI_VERSION_MAJOR'), get('SNIC_ABI_VERSION_MINOR')


def manual_version(root, update=False):
    """Problems of the manual's version line and register value."""
    major, minor = abi(root)
    text = read(root, MANUAL)
    intro = text.split('\n## ', 1)[0]
    m = VERSION_LINE.search(intro)
    reg = REG_ROW.search(text)
    want_reg = f'0x{(major << 16) | minor:08x}'
    if update and m and reg:
        text = text[:m.start()] + f'device ABI {major}.{minor}' + text[m.end():]
        text = REG_ROW.sub(lambda r: r.group(1) + want_reg + r.group(3), text, 1)
        with open(os.path.join(root, MANUAL), 'w', encoding='utf-8') as f:
            f.write(text)
        return manual_version(root)
    bad = []
    if not m:
        bad.append(f'{MANUAL}: no "device ABI M.m" in its first paragraph')
    elif (int(m.group(1)), int(m.group(2))) != (major, minor):
        bad.append(f'{MANUAL}: says device ABI {m.group(1)}.{m.group(2)}, the headers '
                   f'{major}.{minor} (tests/lint/docs.py --update {root})')
    if not reg:
        bad.append(f'{MANUAL}: no row for SNIC_REG_ABI_VERSION at 0x004')
    elif reg.group(2).lower() != want_reg:
        bad.append(f'{MANUAL}: SNIC_REG_ABI_VERSION reads {reg.group(2)}, the headers '
                   f'give {want_reg}')
    return bad


def device_properties(root):
    src = read(root, 'hw/snic/snic.c')
    names = set(re.findall(r'DEFINE_PROP\w*\(\s*"([^"]+)"', src))
    if 'DEFINE_NIC_PROPERTIES' in src:
        names |= {'mac', 'netdev'}
    return names


def documented_properties(root):
    text = read(root, DEVICE)
    sect = re.search(r'^## Properties\n(.*?)(?=^## |\Z)', text, re.M | re.S)
    names = set()
    for line in (sect.group(1) if sect else '').split('\n'):
        cells = line.strip().strip('|').split('|')
        if line.startswith('|') and len(cells) > 1 and '`' in cells[0]:
            names |= set(re.findall(r'`([^`]+)`', cells[0]))
    return names


def properties(root):
    have, doc = device_properties(root), documented_properties(root)
    return ([f'{DEVICE}: property `{p}` has no row' for p in sorted(have - doc)] +
            [f'{DEVICE}: row `{p}` names no property of hw/snic/snic.c'
             for p in sorted(doc - have)])


def readme(root):
    lines = read(root, 'README.md').rstrip('\n').split('\n')
    bad = [f'README.md: {len(lines)} lines, at most {README_LINES}'] \
        if len(lines) > README_LINES else []
    bad += [f'README.md:{n}: {len(l)} characters, at most {README_WIDTH}'
            for n, l in enumerate(lines, 1) if len(l) > README_WIDTH]
    return bad


def self_test(root):
    tmp = tempfile.mkdtemp()
    try:
        for d in ('include/snic', 'hw/snic', 'docs'):
            os.makedirs(os.path.join(tmp, d))
        for f in ('include/snic/snic_regs.h', 'hw/snic/snic.c', MANUAL, DEVICE):
            shutil.copy(os.path.join(root, f), os.path.join(tmp, f))
        regs = os.path.join(tmp, 'include/snic/snic_regs.h')
        with open(regs, encoding='utf-8') as f:
            text = f.read()
        text = re.sub(r'(#define SNIC_ABI_VERSION_MINOR\s+)(\d+)',
                      lambda m: m.group(1) + str(int(m.group(2)) + 1), text)
        with open(regs, 'w', encoding='utf-8') as f:
            f.write(text)
        glue = os.path.join(tmp, 'hw/snic/snic.c')
        with open(glue, 'a', encoding='utf-8') as f:
            f.write('DEFINE_PROP_UINT32("x-planted", SnicState, planted, 0),\n')
        return [(bool(manual_version(tmp)),
                 'self-test: a minor ABI bump without the manual is reported'),
                (any('x-planted' in b for b in properties(tmp)),
                 'self-test: a new DEFINE_PROP without its row is reported')]
    finally:
        shutil.rmtree(tmp)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('repo')
    ap.add_argument('--tap', action='store_true')
    ap.add_argument('--self-test', action='store_true')
    ap.add_argument('--update', action='store_true')
    a = ap.parse_args()
    checks = [
        ('README.md is a front door (lines, width)', readme(a.repo)),
        ("the manual's version line is the headers'", manual_version(a.repo, a.update)),
        ("docs/device.md's property table is the device's", properties(a.repo)),
    ]
    results = [(not bad, what, bad) for what, bad in checks]
    if a.self_test:
        results += [(ok, what, []) for ok, what in self_test(a.repo)]
    if a.tap:
        print(f'1..{len(results)}')
    for i, (ok, what, bad) in enumerate(results, 1):
        if a.tap:
            print(f'{"ok" if ok else "not ok"} {i} - {what}')
        for b in bad:
            print(f'# {b}')
    return 0 if all(ok for ok, _, _ in results) else 1


if __name__ == '__main__':
    sys.exit(main())
