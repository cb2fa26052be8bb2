// dctcp10.cc — cclab's `dctcp10` benchmark case (crates/cclab/src/bench.rs,
// scenario_dctcp10; the same scenario as bench/dctcp10.toml) written for ns-3 3.37 as
// Debian packages it (libns3-dev), so that bench/race.sh can time both simulators on
// equal work and set their results side by side.
//
//   s0..s9 --10G, 10us-- sw0 ==bottleneck 10G, 10us, ECN at K = 65 pkts== sw1 --10G, 10us-- r0..r9
//
// Ten DCTCP bulk flows s_i -> r_i, all starting at t = 0, for 1 s of simulated time.
// How each cclab choice is mirrored (bench/ns3/README.md has the reasons):
// - Links: point-to-point, 10 Gbit/s, 10 us, with an inter-frame gap of 36 byte times
//   (28.8 ns), so that a packet holds the link for (IP length + 2 B PPP + 36) x 8 / 10G =
//   cclab's (IP length + 38 B Ethernet framing) x 8 / 10G. (ns-3 delivers it 28.8 ns
//   sooner than cclab: the gap follows the packet, it is not part of it.)
// - Queues: every port's waiting room is a queue disc with a 1-packet device queue behind
//   it: RED as DCTCP's step marker (MinTh = MaxTh = 65, QW = 1, Gentle off, ECN, no hard
//   drop; 1000 pkts) at sw0 -> sw1; FIFO 10000 pkts on host NICs; FIFO 100000 pkts on the
//   other switch ports. The time resolution is 1 ps, as cclab's clock.
// - TCP: ns3::TcpDctcp on every node (the receiver's ECE echo is DCTCP's), MSS 1448 with
//   timestamps (1500 B IP packets), IW 10, delayed ACK every 2nd segment / 40 ms, min RTO
//   200 ms, SACK, PRR, 4 MiB send / 6 MiB receive buffers, no pacing.
// - Counted as cclab counts: packet-hops = transmissions started on any link
//   (PhyTxBegin); goodput = bytes delivered to each sink / 1 s; the bottleneck's mean
//   queue = time-average of the packets waiting (queue disc + device queue, not the one
//   on the wire); marks and drops from the queue discs' statistics.
//
// With --incast=N it runs bench/incast32.toml's case instead (N = 32 there): the star,
// N DCTCP bulk flows s_i -> recv through one switch,
//
//   s0..s{N-1} --10G, 10us-- sw0 ==bottleneck 10G, 10us, ECN at K = 65 pkts== recv
//
// every port but the bottleneck a FIFO of 10000 pkts (cclab's star: `other_queue`), one
// sink per flow on the receiver (ports 5201 + i).
//
// Build: g++ -O2 -std=c++17 dctcp10.cc -I/usr/include -lns3-... (see bench/race.sh).
// Run:   ./dctcp10 [--duration=1s] [--incast=N] [--RngRun=1]   prints one JSON object.
//        --cwndTrace, --explain, --linuxFloor, --linuxSsthresh, --linuxCnt, --linuxAlpha and
//        --linuxPrr (=1) only explain results (bench/ns3/README.md); race.sh never sets
//        them. --delAckCount=1 (an ACK for every segment) is race.sh's dctcp10-ackall case,
//        the work htsim does.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/version-defines.h"

#include <chrono>
#include <algorithm>
#include <cstdio>

using namespace ns3;

static const uint64_t K = 65;    // marking threshold, packets
static uint64_t g_hops = 0;      // packets put on any link
static uint64_t g_bnTx = 0, g_bnRevTx = 0; // ... on sw0 -> sw1 and on sw1 -> sw0

static void
OnTxBegin(Ptr<const Packet>)
{
    g_hops++;
}

static void
Count(uint64_t* n, Ptr<const Packet>)
{
    (*n)++;
}

// Time-average of what waits at the bottleneck port: ∫ packets dt and ∫ IP bytes dt.
struct Backlog
{
    int64_t pkts = 0, bytes = 0;   // queue disc + device queue, now
    int64_t last = 0;              // ps
    double pktTime = 0, byteTime = 0;
    std::vector<double> hist;      // --explain: time (ps) with n packets waiting

    void Advance()
    {
        int64_t now = Simulator::Now().GetPicoSeconds();
        if (!hist.empty())
        {
            hist[std::min<int64_t>(pkts, int64_t(hist.size()) - 1)] += double(now - last);
        }
        pktTime += double(pkts) * double(now - last);
        byteTime += double(bytes) * double(now - last);
        last = now;
    }
};

static Backlog g_q;

// Explanation-only flags (bench/ns3/README.md): each gives ns-3's DCTCP sender one of
// Linux's behaviours, to show what the difference is worth; race.sh never sets them.
// --linuxFloor: Linux's floor of two segments on the reduced window (`dctcp_ssthresh`:
// max(cwnd - cwnd * alpha / 2, 2)); ns-3 3.37's TcpDctcp::GetSsThresh has none, so a
// window can fall below one segment.
// --linuxSsthresh: all of Linux's `dctcp_ssthresh` instead, in whole segments with alpha
// in 1/1024 and the decrement rounded down, max(cwnd - (cwnd * alpha >> 11), 2), where ns-3
// takes (1 - alpha / 2) * cwnd in bytes (alpha is private to TcpDctcp: it is recovered
// from that value, to within 1/1024 at these windows).
// --linuxCnt: the additive increase's counter set to 0 when a reduction starts, as Linux's
// `tcp_init_cwnd_reduction` sets `snd_cwnd_cnt`; ns-3's TcpLinuxReno never resets its
// m_cWndCnt, so the ACKs counted towards the next segment before a cut still count after
// it (with a window a cut smaller, often a whole segment at once on the first ACK in CA).
// --linuxAlpha: alpha updated before the reduction an ACK triggers, as Linux's `tcp_ack`
// runs `in_ack_event` (`dctcp_update_alpha`) before the congestion state machine; ns-3
// enters CWR (GetSsThresh) first and counts the ACK in PktsAcked afterwards. alpha is kept
// here as ns-3's TcpDctcp keeps it (bytes, g = 1/16).
static bool g_linuxFloor = false;
static bool g_linuxSsthresh = false;
static bool g_linuxCnt = false;
static bool g_linuxAlpha = false;

class TcpDctcpLinux : public TcpDctcp
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpDctcpLinux")
                                .SetParent<TcpDctcp>()
                                .SetGroupName("Internet")
                                .AddConstructor<TcpDctcpLinux>();
        return tid;
    }

    TcpDctcpLinux() = default;

    TcpDctcpLinux(const TcpDctcpLinux& sock)
        : TcpDctcp(sock)
    {
    }

    // Linux's `tcp_cong_avoid_ai` with its own counter (--linuxCnt).
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        if (!g_linuxCnt)
        {
            return TcpDctcp::IncreaseWindow(tcb, segmentsAcked);
        }
        if (tcb->m_cWnd < tcb->m_ssThresh)
        {
            segmentsAcked = SlowStart(tcb, segmentsAcked); // what is left goes to CA
            if (segmentsAcked == 0)
            {
                return;
            }
        }
        uint32_t w = std::max<uint32_t>(tcb->m_cWnd / tcb->m_segmentSize, 1);
        if (m_cnt >= w)
        {
            m_cnt = 0;
            tcb->m_cWnd += tcb->m_segmentSize;
        }
        m_cnt += segmentsAcked;
        if (m_cnt >= w)
        {
            uint32_t delta = m_cnt / w;
            m_cnt -= delta * w;
            tcb->m_cWnd += delta * tcb->m_segmentSize;
        }
    }

    // A window's acked and ECE-acked bytes (--linuxAlpha): alpha is updated once the ACKs
    // pass m_next, the next sequence number to send when the window began.
    void Account(Ptr<const TcpSocketState> tcb, uint32_t bytes, bool ece, SequenceNumber32 ack)
    {
        m_tot += bytes;
        if (ece)
        {
            m_ecn += bytes;
        }
        if (!m_nextSet)
        {
            m_next = tcb->m_nextTxSequence;
            m_nextSet = true;
        }
        if (ack >= m_next)
        {
            double f = m_tot ? double(m_ecn) / double(m_tot) : 0.0;
            m_a = (1.0 - 1.0 / 16) * m_a + f / 16;
            m_tot = m_ecn = 0;
            m_next = tcb->m_nextTxSequence;
        }
    }

    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override
    {
        if (!g_linuxAlpha)
        {
            return TcpDctcp::PktsAcked(tcb, segmentsAcked, rtt);
        }
        if (m_pre)
        {
            m_pre = false;
            return;
        }
        Account(tcb, segmentsAcked * tcb->m_segmentSize,
                tcb->m_ecnState == TcpSocketState::ECN_ECE_RCVD, tcb->m_lastAckedSeq);
    }

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        m_cnt = 0; // tcp_init_cwnd_reduction: snd_cwnd_cnt = 0
        uint32_t ns3 = TcpDctcp::GetSsThresh(tcb, bytesInFlight);
        if (g_linuxAlpha)
        {
            // The ACK that enters CWR (it carries ECE): counted now, its window's alpha
            // updated if it ends one; PktsAcked skips it.
            uint32_t bytes = tcb->m_lastAckedSackedBytes;
            Account(tcb, bytes, true, tcb->m_lastAckedSeq + bytes);
            m_pre = true;
            ns3 = uint32_t((1 - m_a / 2.0) * tcb->m_cWnd);
        }
        if (!g_linuxSsthresh && !g_linuxFloor)
        {
            return ns3;
        }
        uint32_t mss = tcb->m_segmentSize;
        if (!g_linuxSsthresh)
        {
            return std::max(ns3, 2 * mss);
        }
        // alpha: our own under --linuxAlpha, else TcpDctcp's, recovered from its value.
        double cwndBytes = tcb->m_cWnd.Get();
        double alpha = g_linuxAlpha     ? m_a
                       : cwndBytes > 0 ? 2.0 * (1.0 - ns3 / cwndBytes)
                                       : 1.0;
        uint64_t a = uint64_t(std::min(std::max(alpha, 0.0), 1.0) * 1024.0 + 0.5);
        uint64_t cwnd = tcb->m_cWnd.Get() / mss;
        uint64_t ssthresh = std::max<uint64_t>(cwnd - ((cwnd * a) >> 11), 2);
        return uint32_t(ssthresh * mss);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpDctcpLinux>(this);
    }

  private:
    uint32_t m_cnt = 0;                  // --linuxCnt: snd_cwnd_cnt
    double m_a = 1.0;                    // --linuxAlpha: alpha, its window's bytes,
    uint64_t m_tot = 0, m_ecn = 0;       // where the window ends, and whether the
    SequenceNumber32 m_next{0};          // current ACK was counted already (by
    bool m_nextSet = false, m_pre = false; // GetSsThresh, before PktsAcked)
};

// --linuxPrr: Linux's tcp_cwnd_reduction (PRR, RFC 6937) in whole segments: prior_cwnd is
// the window when the reduction starts, sndcnt = ceil(ssthresh * prr_delivered /
// prior_cwnd) - prr_out while more than ssthresh is in flight, else min(ssthresh -
// in_flight, newly delivered); at least one segment while prr_out is 0; cwnd = in_flight +
// sndcnt. ns-3's TcpPrrRecovery counts bytes (a segment is sent only once a whole one
// fits) and divides by the data outstanding at entry. Explanation only, as the flags above.
class TcpLinuxPrr : public TcpRecoveryOps
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpLinuxPrr")
                                .SetParent<TcpRecoveryOps>()
                                .SetGroupName("Internet")
                                .AddConstructor<TcpLinuxPrr>();
        return tid;
    }

    TcpLinuxPrr() = default;

    TcpLinuxPrr(const TcpLinuxPrr& r)
        : TcpRecoveryOps(r)
    {
    }

    std::string GetName() const override
    {
        return "TcpLinuxPrr";
    }

    // Only `tcp_init_cwnd_reduction`'s part: ns-3 runs DoRecovery for the ACK that enters
    // CWR in ProcessAck as well, so calling it here too (as TcpPrrRecovery does) would count
    // that ACK's delivered data twice; Linux counts it once (`tcp_cwnd_reduction`).
    void EnterRecovery(Ptr<TcpSocketState> tcb, uint32_t, uint32_t, uint32_t) override
    {
        m_mss = tcb->m_segmentSize;
        m_priorCwnd = tcb->m_cWnd.Get() / m_mss;
        m_delivered = 0;
        m_out = 0;
    }

    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes) override
    {
        uint32_t mss = tcb->m_segmentSize;
        uint32_t newly = (deliveredBytes + mss - 1) / mss;
        if (newly == 0 || m_priorCwnd == 0)
        {
            return;
        }
        m_delivered += newly;
        int64_t inFlight = (tcb->m_bytesInFlight.Get() + mss - 1) / mss;
        int64_t ssthresh = tcb->m_ssThresh.Get() / mss;
        int64_t delta = ssthresh - inFlight;
        int64_t sndcnt;
        if (delta < 0)
        {
            sndcnt = int64_t((uint64_t(ssthresh) * m_delivered + m_priorCwnd - 1) / m_priorCwnd) -
                     int64_t(m_out);
        }
        else
        {
            sndcnt = std::min<int64_t>(delta, newly);
        }
        sndcnt = std::max<int64_t>(sndcnt, m_out ? 0 : 1);
        tcb->m_cWnd = uint32_t((inFlight + sndcnt) * mss);
        tcb->m_cWndInfl = tcb->m_cWnd;
    }

    void ExitRecovery(Ptr<TcpSocketState> tcb) override
    {
        tcb->m_cWndInfl = tcb->m_cWnd;
    }

    void UpdateBytesSent(uint32_t bytesSent) override
    {
        m_out += (bytesSent + m_mss - 1) / m_mss;
    }

    Ptr<TcpRecoveryOps> Fork() override
    {
        return CopyObject<TcpLinuxPrr>(this);
    }

  private:
    uint64_t m_priorCwnd = 0, m_delivered = 0, m_out = 0; // segments
    uint32_t m_mss = 1448;
};

// --cwndTrace: the smallest congestion window any sender had after slow start's first
// reduction (bytes), to show where ns-3's DCTCP lets it fall (bench/ns3/README.md).
static uint32_t g_minCwnd = UINT32_MAX;

static void
OnCwnd(uint32_t, uint32_t newV)
{
    g_minCwnd = std::min(g_minCwnd, newV);
}

static void
TraceCwnds()
{
    Config::ConnectWithoutContext("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/CongestionWindow",
                                  MakeCallback(&OnCwnd));
}

// --explain: window reductions (entries into CA_CWR) and DCTCP's alpha at each update,
// over all senders, and the share of time the bottleneck had n packets waiting (n = 0 ..
// 199, 200 for 200 or more), to set beside cclab's (bench/ns3/README.md).
static uint64_t g_cwrEntries = 0, g_alphaUpdates = 0;
static double g_alphaSum = 0;

static void
OnCongState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t newV)
{
    g_cwrEntries += newV == TcpSocketState::CA_CWR;
}

static void
OnAlpha(uint32_t, uint32_t, double alpha)
{
    g_alphaUpdates++;
    g_alphaSum += alpha;
}

static void
TraceExplain()
{
    Config::ConnectWithoutContext("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/CongState",
                                  MakeCallback(&OnCongState));
    Config::ConnectWithoutContext(
        "/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/CongestionOps/$ns3::TcpDctcp/CongestionEstimate",
        MakeCallback(&OnAlpha));
}

static void
QdiscPkts(uint32_t oldV, uint32_t newV)
{
    g_q.Advance();
    g_q.pkts += int64_t(newV) - int64_t(oldV);
}

static void
QdiscBytes(uint32_t oldV, uint32_t newV)
{
    g_q.Advance();
    g_q.bytes += int64_t(newV) - int64_t(oldV);
}

// The device queue holds frames with their 2-byte PPP header; count IP bytes as cclab.
static void
DevPkts(uint32_t oldV, uint32_t newV)
{
    g_q.Advance();
    g_q.pkts += int64_t(newV) - int64_t(oldV);
    g_q.bytes -= 2 * (int64_t(newV) - int64_t(oldV));
}

static void
DevBytes(uint32_t oldV, uint32_t newV)
{
    g_q.Advance();
    g_q.bytes += int64_t(newV) - int64_t(oldV);
}

int
main(int argc, char* argv[])
{
    Time::SetResolution(Time::PS);
    Time duration = Seconds(1);
    uint32_t incast = 0;
    bool cwndTrace = false;
    uint32_t delAckCount = 2;
    bool explain = false;
    bool linuxPrr = false;
    CommandLine cmd(__FILE__);
    cmd.AddValue("duration", "simulated time", duration);
    cmd.AddValue("incast", "N > 0: N senders into one receiver (the star) instead of the dumbbell", incast);
    cmd.AddValue("cwndTrace", "report the smallest cwnd of any sender (slows the run)", cwndTrace);
    cmd.AddValue("linuxFloor", "DCTCP with Linux's two-segment floor (not ns-3's model)", g_linuxFloor);
    cmd.AddValue("linuxSsthresh", "DCTCP with all of Linux's dctcp_ssthresh (not ns-3's model)", g_linuxSsthresh);
    cmd.AddValue("delAckCount", "segments per delayed ACK (1: an ACK for every segment)", delAckCount);
    cmd.AddValue("linuxCnt", "DCTCP's additive-increase counter reset when a reduction starts, as Linux's (not ns-3's model)", g_linuxCnt);
    cmd.AddValue("linuxAlpha", "DCTCP's alpha updated before the reduction an ACK triggers, as Linux's (not ns-3's model)", g_linuxAlpha);
    cmd.AddValue("linuxPrr", "Linux's PRR in whole segments (not ns-3's model)", linuxPrr);
    cmd.AddValue("explain", "also report the bottleneck's queue-length distribution, the window reductions and the mean alpha", explain);
    cmd.Parse(argc, argv);
    const uint32_t N = incast ? incast : 10; // flows (senders)
    RngSeedManager::SetSeed(1); // RngRun comes from --RngRun (default 1)

    // TCP as cclab's defaults (Linux): see the header.
    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(g_linuxFloor || g_linuxSsthresh || g_linuxCnt || g_linuxAlpha
                                       ? TcpDctcpLinux::GetTypeId()
                                       : TcpDctcp::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(linuxPrr ? TcpLinuxPrr::GetTypeId() : TcpPrrRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAckCount));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(40)));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(6 << 20));

    // The dumbbell: N receivers behind a second switch; the star: one receiver.
    NodeContainer senders, receivers, switches;
    senders.Create(N);
    receivers.Create(incast ? 1 : N);
    switches.Create(incast ? 1 : 2);
    Ptr<Node> sw0 = switches.Get(0);
    Ptr<Node> sw1 = incast ? receivers.Get(0) : switches.Get(1); // the bottleneck's far end

    // 10 Gbit/s, 10 us; the gap makes up cclab's 38 B of Ethernet framing (PPP adds 2).
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
    p2p.SetDeviceAttribute("InterframeGap", TimeValue(PicoSeconds(36 * 800)));
    p2p.SetChannelAttribute("Delay", StringValue("10us"));
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));

    NetDeviceContainer bottleneck = p2p.Install(sw0, sw1); // star: [1] is recv's NIC
    std::vector<NetDeviceContainer> up(N), down(incast ? 0 : N);
    for (uint32_t i = 0; i < N; i++)
    {
        up[i] = p2p.Install(senders.Get(i), sw0); // [0] s_i's NIC, [1] sw0 -> s_i
        if (!incast)
        {
            down[i] = p2p.Install(sw1, receivers.Get(i)); // [0] sw1 -> r_i, [1] r_i's NIC
        }
    }

    InternetStackHelper stack;
    stack.InstallAll();

    TrafficControlHelper red;
    red.SetRootQueueDisc("ns3::RedQueueDisc",
                         "MaxSize", StringValue("1000p"),
                         "MinTh", DoubleValue(K),
                         "MaxTh", DoubleValue(K),
                         "QW", DoubleValue(1.0),
                         "Gentle", BooleanValue(false),
                         "UseEcn", BooleanValue(true),
                         "UseHardDrop", BooleanValue(false),
                         "MeanPktSize", UintegerValue(1500),
                         "LinkBandwidth", StringValue("10Gbps"),
                         "LinkDelay", StringValue("10us"));
    TrafficControlHelper hostQ, bigQ;
    hostQ.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue("10000p"));
    bigQ.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue("100000p"));

    // The star's other ports all have 10000 pkts (cclab's `other_queue`), the
    // dumbbell's switch ports 100000.
    TrafficControlHelper& switchQ = incast ? hostQ : bigQ;
    QueueDiscContainer qdiscs;
    Ptr<QueueDisc> redQ = red.Install(bottleneck.Get(0)).Get(0);
    qdiscs.Add(redQ);
    qdiscs.Add(switchQ.Install(bottleneck.Get(1)));
    for (uint32_t i = 0; i < N; i++)
    {
        qdiscs.Add(hostQ.Install(up[i].Get(0)));
        qdiscs.Add(switchQ.Install(up[i].Get(1)));
        if (!incast)
        {
            qdiscs.Add(bigQ.Install(down[i].Get(0)));
            qdiscs.Add(hostQ.Install(down[i].Get(1)));
        }
    }

    Ipv4AddressHelper addr("10.0.0.0", "255.255.255.252");
    Ipv4Address recvAddr = addr.Assign(bottleneck).GetAddress(1);
    std::vector<Ipv4Address> rxAddr(N, recvAddr);
    for (uint32_t i = 0; i < N; i++)
    {
        addr.NewNetwork();
        addr.Assign(up[i]);
        if (!incast)
        {
            addr.NewNetwork();
            rxAddr[i] = addr.Assign(down[i]).GetAddress(1);
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // One bulk flow per sender for the whole run (iperf -c; cclab's default flows), each
    // with a sink of its own.
    std::vector<Ptr<PacketSink>> sinks(N);
    for (uint32_t i = 0; i < N; i++)
    {
        uint16_t port = incast ? 5201 + i : 5201;
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer rx = sink.Install(receivers.Get(incast ? 0 : i));
        sinks[i] = DynamicCast<PacketSink>(rx.Get(0));
        rx.Start(Seconds(0));
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(rxAddr[i], port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(1448));
        ApplicationContainer tx = bulk.Install(senders.Get(i));
        tx.Start(Seconds(0));
    }

    // Counters: hops on every device; the bottleneck's backlog.
    for (uint32_t n = 0; n < NodeList::GetNNodes(); n++)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); d++)
        {
            node->GetDevice(d)->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnTxBegin));
        }
    }
    bottleneck.Get(0)->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&Count, &g_bnTx));
    bottleneck.Get(1)->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&Count, &g_bnRevTx));
    redQ->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&QdiscPkts));
    redQ->TraceConnectWithoutContext("BytesInQueue", MakeCallback(&QdiscBytes));
    Ptr<Queue<Packet>> devQ = DynamicCast<PointToPointNetDevice>(bottleneck.Get(0))->GetQueue();
    devQ->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&DevPkts));
    devQ->TraceConnectWithoutContext("BytesInQueue", MakeCallback(&DevBytes));

    if (cwndTrace)
    {
        Simulator::Schedule(NanoSeconds(1), &TraceCwnds); // once the sockets exist
    }
    if (explain)
    {
        g_q.hist.assign(201, 0.0);
        Simulator::Schedule(NanoSeconds(1), &TraceExplain);
    }
    Simulator::Stop(duration);
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    double secs = duration.GetSeconds();
    g_q.Advance();
    double span = double(duration.GetPicoSeconds());
    QueueDisc::Stats rs = redQ->GetStats();
    uint64_t drops = 0;
    for (uint32_t i = 0; i < qdiscs.GetN(); i++)
    {
        drops += qdiscs.Get(i)->GetStats().nTotalDroppedPackets;
    }

    std::printf("{\"simulator\": \"ns-3 %d.%d.%d (%s profile)\", \"wall_s\": %.6f, "
                "\"events\": %llu, \"packet_hops\": %llu, \"sim_time_s\": %.6f,\n",
                NS3_VERSION_MAJOR, NS3_VERSION_MINOR, NS3_VERSION_PATCH,
                NS3_VERSION_BUILD_PROFILE, wall, (unsigned long long)Simulator::GetEventCount(),
                (unsigned long long)g_hops, secs);
    std::printf(" \"flows_goodput_bps\": [");
    uint64_t total = 0;
    for (uint32_t i = 0; i < N; i++)
    {
        total += sinks[i]->GetTotalRx();
        std::printf("%s%.1f", i ? ", " : "", sinks[i]->GetTotalRx() * 8.0 / secs);
    }
    std::printf("],\n \"flows_bytes\": [");
    for (uint32_t i = 0; i < N; i++)
    {
        std::printf("%s%llu", i ? ", " : "", (unsigned long long)sinks[i]->GetTotalRx());
    }
    std::printf("],\n \"goodput_bps\": %.1f, \"bottleneck_mean_pkts\": %.4f, "
                "\"bottleneck_mean_bytes\": %.2f, \"bottleneck_marks\": %u, "
                "\"bottleneck_drops\": %u, \"bottleneck_enqueued\": %llu, \"drops_all_queues\": %llu,\n"
                " \"bottleneck_tx_pkts\": %llu, \"bottleneck_rev_tx_pkts\": %llu",
                total * 8.0 / secs, g_q.pktTime / span, g_q.byteTime / span,
                rs.GetNMarkedPackets(RedQueueDisc::FORCED_MARK) +
                    rs.GetNMarkedPackets(RedQueueDisc::UNFORCED_MARK),
                rs.nTotalDroppedPackets, (unsigned long long)rs.nTotalEnqueuedPackets,
                (unsigned long long)drops, (unsigned long long)g_bnTx,
                (unsigned long long)g_bnRevTx);
    if (cwndTrace)
    {
        std::printf(", \"min_cwnd_bytes\": %u", g_minCwnd);
    }
    if (explain)
    {
        // alpha_mean is TcpDctcp's own, null under --linuxAlpha (which keeps its own).
        std::printf(",\n \"cwr_entries\": %llu, \"alpha_mean\": ", (unsigned long long)g_cwrEntries);
        if (g_alphaUpdates)
        {
            std::printf("%.5f", g_alphaSum / g_alphaUpdates);
        }
        else
        {
            std::printf("null");
        }
        std::printf(", \"queue_time_share\": [");
        for (size_t n = 0; n < g_q.hist.size(); n++)
        {
            std::printf("%s%.6f", n ? ", " : "", g_q.hist[n] / span);
        }
        std::printf("]");
    }
    std::printf("}\n");
    Simulator::Destroy();
    return 0;
}
