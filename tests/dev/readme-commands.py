#!/usr/bin/python3
"""Run every fenced shell command of README.md and docs/*.md exactly as written.

    tests/dev/readme-commands.py RESULTS FILE...

Each ```sh block runs in one bash (-e -o pipefail) from the top of the checkout, as a reader
pasting it into a terminal would. A ```sh block that starts with the comment "# in the guest"
or "# in both guests" is what the reader types into the guest(s) the block before it booted
(scripts/vm.sh shell, scripts/vm.sh pair --shell): it becomes that block's stdin, which
vm.sh types into the guest once its shell is up, stopping at the first command that fails.
Not run: a section headed "Long runs" (level 1 to 3; it says why for each entry) and lines
that run the suite itself (scripts/test.sh, .ci/run). Blocks run in the order of the files
given, from the top of the checkout. RESULTS gets TAP, one case per block named by its file,
line and first command, with the output of a failed block as diagnostics; each block's
time is printed as it ends, its output goes to RESULTS with .log for .tap.
"""
import os
import re
import signal
import subprocess
import sys
import time

TIMEOUT = 900
SUITE = re.compile(r'(^|[\s;&|(])(scripts/test\.sh|\.ci/run)\b')
GUEST = re.compile(r'#\s*in (the|both) guests?\b')


def blocks(readme):
    """[(line, text)] of the ```sh blocks outside the sections "Long runs"."""
    out = []
    skip = 0
    with open(readme, encoding='utf-8') as f:
        lines = f.read().split('\n')
    i = 0
    while i < len(lines):
        line = lines[i]
        head = re.match(r'^(#{1,3}) ', line)
        if head and (not skip or len(head.group(1)) <= skip):
            skip = len(head.group(1)) if re.match(r'^#{1,3} Long runs', line) else 0
        m = re.match(r'^(\s*)```(\S*)', line)
        if m:
            indent, lang = len(m.group(1)), m.group(2)
            start = i + 1
            i += 1
            while i < len(lines) and not re.match(r'^\s*```\s*$', lines[i]):
                i += 1
            if lang == 'sh' and not skip:
                body = [x[indent:] for x in lines[start:i]]
                out.append((start, '\n'.join(body) + '\n'))
        i += 1
    return out


def main():
    if len(sys.argv) < 3 or sys.argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        sys.exit(0 if sys.argv[1:2] in (['-h'], ['--help']) else 2)
    results, files = sys.argv[1], sys.argv[2:]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    # Every block's output goes here; the terminal gets one line per block (and the end of
    # the output of one that failed).
    log_path = os.path.splitext(results)[0] + '.log'
    log = open(log_path, 'w')
    runs = []   # (file:line, host block, stdin)
    for readme in files:
        rel = os.path.relpath(os.path.abspath(readme), root)
        for line, text in blocks(readme):
            first = text.lstrip().split('\n', 1)[0]
            if GUEST.match(first):
                if not runs or not runs[-1][0].startswith(rel + ':'):
                    sys.exit(f'{rel}:{line}: guest input with no command before it')
                runs[-1] = (runs[-1][0], runs[-1][1], text)
                continue
            kept = [x for x in text.split('\n') if not SUITE.search(x)]
            runs.append((f'{rel}:{line}', '\n'.join(kept), None))
    tap = []
    for line, script, stdin in runs:
        name = next((x.strip() for x in script.split('\n')
                     if x.strip() and not x.strip().startswith('#')), '(empty)')
        name = re.sub(r'\s+#.*', '', name)
        print(f'==> {line}: {name}{" (with guest input)" if stdin else ""}', flush=True)
        t0 = time.time()
        # A session of its own: on a timeout the whole block (QEMU too) is stopped.
        p = subprocess.Popen(['bash', '-e', '-o', 'pipefail', '-c', script], cwd=root,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, start_new_session=True)
        try:
            out, _ = p.communicate(stdin or '', timeout=TIMEOUT)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, _ = p.communicate()
            rc = f'timeout after {TIMEOUT}s'
        dt = time.time() - t0
        ok = rc == 0
        log.write(f'==> {line}:\n{script}\n--- output (exit {rc}, {dt:.0f}s):\n{out}\n')
        log.flush()
        if not ok:
            print('\n'.join(out.rstrip('\n').split('\n')[-20:]))
        print(f'==> {line}: {"PASS" if ok else "FAIL"} (exit {rc}) in {dt:.0f}s'
              f'{"" if ok else f"; output in {log_path}"}', flush=True)
        tap.append((ok, f'docs/{line}: {name}', out))
    with open(results, 'w') as f:
        for n, (ok, name, out) in enumerate(tap, 1):
            f.write(f'{"ok" if ok else "not ok"} {n} - {name}\n')
            if not ok:
                for x in out.rstrip('\n').split('\n')[-20:]:
                    f.write(f'#   {x}\n')
        f.write(f'1..{len(tap)}\n')
    sys.exit(0 if all(ok for ok, _, _ in tap) else 1)


if __name__ == '__main__':
    main()
