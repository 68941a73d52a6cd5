/*
 * libqos machine node x86_64/q35 (QEMU 10.0's libqos has x86_64/pc only).
 *
 * q35-pcihost keeps the 0xcf8/0xcfc configuration mechanism, so its bus is
 * driven as the PC one (QPCIBusPC), but it is a PCI Express root bus and
 * the node says so: pcie-bus-q35 produces "pcie-bus", not "pci-bus". The
 * tests of conventional PCI devices (they hot-plug into the root bus, which
 * q35 refuses) do not come to q35 through it; PCIe devices consume
 * "pcie-bus". As the firmware would, the machine numbers the buses behind
 * PCI bridges (pcie-root-port: first bridge bus 1, ...) when it starts.
 *
 * Copyright (c) 2026 snic authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "../libqtest.h"
#include "qgraph.h"
#include "pci-pc.h"
#include "qemu/module.h"
#include "malloc-pc.h"

typedef struct Q35PCIHost {
    QOSGraphObject obj;
    QPCIBusPC pci;
} Q35PCIHost;

typedef struct QX86Q35Machine {
    QOSGraphObject obj;
    QGuestAllocator alloc;
    Q35PCIHost host;
} QX86Q35Machine;

/* pcie-bus-q35 */

static void *q35_pcie_bus_get_driver(void *obj, const char *interface)
{
    QPCIBusPC *qpci = obj;

    if (!g_strcmp0(interface, "pcie-bus")) {
        return &qpci->bus;
    }
    fprintf(stderr, "%s not present in pcie-bus-q35\n", interface);
    g_assert_not_reached();
}

/* q35-pcihost */

static QOSGraphObject *q35_host_get_device(void *obj, const char *device)
{
    Q35PCIHost *host = obj;

    if (!g_strcmp0(device, "pcie-bus-q35")) {
        return &host->pci.obj;
    }
    fprintf(stderr, "%s not present in q35-pcihost\n", device);
    g_assert_not_reached();
}

/* x86_64/q35 machine */

static void q35_destructor(QOSGraphObject *obj)
{
    QX86Q35Machine *machine = (QX86Q35Machine *)obj;

    alloc_destroy(&machine->alloc);
}

static void *q35_get_driver(void *object, const char *interface)
{
    QX86Q35Machine *machine = object;

    if (!g_strcmp0(interface, "memory")) {
        return &machine->alloc;
    }
    fprintf(stderr, "%s not present in x86_64/q35\n", interface);
    g_assert_not_reached();
}

static QOSGraphObject *q35_get_device(void *obj, const char *device)
{
    QX86Q35Machine *machine = obj;

    if (!g_strcmp0(device, "q35-pcihost")) {
        return &machine->host.obj;
    }
    fprintf(stderr, "%s not present in x86_64/q35\n", device);
    g_assert_not_reached();
}

static void q35_start_hw(QOSGraphObject *obj)
{
    QX86Q35Machine *machine = (QX86Q35Machine *)obj;

    qpci_secondary_buses_init(&machine->host.pci.bus);
}

static void *qos_create_machine_q35(QTestState *qts)
{
    QX86Q35Machine *machine = g_new0(QX86Q35Machine, 1);

    machine->obj.get_device = q35_get_device;
    machine->obj.get_driver = q35_get_driver;
    machine->obj.start_hw = q35_start_hw;
    machine->obj.destructor = q35_destructor;
    machine->obj.free = g_free;
    pc_alloc_init(&machine->alloc, qts, ALLOC_NO_FLAGS);
    machine->host.obj.get_device = q35_host_get_device;
    qpci_init_pc(&machine->host.pci, qts, &machine->alloc);
    machine->host.pci.obj.get_driver = q35_pcie_bus_get_driver;
    return &machine->obj;
}

static void q35_machine_register_nodes(void)
{
    qos_node_create_machine("x86_64/q35", qos_create_machine_q35);
    qos_node_contains("x86_64/q35", "q35-pcihost", NULL);

    qos_node_create_driver("q35-pcihost", NULL);
    qos_node_contains("q35-pcihost", "pcie-bus-q35", NULL);

    qos_node_create_driver("pcie-bus-q35", NULL);
    qos_node_produces("pcie-bus-q35", "pcie-bus");
}

libqos_init(q35_machine_register_nodes);
