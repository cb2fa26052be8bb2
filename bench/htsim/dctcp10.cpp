// dctcp10.cpp — cclab's `dctcp10` benchmark case (crates/cclab/src/bench.rs,
// scenario_dctcp10; bench/dctcp10.toml) written for htsim (Broadcom/csg-htsim, commit
// 841d9e7), so that bench/race.sh can time cclab, ns-3 (bench/ns3/dctcp10.cc) and htsim on
// the same work and set their results side by side. This is our own program, written for
// the race: htsim's code is not in this repository. bench/htsim/build.sh clones htsim at
// the pinned commit into target/htsim/csg-htsim (outside the source tree), builds its
// libhtsim.a with htsim's own Makefile (-O3), and compiles this file against its headers:
//
//   bin=$(bench/htsim/build.sh | tail -n 1) && taskset -c 1 "$bin"   # one JSON object
//   "$bin" --duration=0.1                                             # shorter run
//   "$bin" --linuxDctcp=1 --markOnArrival=1   only to explain the results (README.md);
//                                             race.sh never sets them
//
//   s0..s9 --10G, 10us-- sw0 ==bottleneck 10G, 10us, ECN at K = 65 pkts== sw1 --10G, 10us-- r0..r9
//
// Ten DCTCP bulk flows s_i -> r_i (htsim's DCTCPSrc / TcpSink), all starting at t = 0, for
// 1 s of simulated time. htsim has no nodes or ports: a flow is a route, a list of queues
// (serialisation at the link rate), pipes (propagation delay) and the endpoint. Each
// direction of each flow crosses three queues, each followed by a 10 us pipe, hop by hop
// as cclab's dumbbell (crates/cclab/src/net/topology/dumbbell.rs):
//   data: s_i's NIC (s{i}_up, drop-tail 10000 pkts) -> pipe -> sw0's port to sw1
//         (bottleneck: ECN threshold K = 65, limit 1000 pkts) -> pipe -> sw1's port to r_i
//         (r{i}_down, drop-tail 100000 pkts) -> pipe -> r_i's TcpSink
//   ACKs: r_i's NIC (r{i}_up, 10000 pkts) -> pipe -> sw1's port to sw0 (bottleneck_rev,
//         100000 pkts) -> pipe -> sw0's port to s_i (s{i}_down, 100000 pkts) -> pipe -> s_i
// All 42 queues are 10 Gbit/s (htsim: exactly 800 ps per byte, as cclab), the bottleneck an
// ECNQueue and the others plain Queues; the shared bottleneck queue and pipe are one object
// each in both directions, the rest are one per flow. Time is in picoseconds, as cclab's.
//
// Sizes. An htsim packet has one size, which is both what it occupies in a queue and what
// it serialises, and a TCP segment's size is also its sequence-number length (htsim's
// "MSS"). We set it (Packet::set_packet_size) to 1538 B, what a cclab data packet
// serialises: 1500 B IP (1448 B payload + 20 IP + 20 TCP + 12 timestamps) + 38 B Ethernet
// framing, so every queue sends 1538 B per data packet in 1.2304 us as cclab does; goodput
// is counted as 1448 payload bytes per segment delivered in order. ACKs are htsim's TcpAck,
// 40 B (TcpAck::ACKSIZE, no framing, no options) where cclab's are 52 B IP + 38 B = 90 B on
// the wire: the ACK path is nearly empty either way. The SYN is htsim's 1-byte TcpPacket.
// Queue limits and K are in bytes, packets x 1538 (below).
//
// Where htsim's model differs from cclab's (Linux) and what we did about it:
// - Handshake: SYN (1 B) -> the sink's ACK (40 B) -> data; no third packet. The SYN's ACK
//   counts as a slow-start ACK and grows the window by one segment, so htsim's default
//   window of 10 segments would send 11 in the first flight: we start at 9 (set_cwnd), so
//   the first flight is Linux's IW10.
// - Initial ssthresh: htsim's is 100 segments; we set "infinite" (2^32 - 1) as Linux's.
// - No delayed ACKs: TcpSink ACKs every packet and echoes each packet's CE in its ACK
//   (exact per-packet ECE). The race runs cclab (`--set tcp.delayed_ack=false`) and ns-3
//   (`--delAckCount=1`) with per-packet ACKs for this case to match.
// - No SACK, no PRR: 3 duplicate ACKs start NewReno-like fast recovery (ssthresh =
//   max(cwnd/2, 2 MSS), cwnd = ssthresh + 3 MSS, one retransmission per partial ACK).
//   No send/receive buffers (no rwnd), no pacing, no TSO/GRO.
// - RTT and RTO: every ACK echoes the timestamp of the segment it answers (an RTT sample per
//   ACK); RTO = srtt + 4 mdev, at least 250 ms (Linux: 200 ms); DCTCPSrc's first RTO is
//   10 ms; timeouts are only noticed when a TcpRtxTimerScanner looks, every 10 ms here (as
//   htsim's own main_tcp.cpp), so they fire up to 10 ms late.
// - DCTCP (htsim's dctcp.cpp), against Linux tcp_dctcp.c:
//   * alpha starts at 0 (Linux: dctcp_alpha_on_init = 1024, i.e. 1); g = 1/16 in both.
//   * alpha is updated once per window of ACKs (ACKs seen x MSS >= the window at the last
//     update) from the fraction of ACKs carrying ECE (Linux: bytes; the same here, one
//     segment per ACK).
//   * At every such update with alpha > 0 the window is cut to cwnd x (1 - alpha/2),
//     whether or not that window saw a mark, floored at 1 MSS (Linux cuts once per window
//     only when an ECE arrives, entering CWR, floor 2 MSS).
//   * An ECE in slow start sets ssthresh = cwnd (slow start ends without a cut; Linux
//     cuts by alpha/2, i.e. halves, with alpha = 1 at first).
//   * Congestion avoidance in bytes: each ACK adds MSS x n / cwnd, n = the room it opened
//     in the window (at most 1 MSS); Linux counts whole segments.
// - ECN marking (htsim's ECNQueue): a packet is marked CE when it *leaves* the queue if
//   the bytes queued, itself included, exceed K; cclab marks an *arriving* packet when
//   more than 65 packets already wait. htsim marks every packet (no ECT/not-ECT: cclab
//   would drop a not-ECT arrival above K; there is none on this path).
// - What a queue holds: htsim's Queue keeps the packet being serialised until it has left
//   (its _queuesize counts it); cclab's port queue holds only what waits. So that the
//   levels match, K and the bottleneck's limit count one more packet: K = (65 + 1) x 1538 B
//   marks a departing packet when more than 65 wait behind it, and 1001 x 1538 B lets
//   1000 wait. The big queues (10000 / 100000 pkts) never fill and are set as packets x
//   1538 B. Our bottleneck mean counts what waits (the packet on the wire excluded), in IP
//   bytes, as cclab and bench/ns3/dctcp10.cc do; bottleneck_mean_pkts_incl_tx adds the one
//   being sent (htsim's own occupancy).
// - No processing jitter: cclab's hosts (`[host] jitter = "auto"`) start a frame on an idle
//   NIC up to one packet time late (random); htsim sends at once, deterministically.
// - No switch model: a route is queues and pipes, with no forwarding delay (none in cclab
//   either); the two switches exist only as the queues on the routes.
// - htsim prints some messages (e.g. on a retransmission timeout) with std::cout; we send
//   std::cout to stderr so that stdout carries only the JSON.
//
// Explanation only (bench/htsim/README.md; race.sh never sets them; the "simulator" key
// then names them): --markOnArrival=1 marks as cclab does, an arriving packet when more
// than 65 packets wait (ECNQueue's own marking switched off); --linuxDctcp=1 replaces
// htsim's DCTCPSrc by LinuxDctcpSrc (common.h), a sketch of Linux's tcp_dctcp.c reaction on
// htsim's TcpSrc. With both, htsim gives cclab's bottleneck queue and marks to within 1%.
//
// Counted: events = iterations of the EventList::doNextEvent() loop (htsim's own event
// kinds: a queue finishing a packet, a pipe delivering one, a TCP start or timer scan);
// packet_hops = packets that left any queue onto its pipe (cclab: packets started on a
// link); flows_bytes = payload bytes each sink has cumulatively received in order;
// bottleneck marks / drops / packets sent from the bottleneck queue itself. Wall time is
// that of the event loop alone (steady_clock). No loggers, no per-packet work of ours
// beyond a few counters, and no heap allocation of ours after setup.

#include "config.h"
#include "dctcp.h"
#include "ecn.h"
#include "ecnqueue.h"
#include "eventlist.h"
#include "network.h"
#include "pipe.h"
#include "queue.h"
#include "route.h"
#include "tcp.h"
#include "tcppacket.h"

#include "common.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iostream>

static const int N = 10;                  // flows (sender/receiver pairs)
static const int BN_LIMIT_PKTS = 1000;    // bottleneck limit (what waits), packets
static const int BIG_LIMIT_PKTS = 100000; // switch ports towards hosts, bottleneck_rev

// IP length of a packet as cclab counts it: data packets carry the framing in their htsim
// size; htsim's SYN (1 B) and ACK (40 B) have none.
static inline int ipLen(const Packet& p) { return p.size() == kWire ? kIpLen : p.size(); }

// The bottleneck: htsim's ECNQueue, plus counters and the exact time-average of what waits
// (marking on arrival as cclab does with markOnArrival: CountingEcnQueue).
class Bottleneck : public CountingEcnQueue {
  public:
    Bottleneck(linkspeed_bps rate, mem_b limit, EventList& ev, mem_b k, bool markOnArrival)
        : CountingEcnQueue(rate, limit, ev, k, markOnArrival) {}

    // ∫ dt of: packets waiting, their IP bytes, and packets held including the one being
    // sent (ps x packets, ps x bytes).
    unsigned __int128 waitPktPs = 0, waitIpPs = 0, heldPktPs = 0;

    void receivePacket(Packet& pkt) override {
        advance(eventlist().now());
        int len = ipLen(pkt), before = _enqueued.size();
        CountingEcnQueue::receivePacket(pkt);
        if (_enqueued.size() != before) {
            _ipBytes += len;
        }
    }

    void completeService() override {
        advance(eventlist().now());
        _ipBytes -= ipLen(*_enqueued.back()); // back() is the next to leave
        // Counts it and, unless marking on arrival (threshold = limit: never exceeded),
        // its mark at departure.
        CountingEcnQueue::completeService();
    }

    // Adds the time since the last change at the current occupancy.
    void advance(simtime_picosec now) {
        uint64_t dt = now - _last;
        _last = now;
        int n = _enqueued.size();
        if (n == 0 || dt == 0) {
            return;
        }
        uint64_t waitIp = (uint64_t)(_ipBytes - ipLen(*_enqueued.back()));
        waitPktPs += (unsigned __int128)(n - 1) * dt;
        waitIpPs += (unsigned __int128)waitIp * dt;
        heldPktPs += (unsigned __int128)n * dt;
    }

  private:
    int64_t _ipBytes = 0; // IP bytes of everything held, the one being sent included
    simtime_picosec _last = 0;
};

int main(int argc, char** argv) {
    double duration = 1.0;
    bool linuxDctcp = false, markOnArrival = false;
    for (int i = 1; i < argc; i++) {
        if (!std::strncmp(argv[i], "--duration=", 11)) {
            duration = std::atof(argv[i] + 11);
        } else if (!flag(argv[i], "--linuxDctcp", &linuxDctcp) &&
                   !flag(argv[i], "--markOnArrival", &markOnArrival)) {
            std::fprintf(stderr,
                         "usage: %s [--duration=SECONDS] (default 1)\n"
                         "       [--linuxDctcp=1] [--markOnArrival=1] (explanation only)\n",
                         argv[0]);
            return 2;
        }
    }
    if (!(duration > 0)) {
        std::fprintf(stderr, "--duration must be positive\n");
        return 2;
    }
    // htsim writes its few messages to std::cout: keep stdout for the JSON.
    std::cout.rdbuf(std::cerr.rdbuf());

    // Must come before anything reads the size (TcpSrc takes it as its MSS).
    Packet::set_packet_size(kWire);

    EventList eventlist;
    const simtime_picosec end = timeFromSec(duration);
    eventlist.setEndtime(end);

    const linkspeed_bps rate = speedFromGbps(10);
    const simtime_picosec delay = timeFromUs(10.0);

    // Setup allocates once (a deque never moves what it holds); nothing of ours later.
    std::deque<CountingQueue> queues; // every queue but the bottleneck
    std::deque<Pipe> pipes;
    auto queue = [&](int limit) -> CountingQueue& {
        return queues.emplace_back(rate, pkts(limit), eventlist);
    };
    auto pipe = [&]() -> Pipe& { return pipes.emplace_back(delay, eventlist); };

    // One packet more than what may wait: htsim's queues also hold the one being sent.
    Bottleneck bottleneck(rate, pkts(BN_LIMIT_PKTS + 1), eventlist, pkts(K_PKTS + 1),
                          markOnArrival);
    Pipe& bottleneckPipe = pipe();
    CountingQueue& bottleneckRev = queue(BIG_LIMIT_PKTS);
    Pipe& bottleneckRevPipe = pipe();

    TcpRtxTimerScanner rtxScanner(timeFromMs(10), eventlist);

    // One direction of a flow: the sending host's NIC, its pipe, the shared middle queue
    // and pipe, the far switch's port towards the receiving host, its pipe, the endpoint.
    auto path = [&](Route& r, Queue& middle, Pipe& middlePipe, PacketSink& end) {
        r.push_back(&queue(HOST_LIMIT_PKTS));
        r.push_back(&pipe());
        r.push_back(&middle);
        r.push_back(&middlePipe);
        r.push_back(&queue(BIG_LIMIT_PKTS));
        r.push_back(&pipe());
        r.push_back(&end);
    };

    std::deque<DCTCPSrc> dctcps;
    std::deque<LinuxDctcpSrc> linuxDctcps;
    TcpSrc* srcs[N];
    std::deque<TcpSink> sinks;
    Route fwd[N], rev[N];
    for (int i = 0; i < N; i++) {
        TcpSrc& src = linuxDctcp ? (TcpSrc&)linuxDctcps.emplace_back(nullptr, nullptr, eventlist)
                                 : (TcpSrc&)dctcps.emplace_back(nullptr, nullptr, eventlist);
        srcs[i] = &src;
        TcpSink& sink = sinks.emplace_back();
        // Linux: IW10 (the SYN's ACK adds one segment in htsim: see the header) and an
        // infinite initial ssthresh.
        src.set_cwnd(9 * (uint64_t)src._mss);
        src.set_ssthresh(0xffffffffu);
        rtxScanner.registerTcp(src);

        // s_i's NIC (s{i}_up) -> sw0 -> bottleneck -> sw1 -> r{i}_down -> r_i
        path(fwd[i], bottleneck, bottleneckPipe, sink);
        // r_i's NIC (r{i}_up) -> sw1 -> bottleneck_rev -> sw0 -> s{i}_down -> s_i
        path(rev[i], bottleneckRev, bottleneckRevPipe, src);

        src.connect(fwd[i], rev[i], sink, 0); // bulk (htsim's default flow size is 2^63)
    }

    uint64_t events;
    double wall = runTimed(eventlist, events);

    bottleneck.advance(end);
    const double span = (double)end;
    uint64_t drops = (uint64_t)bottleneck.num_drops();
    for (auto& q : queues) {
        drops += (uint64_t)q.num_drops();
    }
    uint64_t bytes[N], total = 0, fastRecoveries = 0;
    for (int i = 0; i < N; i++) {
        // The sink's cumulative ACK is the last byte received in order: the SYN is byte 1,
        // then kWire bytes of sequence space per segment.
        uint64_t ack = sinks[i]._cumulative_ack;
        bytes[i] = ack > 1 ? (ack - 1) / kWire * kPayload : 0;
        total += bytes[i];
        fastRecoveries += srcs[i]->_drops;
    }

    const char* variant = linuxDctcp && markOnArrival ? " (linuxDctcp, markOnArrival)"
                          : linuxDctcp                 ? " (linuxDctcp)"
                          : markOnArrival              ? " (markOnArrival)"
                                                       : "";
    std::printf("{\"simulator\": \"htsim 841d9e7%s\", \"wall_s\": %.6f, \"duration_s\": %.6f, "
                "\"sim_time_s\": %.6f, \"events\": %llu, \"packet_hops\": %llu,\n",
                variant, wall, duration, duration, (unsigned long long)events,
                (unsigned long long)g_hops);
    std::printf(" \"flows_goodput_bps\": [");
    for (int i = 0; i < N; i++) {
        std::printf("%s%.1f", i ? ", " : "", bytes[i] * 8.0 / duration);
    }
    std::printf("],\n \"flows_bytes\": [");
    for (int i = 0; i < N; i++) {
        std::printf("%s%llu", i ? ", " : "", (unsigned long long)bytes[i]);
    }
    std::printf("],\n \"goodput_bps\": %.1f, \"bottleneck_mean_pkts\": %.4f, "
                "\"bottleneck_mean_bytes\": %.2f, \"bottleneck_mean_pkts_incl_tx\": %.4f, "
                "\"bottleneck_marks\": %llu, \"bottleneck_drops\": %d, "
                "\"drops_all_queues\": %llu,\n"
                " \"bottleneck_tx_pkts\": %llu, \"bottleneck_rev_tx_pkts\": %llu, "
                "\"fast_recoveries\": %llu}\n",
                total * 8.0 / duration, (double)bottleneck.waitPktPs / span,
                (double)bottleneck.waitIpPs / span, (double)bottleneck.heldPktPs / span,
                (unsigned long long)bottleneck.marks, bottleneck.num_drops(),
                (unsigned long long)drops, (unsigned long long)bottleneck.tx,
                (unsigned long long)bottleneckRev.tx, (unsigned long long)fastRecoveries);
    return 0;
}
