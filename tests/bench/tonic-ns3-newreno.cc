/*
 * Tonic (NSDI'20) Fig 3a/3b's hard-coded side: ns-3's own TcpNewReno on
 * the scenario tonic-repro fig3 runs in our simulator, for
 * scripts/repro/tonic.sh (optional: built with g++ and pkg-config when
 * ns-3 is installed, scripts/setup-deps.sh installs libns3-dev).
 *
 *   tonic-ns3-newreno SEGMENTS SEG_BYTES RWND_SEGMENTS DROPS
 *
 * One TCP NewReno flow of SEGMENTS segments of SEG_BYTES from node 0 to
 * node 1 over a 10 Gb/s point-to-point link with 5 us delay each way
 * (RTT 10 us). The receiver's NIC drops the data segments whose index
 * (0 = the first) is in DROPS (comma separated, "-" for none), once each.
 * Classic RFC 6582 recovery (not ns-3's default PRR), no SACK, no
 * timestamps, every segment acknowledged (DelAckCount 1, as our
 * responder's SNIC_ACK_TCP policy), min RTO 200 ms, receive buffer
 * RWND_SEGMENTS segments (our window's cap, SNIC_TX_WINDOW).
 * Prints CSV rows "cwnd,TIME_US,SEGMENTS,BYTES" at every change of cwnd
 * as inflated in fast recovery (ns-3's CongestionWindowInflated: our
 * program's window inflates too; ns-3's CongestionWindow does not) and
 * "tx,TIME_US,INDEX,RTX" for every transmitted data segment (RTX 1: it
 * starts below the highest byte sent before).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
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

int main(int argc, char **argv)
{
    if (argc != 5 || atoi(argv[1]) <= 0 || atoi(argv[2]) <= 0 ||
        atoi(argv[3]) <= 0) {
        fprintf(stderr, "usage: tonic-ns3-newreno SEGMENTS SEG_BYTES "
                "RWND_SEGMENTS DROPS\n");
        return 2;
    }
    uint64_t segments = atoi(argv[1]);
    uint32_t rwnd = atoi(argv[3]);
    seg_bytes = atoi(argv[2]);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(seg_bytes));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize",
                       UintegerValue(rwnd * seg_bytes));
    Config::SetDefault("ns3::TcpSocket::SndBufSize",
                       UintegerValue(segments * seg_bytes));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto",
                       TimeValue(MilliSeconds(200)));

    NodeContainer nodes;
    nodes.Create(2);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
    p2p.SetChannelAttribute("Delay", StringValue("5us"));
    /* the queue never limits a window of RWND_SEGMENTS */
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize",
                 StringValue(std::to_string(rwnd * 2) + "p"));
    NetDeviceContainer dev = p2p.Install(nodes);

    Ptr<DropList> em = CreateObject<DropList>();
    if (std::string(argv[4]) != "-") {
        std::stringstream ss(argv[4]);
        std::string t;
        while (std::getline(ss, t, ',')) {
            em->drops.insert(strtoull(t.c_str(), nullptr, 10));
        }
    }
    dev.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));

    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.0");
    Ipv4InterfaceContainer ifs = addr.Assign(dev);

    uint16_t port = 5001;
    PacketSinkHelper sink("ns3::TcpSocketFactory",
                          InetSocketAddress(Ipv4Address::GetAny(), port));
    sink.Install(nodes.Get(1)).Start(Seconds(0));
    BulkSendHelper src("ns3::TcpSocketFactory",
                       InetSocketAddress(ifs.GetAddress(1), port));
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
