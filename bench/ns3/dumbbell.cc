// bench/ns3/dumbbell.cc — the `cclab bench` dctcp10 workload in ns-3 (3.37, Debian's
// libns3-dev), written for cclab's side-by-side race (bench/race.sh).
//
// What it mirrors (crates/cclab/src/bench.rs, scenario_dctcp10; bench/dctcp10.toml):
//   10 senders s_i --(10 Gbit/s, 10 us)--> sw0 --bottleneck (10 Gbit/s, 10 us)--> sw1
//   --(10 Gbit/s, 10 us)--> r_i; one DCTCP flow s_i -> r_i from t = 0 for 1 s.
//   Bottleneck queue: ECN step marking at K = 65 packets on the instantaneous queue,
//   1000 packets of buffer (RED with MinTh = MaxTh = 65, QW = 1, UseEcn, no hard drop,
//   as ns-3's own dctcp-example); every other port a 10,000-packet FIFO.
//   TCP: MSS 1448 (1500-byte packets with timestamps), SACK, initial window 10,
//   delayed ACK every 2 segments or 40 ms, min RTO 200 ms, buffers 4 MiB / 6 MiB.
//
// Framing: cclab serialises each IP packet with 38 bytes of Ethernet framing (1538 B per
// 1500-byte packet); ns-3's point-to-point device adds a 2-byte PPP header. The link rate
// is scaled by 1502/1538 so a full packet takes the same 1.2304 us on the wire in both.
// The device queue is one packet, so the queue disc is the queue (as in ns-3's AQM
// examples).
//
// Prints one line of `key=value` pairs: wall time of Simulator::Run, packet-hops (packets
// starting transmission on any device), events, goodput per flow and in all, the
// bottleneck's time-average backlog (packets), marks and drops.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cstdio>
#include <vector>

using namespace ns3;

static uint64_t g_hops = 0;
static double g_backlog_area = 0; // packet-seconds
static double g_last_change = 0;
static uint32_t g_last_len = 0;

static void
OnPhyTxBegin(Ptr<const Packet>)
{
    g_hops++;
}

static void
OnQueueLen(uint32_t, uint32_t now_len)
{
    double t = Simulator::Now().GetSeconds();
    g_backlog_area += g_last_len * (t - g_last_change);
    g_last_change = t;
    g_last_len = now_len;
}

int
main(int argc, char* argv[])
{
    uint32_t senders = 10;
    double duration = 1.0;
    CommandLine cmd;
    cmd.AddValue("senders", "sender/receiver pairs", senders);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(false));

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpDctcp"));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(40)));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(6 << 20));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));

    Config::SetDefault("ns3::RedQueueDisc::UseEcn", BooleanValue(true));
    Config::SetDefault("ns3::RedQueueDisc::UseHardDrop", BooleanValue(false));
    Config::SetDefault("ns3::RedQueueDisc::MeanPktSize", UintegerValue(1500));
    Config::SetDefault("ns3::RedQueueDisc::QW", DoubleValue(1));
    Config::SetDefault("ns3::RedQueueDisc::MinTh", DoubleValue(65));
    Config::SetDefault("ns3::RedQueueDisc::MaxTh", DoubleValue(65));
    Config::SetDefault("ns3::RedQueueDisc::MaxSize", QueueSizeValue(QueueSize("1000p")));

    // 10 Gbit/s for a 1538-byte frame = this rate for a 1502-byte PPP frame.
    const uint64_t rate = 10000000000ULL * 1502 / 1538;
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(rate)));
    p2p.SetChannelAttribute("Delay", TimeValue(MicroSeconds(10)));
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", QueueSizeValue(QueueSize("1p")));

    NodeContainer s, r, sw;
    s.Create(senders);
    r.Create(senders);
    sw.Create(2);
    NetDeviceContainer bottleneck = p2p.Install(sw.Get(0), sw.Get(1));
    std::vector<NetDeviceContainer> up, down;
    for (uint32_t i = 0; i < senders; i++)
    {
        up.push_back(p2p.Install(s.Get(i), sw.Get(0)));
        down.push_back(p2p.Install(sw.Get(1), r.Get(i)));
    }

    InternetStackHelper stack;
    stack.InstallAll();

    TrafficControlHelper red;
    red.SetRootQueueDisc("ns3::RedQueueDisc",
                         "LinkBandwidth",
                         DataRateValue(DataRate(rate)),
                         "LinkDelay",
                         TimeValue(MicroSeconds(10)));
    TrafficControlHelper fifo;
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(QueueSize("10000p")));
    QueueDiscContainer bq = red.Install(bottleneck.Get(0));
    fifo.Install(bottleneck.Get(1));
    for (uint32_t i = 0; i < senders; i++)
    {
        fifo.Install(up[i]);
        fifo.Install(down[i]);
    }

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.0");
    addr.Assign(bottleneck);
    std::vector<Ipv4InterfaceContainer> rif;
    for (uint32_t i = 0; i < senders; i++)
    {
        addr.NewNetwork();
        addr.Assign(up[i]);
        addr.NewNetwork();
        rif.push_back(addr.Assign(down[i]));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    std::vector<Ptr<PacketSink>> sinks;
    for (uint32_t i = 0; i < senders; i++)
    {
        uint16_t port = 5201;
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sink.Install(r.Get(i));
        sa.Start(Seconds(0));
        sinks.push_back(sa.Get(0)->GetObject<PacketSink>());
        BulkSendHelper bulk("ns3::TcpSocketFactory",
                            InetSocketAddress(rif[i].GetAddress(1), port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(1448 * 16));
        ApplicationContainer ca = bulk.Install(s.Get(i));
        ca.Start(Seconds(0));
        ca.Stop(Seconds(duration));
    }

    Config::ConnectWithoutContext(
        "/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/PhyTxBegin",
        MakeCallback(&OnPhyTxBegin));
    bq.Get(0)->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQueueLen));

    Simulator::Stop(Seconds(duration));
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    OnQueueLen(0, g_last_len);

    uint64_t total = 0;
    std::printf("wall_s=%.6f packet_hops=%llu events=%llu", wall,
                (unsigned long long)g_hops,
                (unsigned long long)Simulator::GetEventCount());
    for (uint32_t i = 0; i < senders; i++)
    {
        uint64_t b = sinks[i]->GetTotalRx();
        total += b;
        std::printf(" goodput_mbps_%u=%.3f", i, b * 8.0 / duration / 1e6);
    }
    QueueDisc::Stats st = bq.Get(0)->GetStats();
    uint64_t marks = 0;
    for (auto& m : st.nMarkedPackets)
    {
        marks += m.second;
    }
    std::printf(" goodput_gbps=%.4f mean_queue_pkts=%.2f marks=%llu drops=%llu\n",
                total * 8.0 / duration / 1e9, g_backlog_area / duration,
                (unsigned long long)marks,
                (unsigned long long)st.nTotalDroppedPackets);
    Simulator::Destroy();
    return 0;
}
