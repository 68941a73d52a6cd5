# gdb helpers for debugging snic.ko in a guest of scripts/vm.sh --gdb (load with
# `gdb -x scripts/snic-gdb.py`; needs the guest kernel's vmlinux with symbols, which
# `scripts/vm.sh shell --gdb` fetches).
#
#   snic-symbols [KO]   load the symbols of the snic module the guest has loaded (default KO:
#                       build/guest-driver/snic.ko) at the addresses the kernel gave its
#                       sections. Works anywhere once the module is loaded, and already in
#                       do_init_module(), before its init function and probe run.
#
# Breaking in the probe (docs/driver-development.md, "Long runs"): boot with --no-driver, then
#   (gdb) break do_init_module if $_streq(mod->name, "snic")
#   (gdb) continue                   # in the guest: modprobe snic
#   (gdb) snic-symbols
#   (gdb) break snic_probe
#   (gdb) continue
import os

import gdb

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _module(name):
    """The kernel's struct module of NAME: do_init_module's argument, else from the list."""
    try:
        mod = gdb.selected_frame().read_var('mod')
        if mod['name'].string() == name:
            return mod
    except (gdb.error, ValueError, RuntimeError):
        pass
    head = gdb.parse_and_eval('&modules')
    node = head['next']
    mtype = gdb.lookup_type('struct module').pointer()
    offset = int(gdb.parse_and_eval('&((struct module *)0)->list'))
    while node != head:
        mod = gdb.Value(int(node) - offset).cast(mtype).dereference()
        if mod['name'].string() == name:
            return mod
        node = node['next']
    raise gdb.GdbError(f'no module {name} is loaded in the guest (modprobe {name})')


class SnicSymbols(gdb.Command):
    """Load snic.ko's symbols at its load address: snic-symbols [KO]."""

    def __init__(self):
        super().__init__('snic-symbols', gdb.COMMAND_FILES)

    def invoke(self, arg, from_tty):
        ko = arg.strip() or os.path.join(REPO, 'build/guest-driver/snic.ko')
        if not os.path.exists(ko):
            raise gdb.GdbError(f'{ko} not found')
        mod = _module('snic')
        attrs = mod['sect_attrs']
        sections = {}
        for i in range(int(attrs['nsections'])):
            a = attrs['attrs'][i]
            sections[a['battr']['attr']['name'].string()] = int(a['address'])
        if '.text' not in sections:
            raise gdb.GdbError('the module has no .text section address')
        cmd = f'add-symbol-file {ko} {sections.pop(".text"):#x}'
        cmd += ''.join(f' -s {n} {v:#x}' for n, v in sorted(sections.items())
                       # (the symbol and string tables are the kernel's copies)
                       if v and not n.startswith('.note') and n not in ('.symtab', '.strtab'))
        gdb.execute(cmd, from_tty=False, to_string=False)


SnicSymbols()
