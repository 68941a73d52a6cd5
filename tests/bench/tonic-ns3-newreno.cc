/*
 * Tonic (NSDI'20) Fig 3's hard-coded side: ns-3's own TcpNewReno on the
 * scenarios tonic-repro fig3 and fig3c run in our simulator, for
 * scripts/repro/tonic.sh (optional: built with g++ and pkg-config when
 * ns-3 is installed, scripts/setup-deps.sh installs libns3-dev).
 *
 *   tonic-ns3-newreno fig3 SEGMENTS SEG_BYTES RWND_SEGMENTS DROPS
 *   tonic-ns3-newreno fig3c MS SEG_BYTES RWND_SEGMENTS EPOCH_US
 *
 * Section 6.2.1's topology: the hosts on one switch, here a router node
 * (ns-3's BridgeNetDevice takes no point-to-point ports) with global
 * routing; 10 Gb/s point-to-point links of 2.5 us each (base RTT 10 us);
 * every egress one FIFO of 5,500,000 bytes (the switch's buffer; the
 * FqCoDel queue disc ns-3 installs by default removed), so the router's
 * port to the receiver is a 5.5 MB drop-tail queue.
 * Classic RFC 6582 recovery (not ns-3's default PRR), no SACK, no
 * timestamps, every segment acknowledged (DelAckCount 1, as our
 * responder's SNIC_ACK_TCP policy), min RTO 200 ms, receive buffer
 * RWND_SEGMENTS segments (our window's cap, SNIC_TX_WINDOW; fig3c needs
 * more, see there).
 *
 * fig3: one flow of SEGMENTS segments of SEG_BYTES; the router drops the
 * data segments whose index (0 = the first) is in DROPS (comma separated,
 * "-" for none) as they arrive, once each. Prints CSV rows
 * "cwnd,TIME_US,SEGMENTS,BYTES" at every change of cwnd as inflated in
 * fast recovery (ns-3's CongestionWindowInflated: our program's window
 * inflates too; ns-3's CongestionWindow does not) and
 * "tx,TIME_US,INDEX,RTX" for every transmitted data segment (RTX 1: it
 * starts below the highest byte sent before).
 *
 * fig3c: two senders with 100 BulkSend flows each to one receiver, for MS
 * milliseconds; drops are the queue's own. Prints the rows tonic-repro
 * fig3c prints: "flow,SENDER,FLOW,MBPS,RTX" (payload received over the
 * run; retransmitted segments) and "epoch,TIME_US,SENDER0_MBPS,
 * SENDER1_MBPS,JAIN" every EPOCH_US.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/ppp-header.h"

using namespace ns3;

static uint32_t seg_bytes;
static uint64_t highest_sent;   /* byte after the highest data sent */

/* Drops each listed data segment the first time it arrives */
class DropList : public ErrorModel
{
  public:
    std::set<uint64_t> drops;

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        Ptr<Packet> c = p->Copy();
        PppHeader ppp;
        Ipv4Header ip;
        TcpHeader tcp;

        c->RemoveHeader(ppp);
        c->RemoveHeader(ip);
        if (ip.GetProtocol() != 6) {
            return false;
        }
        c->RemoveHeader(tcp);
        if (c->GetSize() == 0) {
            return false;
        }
        /* data starts at sequence 1 (the SYN took 0) */
        uint64_t idx = (tcp.GetSequenceNumber().GetValue() - 1) / seg_bytes;
        return drops.erase(idx) > 0;
    }
    void DoReset() override
    {
    }
};

static double now_us()
{
    return Simulator::Now().GetNanoSeconds() / 1000.0;
}

static void cwnd_changed(uint32_t, uint32_t bytes)
{
    printf("cwnd,%.3f,%.3f,%u\n", now_us(), bytes / (double)seg_bytes, bytes);
}

static void tx(Ptr<const Packet> p, const TcpHeader &h,
               Ptr<const TcpSocketBase>)
{
    uint64_t seq = h.GetSequenceNumber().GetValue();

    if (p->GetSize() == 0) {
        return;
    }
    printf("tx,%.3f,%lu,%d\n", now_us(), (unsigned long)((seq - 1) / seg_bytes),
           seq < highest_sent);
    if (seq + p->GetSize() > highest_sent) {
        highest_sent = seq + p->GetSize();
    }
}

static void hook(Ptr<Node> n)
{
    Ptr<TcpL4Protocol> tcp = n->GetObject<TcpL4Protocol>();
    ObjectVectorValue socks;

    tcp->GetAttribute("SocketList", socks);
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(socks.Get(0));
    /* with the recovery's inflation, as our program's window */
    s->TraceConnectWithoutContext("CongestionWindowInflated",
                                  MakeCallback(&cwnd_changed));
    s->TraceConnectWithoutContext("Tx", MakeCallback(&tx));
}

/* ---- fig3c: 200 flows ---- */

static const unsigned senders = 2, per_sender = 100;
static std::vector<uint64_t> flow_highest, flow_rtx, epoch_from;
static std::vector<Ptr<PacketSink>> sinks;
static Time epoch;

static void tx_flow(size_t k, Ptr<const Packet> p, const TcpHeader &h,
                    Ptr<const TcpSocketBase>)
{
    uint64_t seq = h.GetSequenceNumber().GetValue();

    if (p->GetSize() == 0) {
        return;
    }
    if (seq < flow_highest[k]) {
        flow_rtx[k]++;
    }
    flow_highest[k] = std::max<uint64_t>(flow_highest[k], seq + p->GetSize());
}

static void hook_flows(NodeContainer src)
{
    for (unsigned i = 0; i < senders; i++) {
        Ptr<TcpL4Protocol> tcp = src.Get(i)->GetObject<TcpL4Protocol>();
        ObjectVectorValue socks;

        tcp->GetAttribute("SocketList", socks);
        /* the applications' sockets, in the order they started */
        for (unsigned k = 0; k < per_sender; k++) {
            Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(socks.Get(k));
            s->TraceConnectWithoutContext("Tx",
                MakeBoundCallback(&tx_flow, (size_t)(i * per_sender + k)));
        }
    }
}

static void sample_epoch()
{
    double mbps[2] = { 0, 0 }, sum = 0, sq = 0;

    for (size_t k = 0; k < sinks.size(); k++) {
        uint64_t rx = sinks[k]->GetTotalRx();
        double r = (rx - epoch_from[k]) * 8.0 / epoch.GetMicroSeconds();

        mbps[k / per_sender] += r;
        sum += r;
        sq += r * r;
        epoch_from[k] = rx;
    }
    printf("epoch,%.1f,%.1f,%.1f,%.4f\n", now_us(), mbps[0], mbps[1],
           sq > 0 ? sum * sum / (sinks.size() * sq) : 0.0);
    Simulator::Schedule(epoch, &sample_epoch);
}

/*
 * n senders, a router and a receiver (the last node), each sender on its
 * own link to the router and the router on one to the receiver
 */
static NodeContainer star(unsigned n, Ipv4Address *rx_addr,
                          NetDeviceContainer *router_in)
{
    NodeContainer nodes;
    nodes.Create(n + 2);
    Ptr<Node> router = nodes.Get(n), rx = nodes.Get(n + 1);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
    p2p.SetChannelAttribute("Delay", StringValue("2.5us"));
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("5500000B"));
    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper addr;
    TrafficControlHelper tch;

    for (unsigned i = 0; i <= n; i++) {
        NetDeviceContainer d = p2p.Install(i < n ? nodes.Get(i) : rx, router);
        std::string net = "10.0." + std::to_string(i + 1) + ".0";

        addr.SetBase(net.c_str(), "255.255.255.0");
        Ipv4InterfaceContainer ifs = addr.Assign(d);
        /* the device's own FIFO only: no queue disc in front of it */
        tch.Uninstall(d);
        if (i < n) {
            router_in->Add(d.Get(1));
        } else {
            *rx_addr = ifs.GetAddress(0);
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    return nodes;
}

static void defaults(uint32_t rwnd, uint64_t snd_buf)
{
    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(seg_bytes));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize",
                       UintegerValue(rwnd * seg_bytes));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(snd_buf));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto",
                       TimeValue(MilliSeconds(200)));
}

static int fig3(uint64_t segments, uint32_t rwnd, const char *drops)
{
    defaults(rwnd, segments * seg_bytes);
    Ipv4Address rx_addr;
    NetDeviceContainer router_in;
    NodeContainer nodes = star(1, &rx_addr, &router_in);

    Ptr<DropList> em = CreateObject<DropList>();
    if (std::string(drops) != "-") {
        std::stringstream ss(drops);
        std::string t;
        while (std::getline(ss, t, ',')) {
            em->drops.insert(strtoull(t.c_str(), nullptr, 10));
        }
    }
    router_in.Get(0)->SetAttribute("ReceiveErrorModel", PointerValue(em));

    uint16_t port = 5001;
    PacketSinkHelper sink("ns3::TcpSocketFactory",
                          InetSocketAddress(Ipv4Address::GetAny(), port));
    sink.Install(nodes.Get(2)).Start(Seconds(0));
    BulkSendHelper src("ns3::TcpSocketFactory",
                       InetSocketAddress(rx_addr, port));
    src.SetAttribute("MaxBytes", UintegerValue(segments * seg_bytes));
    src.SetAttribute("SendSize", UintegerValue(seg_bytes));
    src.Install(nodes.Get(0)).Start(Seconds(0));
    /* the sender's socket exists once the application started */
    Simulator::Schedule(NanoSeconds(1), &hook, nodes.Get(0));
    printf("kind,time_us,value,extra\n");
    Simulator::Stop(Seconds(10));
    Simulator::Run();
    Simulator::Destroy();
    return 0;
}

static int fig3c(uint64_t ms, uint32_t rwnd, uint64_t epoch_us)
{
    const unsigned flows = senders * per_sender;

    /*
     * The send buffer (1 MiB; the application refills it) below the
     * receive window (tonic.sh: 4096 segments): ns-3 3.37 crashes when a
     * sender's bytes in flight equal the peer's window exactly
     * (TcpTxBuffer::NextSeg offers a zero-length segment, fixed in
     * ns-3.41), which 200 flows on a 128-segment window reach in their
     * first losses; a window above the send buffer is never reached.
     */
    defaults(rwnd, 1u << 20);
    Ipv4Address rx_addr;
    NetDeviceContainer router_in;
    NodeContainer nodes = star(senders, &rx_addr, &router_in);
    NodeContainer src_nodes;

    flow_highest.assign(flows, 0);
    flow_rtx.assign(flows, 0);
    epoch_from.assign(flows, 0);
    for (unsigned k = 0; k < flows; k++) {
        uint16_t port = 5001 + k;
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer a = sink.Install(nodes.Get(senders + 1));
        a.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(a.Get(0)));
        BulkSendHelper src("ns3::TcpSocketFactory",
                           InetSocketAddress(rx_addr, port));
        src.SetAttribute("MaxBytes", UintegerValue(0));     /* unlimited */
        src.SetAttribute("SendSize", UintegerValue(seg_bytes));
        src.Install(nodes.Get(k / per_sender)).Start(Seconds(0));
    }
    for (unsigned i = 0; i < senders; i++) {
        src_nodes.Add(nodes.Get(i));
    }
    Simulator::Schedule(NanoSeconds(1), &hook_flows, src_nodes);
    epoch = MicroSeconds(epoch_us);
    Simulator::Schedule(epoch, &sample_epoch);
    printf("kind,a,b,c,d\n");
    Simulator::Stop(MilliSeconds(ms));
    Simulator::Run();
    for (unsigned k = 0; k < flows; k++) {
        printf("flow,%u,%u,%.3f,%lu\n", k / per_sender, k % per_sender,
               sinks[k]->GetTotalRx() * 8.0 / (ms * 1000.0),
               (unsigned long)flow_rtx[k]);
    }
    Simulator::Destroy();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 6 && atoi(argv[2]) > 0 && atoi(argv[3]) > 0 &&
        atoi(argv[4]) > 0) {
        seg_bytes = atoi(argv[3]);
        if (std::string(argv[1]) == "fig3") {
            return fig3(atoi(argv[2]), atoi(argv[4]), argv[5]);
        }
        if (std::string(argv[1]) == "fig3c" && atoi(argv[5]) > 0) {
            return fig3c(atoi(argv[2]), atoi(argv[4]), atoi(argv[5]));
        }
    }
    fprintf(stderr, "usage: tonic-ns3-newreno fig3 SEGMENTS SEG_BYTES "
            "RWND_SEGMENTS DROPS | fig3c MS SEG_BYTES RWND_SEGMENTS "
            "EPOCH_US\n");
    return 2;
}
