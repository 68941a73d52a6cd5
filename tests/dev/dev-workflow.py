#!/usr/bin/python3
"""The driver developer's loop, in one boot of an interactive guest driven at its console.

    tests/dev/dev-workflow.py RESULTS

Boots `scripts/vm.sh shell --gdb=PORT --no-symbols --share TMP` with a copy of the driver
source in TMP (built once while the guest boots), then, as a person at the console would:
sees the shell's prompt; runs ibv_devinfo (snic_0's port must be ACTIVE); attaches gdb to
QEMU's gdbstub without symbols, reads the instruction pointer and detaches, and checks that
the guest runs on; changes the string of the probe's dev_info() in the copy, rebuilds it with
`scripts/vm.sh build driver --src --out`, runs snic-reload on it in the guest and finds the
new string in dmesg, timing edit to reloaded module; types exit and expects a clean power-off.
Edits nothing in the checkout. RESULTS gets TAP; the console is in build/vm-logs/.
"""
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Console:
    """vm.sh's output, collected by a thread; commands written to its stdin."""

    def __init__(self, argv, log):
        self.buf = ''
        self.lock = threading.Lock()
        self.log = open(log, 'w')
        self.p = subprocess.Popen(argv, cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, start_new_session=True)
        threading.Thread(target=self._read, daemon=True).start()
        self.marks = 0

    def _read(self):
        # Raw reads: a prompt ends in no newline.
        fd = self.p.stdout.fileno()
        while True:
            data = os.read(fd, 4096)
            if not data:
                return
            text = data.decode(errors='replace')
            with self.lock:
                self.buf += text
            self.log.write(text)
            self.log.flush()

    def wait_for(self, pattern, timeout, start=0):
        """The first match of PATTERN in the output after offset START, or None."""
        end = time.time() + timeout
        while time.time() < end:
            with self.lock:
                m = re.search(pattern, self.buf[start:], re.M)
            if m:
                return m
            if self.p.poll() is not None:
                time.sleep(0.5)     # let the reader take the last lines
                with self.lock:
                    return re.search(pattern, self.buf[start:], re.M)
            time.sleep(0.2)
        return None

    def type(self, line):
        self.p.stdin.write((line + '\n').encode())
        self.p.stdin.flush()

    def run(self, cmd, timeout):
        """Type CMD; return its output (up to a marker it echoes), or None."""
        self.marks += 1
        start = len(self.buf)
        # The echo of the typed line shows $((N*1)), the output N: only the output matches.
        self.type(f'{cmd}; echo "@@mark$(({self.marks}*1))@@"')
        m = self.wait_for(rf'^@@mark{self.marks}@@', timeout, start)
        return self.buf[start:start + m.start()] if m else None


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        sys.exit(0 if sys.argv[1:2] in (['-h'], ['--help']) else 2)
    results = sys.argv[1]
    tap = []

    def case(ok, name, detail=''):
        tap.append((bool(ok), name, detail))
        print(f'{"ok" if ok else "not ok"} - {name}', flush=True)
        return ok

    os.makedirs(os.path.join(REPO, 'build', 'vm-logs'), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix='dev-workflow-', dir=os.path.join(REPO, 'build'))
    src, out = os.path.join(tmp, 'src'), os.path.join(tmp, 'out')
    shutil.copytree(os.path.join(REPO, 'guest-driver', 'kernel'), src)
    build = ['scripts/vm.sh', 'build', 'driver', '--src', src, '--out', out]
    # The copy's first build (all files) overlaps the boot; the timed one is incremental.
    prebuild = subprocess.Popen(build, cwd=REPO, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
    port = free_port()
    vm = Console(['scripts/vm.sh', 'shell', '--gdb=%d' % port, '--no-symbols', '--share', tmp,
                  '--name', 'dev-workflow', '--timeout', '900'],
                 os.path.join(REPO, 'build', 'vm-logs', 'dev-workflow.out'))
    try:
        t_boot = time.time()
        prompt = vm.wait_for(r'root@snic:/mnt/snic# ', 300)
        case(prompt, 'vm.sh shell: the guest boots to a root shell prompt in /mnt/snic',
             f'{time.time() - t_boot:.0f}s' if prompt else vm.buf[-2000:])
        text = vm.run('ibv_devinfo -d snic_0', 60)
        case(text is not None and re.search(r'state:\s+PORT_ACTIVE', text),
             'ibv_devinfo in the guest: snic_0 port 1 is ACTIVE', text or vm.buf[-2000:])

        g = subprocess.run(['gdb', '-q', '-batch', '-nx', '-ex', f'target remote 127.0.0.1:{port}',
                            '-ex', 'info registers rip', '-ex', 'detach'],
                           capture_output=True, text=True, timeout=120)
        gout = g.stdout + g.stderr
        case(g.returncode == 0 and re.search(r'^rip\s+0x[0-9a-f]+', gout, re.M) and
             re.search(r'[Dd]etach', gout),
             'gdb attaches to the gdbstub without symbols, reads rip and detaches', gout)
        text = vm.run('echo alive', 60)
        case(text is not None and 'alive' in text, 'the guest runs on after gdb detached',
             vm.buf[-2000:])

        pb = prebuild.communicate()[0]
        if prebuild.returncode != 0:
            case(False, 'the copy of the driver builds', pb)
        else:
            nonce = f'edit-{os.getpid()}'
            main_c = os.path.join(src, 'snic_main.c')
            t0 = time.time()
            code = open(main_c).read()
            anchor = 'dev_info(&pdev->dev, "'
            if anchor not in code:
                case(False, 'snic_main.c has a dev_info(&pdev->dev, "...") to change')
            else:
                with open(main_c, 'w') as f:
                    f.write(code.replace(anchor, f'{anchor}{nonce}: ', 1))
                b = subprocess.run(build, cwd=REPO, capture_output=True, text=True)
                t_built = time.time()
                text = vm.run(f'snic-reload --ko /mnt/user/out/snic.ko --no-provider && '
                              f'dmesg | grep "{nonce}"', 120) if b.returncode == 0 else None
                dt = time.time() - t0
                ok = text is not None and re.search(rf'{nonce}: snic_0', text)
                case(ok, 'a string changed in a copy of snic_main.c, rebuilt by vm.sh build and '
                     f'reloaded by snic-reload, is in the guest\'s dmesg (edit to reloaded module '
                     f'{dt:.1f}s)', (b.stdout + b.stderr) + (text or vm.buf[-2000:]))
                if ok:
                    print(f'dev-workflow: edit-to-reload {dt:.1f}s (edit of snic_main.c, '
                          f'{" ".join(build)}: {t_built - t0:.1f}s, snic-reload in the guest: '
                          f'{time.time() - t_built:.1f}s)', flush=True)
        vm.type('exit')
        vm.p.stdin.close()
        rc = vm.p.wait(timeout=120)
        case(rc == 0 and vm.wait_for(r'^SNIC-ROLE-RESULT role=shell rc=0', 5),
             'exit powers the guest off cleanly (vm.sh exit 0)', f'vm.sh exit {rc}')
    except (subprocess.TimeoutExpired, BrokenPipeError, OSError) as e:
        case(False, f'the session ended early: {e}', vm.buf[-2000:])
    finally:
        if vm.p.poll() is None:
            os.killpg(vm.p.pid, 9)
        shutil.rmtree(tmp, ignore_errors=True)
    with open(results, 'w') as f:
        for n, (ok, name, detail) in enumerate(tap, 1):
            f.write(f'{"ok" if ok else "not ok"} {n} - dev/{name}\n')
            if not ok:
                for x in str(detail).rstrip('\n').split('\n')[-20:]:
                    f.write(f'#   {x}\n')
        f.write(f'1..{len(tap)}\n')
    sys.exit(0 if all(ok for ok, _, _ in tap) else 1)


if __name__ == '__main__':
    main()
