#!/usr/bin/python3
"""The host side of a VM pair's roles: faults and link changes on the running devices.

The guests cannot reach QEMU's monitor. A role names a point of its run on its VM's
second serial port (a line "snic-host POINT", /dev/ttyS1 in the guest); this program
runs, in order, the actions the role's schedule lists for that point, through the QMP
socket of VM a's or VM b's QEMU, and answers on the same port: "done POINT", or
"fail POINT WHY" (an action failed, or the schedule has no such point). The schedule
is fixed, one file per role (scripts/guest/roles/ROLE.host); the guest only says when.
scripts/vm-pair.sh starts it for roles that have one.

  scripts/vm-host.py --vm a:QMP-SOCKET:SERIAL-SOCKET[:SCHEDULE] --vm b:...
                     [--connect-timeout SECONDS]

  --vm               a VM: its name (a or b), QEMU's QMP socket (-qmp unix:PATH,server=on),
                     the socket of its second serial port (-serial unix:PATH,server=on) and
                     its role's schedule (none: every point is answered "fail")
  --connect-timeout  how long to wait for QEMU's sockets to appear (default 120)

A schedule line is "POINT VM ACTION ARGUMENTS" ('#' starts a comment), VM is a, b, ab
(both, a first) or - (no VM), and ACTION one of
  qom-set PROPERTY VALUE   qom-set of the VM's NIC (QOM path /machine/peripheral/nic0;
                           VALUE a number, or else a string)
  set_link on|off          QMP set_link of the VM's NIC (id nic0)
  sleep SECONDS            wait on the host
Each action is logged on standard output. Runs until both serial ports have closed (the
VMs ended) or it is stopped.
"""
import argparse
import json
import os
import selectors
import socket
import sys
import time

NIC_ID = 'nic0'
NIC_PATH = '/machine/peripheral/' + NIC_ID


def log(msg):
    print(f'vm-host: {msg}', flush=True)


def connect_unix(path, deadline):
    """A connection to QEMU's listening socket at path, once it exists."""
    while True:
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            return s
        except OSError as e:
            s.close()
            if time.monotonic() > deadline:
                raise OSError(f'cannot connect to {path}: {e}') from e
            time.sleep(0.2)


class Qmp:
    """One QMP connection, opened at the first command."""

    def __init__(self, path, timeout):
        self.path, self.timeout, self.sock, self.buf = path, timeout, None, b''

    def _line(self):
        while b'\n' not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                raise OSError(f'QMP socket {self.path} closed')
            self.buf += data
        line, self.buf = self.buf.split(b'\n', 1)
        return json.loads(line)

    def _reply(self):
        """The next reply, skipping events."""
        while True:
            msg = self._line()
            if 'return' in msg or 'error' in msg:
                return msg

    def execute(self, cmd, args=None):
        """None, or the error QEMU gave."""
        if self.sock is None:
            self.sock = connect_unix(self.path, time.monotonic() + self.timeout)
            self.sock.settimeout(60)
            self._line()                                    # the greeting
            self.sock.sendall(b'{"execute": "qmp_capabilities"}\n')
            self._reply()
        req = {'execute': cmd}
        if args:
            req['arguments'] = args
        self.sock.sendall(json.dumps(req).encode() + b'\n')
        reply = self._reply()
        return reply['error'].get('desc', str(reply['error'])) if 'error' in reply else None


def read_schedule(path):
    """{point: [(vms, action, args)]}, or exit 2 on a bad line."""
    sched = {}
    if not path:
        return sched
    with open(path, encoding='utf-8') as f:
        for n, raw in enumerate(f, 1):
            words = raw.split('#', 1)[0].split()
            if not words:
                continue
            ok = len(words) >= 3 and words[1] in ('a', 'b', 'ab', '-') and (
                (words[2] == 'qom-set' and len(words) == 5 and words[1] != '-') or
                (words[2] == 'set_link' and len(words) == 4 and words[3] in ('on', 'off') and
                 words[1] != '-') or
                (words[2] == 'sleep' and len(words) == 4 and words[1] == '-'))
            if not ok:
                sys.exit(f'vm-host: {path}:{n}: not "POINT a|b|ab qom-set PROP VALUE", '
                         f'"POINT a|b|ab set_link on|off" nor "POINT - sleep SECONDS": {raw.strip()}')
            sched.setdefault(words[0], []).append((words[1], words[2], words[3:]))
    return sched


def run_action(qmp, vms, action, args):
    """None, or why the action failed."""
    if action == 'sleep':
        time.sleep(float(args[0]))
        return None
    for vm in ('a', 'b'):
        if vm not in vms:
            continue
        if vm not in qmp:
            return f'no VM {vm}'
        if action == 'qom-set':
            value = int(args[1], 0) if args[1].lstrip('-').isdigit() else args[1]
            err = qmp[vm].execute('qom-set', {'path': NIC_PATH, 'property': args[0], 'value': value})
        else:
            err = qmp[vm].execute('set_link', {'name': NIC_ID, 'up': args[0] == 'on'})
        log(f'  {action} {" ".join(args)} on VM {vm}: {err or "ok"}')
        if err:
            return f'{action} {" ".join(args)} on VM {vm}: {err}'
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split('\n\n', 1)[1])
    ap.add_argument('--vm', action='append', required=True,
                    help='NAME:QMP-SOCKET:SERIAL-SOCKET[:SCHEDULE]')
    ap.add_argument('--connect-timeout', type=float, default=120)
    opt = ap.parse_args()

    qmp, scheds, ports = {}, {}, {}
    for spec in opt.vm:
        parts = spec.split(':')
        if len(parts) not in (3, 4) or parts[0] not in ('a', 'b'):
            ap.error(f'--vm {spec}: NAME:QMP-SOCKET:SERIAL-SOCKET[:SCHEDULE], NAME a or b')
        name = parts[0]
        qmp[name] = Qmp(parts[1], opt.connect_timeout)
        scheds[name] = read_schedule(parts[3] if len(parts) == 4 else None)
        ports[name] = parts[2]

    sel = selectors.DefaultSelector()
    deadline = time.monotonic() + opt.connect_timeout
    for name, path in ports.items():
        try:
            s = connect_unix(path, deadline)
        except OSError as e:
            log(f'VM {name}: {e}')
            continue
        sel.register(s, selectors.EVENT_READ, [name, b''])
        log(f'VM {name}: listening on its second serial port ({os.path.basename(path)})')

    while sel.get_map():
        for key, _ in sel.select():
            name, buf = key.data
            data = key.fileobj.recv(4096)
            if not data:
                log(f'VM {name}: its serial port closed')
                sel.unregister(key.fileobj)
                key.fileobj.close()
                continue
            buf += data
            while b'\n' in buf:
                line, buf = buf.split(b'\n', 1)
                words = line.decode(errors='replace').strip().split()
                if len(words) != 2 or words[0] != 'snic-host':
                    if words:
                        log(f'VM {name}: ignoring "{" ".join(words)}"')
                    continue
                point = words[1]
                log(f'VM {name} asks for {point}')
                why = None
                if point not in scheds[name]:
                    why = 'not in the role\'s schedule'
                for vms, action, args in scheds[name].get(point, []):
                    try:
                        why = run_action(qmp, vms, action, args)
                    except (OSError, ValueError) as e:
                        why = f'{action}: {e}'
                    if why:
                        break
                answer = f'done {point}' if not why else f'fail {point} {why}'
                log(f'VM {name}: {answer}')
                key.fileobj.sendall(answer.encode() + b'\n')
            key.data[1] = buf
    return 0


if __name__ == '__main__':
    sys.exit(main())
