// fattree8.cpp — cclab's `cclab bench --scale` k = 8 fat-tree case (crates/cclab/src/bench.rs,
// scenario_fat_tree(8, "1s")) written for htsim (Broadcom/csg-htsim, commit 841d9e7), running
// the SAME flows as a cclab run of that case, so that the two simulators can be timed on the
// same work. Our own program: htsim's code is not in this repository; bench/htsim/build.sh
// builds htsim's libhtsim.a in its checkout (target/htsim/csg-htsim) and compiles this file
// against its headers into target/htsim/fattree8-htsim:
//
//   bench/htsim/build.sh >/dev/null        # builds dctcp10-htsim and fattree8-htsim
//   taskset -c 1 target/htsim/fattree8-htsim FCT.CSV [--duration=1] [--seed=1] [--flows=OUT.CSV]
//
// --flows=OUT.CSV also writes each started flow's FCT (flow, fct_ms, acked_ms; empty when
// not reached), for bench/htsim/fct_compare.py. Explanation only (README.md, "Why the
// FCTs differ"; the "simulator" key then names them), as in dctcp10.cpp: --linuxDctcp=1
// runs the sketch of Linux's DCTCP (common.h's LinuxDctcpSrc, given DCTCPSrc's first RTO
// of 10 ms) instead of htsim's DCTCPSrc, --markOnArrival=1 marks every switch port as
// cclab does (an arriving packet when more than 65 packets wait).
//
// FCT.CSV is the fct.csv of a cclab run of the case (`cclab run ... --out DIR`; columns
// run_id,flow,from,to,cc,size_bytes,start_s,...): every row is one flow, started at start_s
// from host `from` to host `to` with size_bytes of payload. Nothing else of cclab's run is
// used (its FCTs only to compare, by hand). One JSON object on stdout.
//
// The network: the k = 8 fat-tree of cclab (crates/cclab/src/net/topology/fat_tree.rs),
// built here queue by queue rather than with htsim's FatTreeTopology (datacenter/), so that
// every queue is ours to count and set (FatTreeTopology allocates its own queue classes from
// an enum and takes one queue size for all tiers). 128 hosts, 8 pods of 4 edge and 4
// aggregation switches, 16 core switches. Host h{n} (cclab's numbering, n = pod·16 +
// edge·4 + i) is on edge switch n/4 of pod n/16; aggregation switch j of every pod links to
// core switches 4j … 4j+3 — exactly cclab's wiring (htsim's FatTreeTopology numbers hosts
// the same way: host/4 is the ToR, host/16 the pod). Every link is 10 Gbit/s (800 ps per
// byte) and 1 µs (an htsim Pipe after each queue). Queues: each host's NIC (cclab `h{n}_up`,
// drop-tail 10,000 pkts: cclab's default `host_queue`, the bench sets none) is an htsim
// drop-tail Queue; every switch port (edge→host, edge↔agg, agg↔core, both directions) is an
// htsim ECNQueue, limit 250 pkts and K = 65 pkts as cclab's `link` queue (see below for how
// the packet counts become bytes). 768 queues, 768 pipes.
//
// Paths: cclab routes by ECMP per connection among the shortest paths: 1 (same edge),
// 4 (same pod, via agg j) or 16 (other pod, via agg j and core 4j+c). Here each flow picks
// one uniformly at random (rand() seeded with --seed, as htsim's own main_tcp.cpp picks
// rand() % paths), so the same flow takes a different path than in cclab; a flow's ACKs
// return on the mirror of its data path (htsim's get_bidir_paths does the same; cclab's
// hashes each direction on its own).
//
// Flows: htsim's DCTCPSrc / TcpSink. A flow's objects and routes are made at its start time
// by a FlowStarter event (so the event list holds only started flows, as cclab's), and
// never freed (htsim frees nothing). A flow of S bytes sends n = ceil(S / 1448) full
// segments (TcpSrc::_flow_size set so that exactly n go; htsim cannot send a short last
// segment: every segment serialises 1538 B, cclab's last one is shorter). Finished = the
// source has the ACK of its last byte (cclab: `acked_s`); FCT = start to the sink's
// receiving the last byte in order (cclab: `fct_s`, measured the same way from start_s).
// bytes_delivered = payload ACKed at the source (1448 B per segment, the last one counting
// only what is left of S).
//
// Sizes (as bench/htsim/dctcp10.cpp): an htsim packet has one size, its wire size and its
// sequence length: 1538 B (1500 B IP, 1448 B payload, + 38 B framing), so each data packet
// takes 1.2304 µs per link as in cclab. ACKs are htsim's TcpAck, 40 B (cclab: 90 B on the
// wire); the SYN is 1 B.
//
// Where htsim's model differs from cclab's (Linux) — all as in dctcp10.cpp unless noted:
// - Per-packet ACKs: TcpSink ACKs every segment, echoing its CE. cclab's bench case runs
//   Linux delayed ACKs (ACK every 2nd segment, quick ACKs, 40 ms timer), so htsim sends
//   about twice as many ACKs: more packet-hops for the same data. (cclab
//   `--set tcp.delayed_ack=false` would match.)
// - Handshake SYN -> ACK -> data (no third packet); IW: set_cwnd(9 MSS) + the SYN's ACK =
//   a first flight of 10 (Linux IW10); initial ssthresh infinite (htsim: 100 segments).
// - No SACK, no PRR (NewReno-like fast recovery), no rwnd/buffers, no pacing, no TSO/GRO.
// - No TCP small queues: cclab's hosts run `tsq = true` (a socket keeps at most ~2 packets
//   (or ~1 ms of data) queued in its NIC; the rest waits in the socket). htsim's TcpSrc puts
//   its whole window into the NIC queue at once. Hosts sending several flows at once
//   interleave them differently (FIFO bursts per window in htsim).
// - RTO: min 250 ms (Linux 200 ms), DCTCPSrc's first RTO 10 ms; timeouts noticed by a
//   TcpRtxTimerScanner every 10 ms (as htsim's main_tcp.cpp), up to 10 ms late.
// - DCTCP is htsim's dctcp.cpp: alpha starts at 0 (Linux 1), the window is cut by alpha/2
//   at every window boundary while alpha > 0 (Linux: once per window, only on an ECE),
//   an ECE in slow start ends it without a cut (bench/htsim/README.md shows the effect).
// - ECN marking: htsim's ECNQueue marks a packet when it *leaves* if the bytes held, itself
//   included, exceed K; cclab marks an *arriving* packet when more than 65 wait. htsim's
//   queues also hold the packet being sent, so K = (65 + 1) × 1538 B and the limit
//   (250 + 1) × 1538 B. The limit is in bytes: a queue full of 40 B ACKs holds far more than
//   250 of them (cclab counts packets). htsim marks (never drops) any packet above K,
//   ACKs and SYNs included (cclab: a not-ECT arrival above K is dropped; DCTCP sets ECT
//   on everything in Linux, so probably none).
// - No processing jitter (cclab's hosts: up to one packet time, random).
// - No switch model (no forwarding delay; none in cclab either).
// - htsim writes messages (every ACK past a flow's end prints "Flow ... finished", every
//   RTO a line) with std::cout: discarded (std::cout with no buffer) unless --verbose=1,
//   which sends them to stderr. stdout carries only the JSON.
//
// Counted: events = iterations of EventList::doNextEvent() (a queue finishing a packet, a
// pipe delivering one, a TCP start or timer, a flow start: about two per hop, so not
// comparable with cclab's count); packet_hops = packets that left any queue (cclab: packets
// started on a link); marks / drops over all queues. Wall time = the event loop alone
// (steady_clock), setup (reading the CSV, building the network) excluded. Runs until
// --duration (events at or after it are never run).

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

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

static const int KARY = 8;                  // fat-tree k
static const int HALF = KARY / 2;           // edge / agg switches per pod, hosts per edge
static const int HOSTS = KARY * HALF * HALF; // 128
static const int PER_POD = HALF * HALF;     // 16 hosts per pod
static const int CORES = HALF * HALF;       // 16

static const int LIMIT_PKTS = 250;        // switch port limit, packets waiting

struct FlowSpec {
    uint64_t id;
    int from, to;
    uint64_t size;
    simtime_picosec start;
};

struct FlowState;

// The sink notes when the last byte arrived in order.
class FctSink : public TcpSink {
  public:
    FlowState* st = nullptr;
    void receivePacket(Packet& pkt) override;
};

// The source notes when its last byte was ACKed. Base: htsim's DCTCPSrc, or (explanation
// only, --linuxDctcp=1) LinuxDctcpSrc (common.h), given DCTCPSrc's first RTO of 10 ms so
// that only the reaction to marks differs.
template <class Base> class FctSrc : public Base {
  public:
    FctSrc(EventList& ev) : Base(nullptr, nullptr, ev) { this->_rto = timeFromMs(10); }
    FlowState* st = nullptr;
    void receivePacket(Packet& pkt) override;
};

struct FlowState {
    const FlowSpec* spec;
    uint64_t lastSeq; // the sequence number of the last byte (SYN is byte 1)
    simtime_picosec rxDone = 0, ackDone = 0;
    TcpSrc* src;
    FctSink* sink;
    Route fwd, rev;
};

void FctSink::receivePacket(Packet& pkt) {
    TcpSink::receivePacket(pkt);
    if (!st->rxDone && _cumulative_ack >= st->lastSeq) {
        st->rxDone = EventList::now();
    }
}

template <class Base> void FctSrc<Base>::receivePacket(Packet& pkt) {
    Base::receivePacket(pkt);
    if (!st->ackDone && this->_last_acked >= st->lastSeq) {
        st->ackDone = EventList::now();
    }
}

// The network: every queue and pipe, by cclab's link names.
struct Net {
    EventList& ev;
    linkspeed_bps rate = speedFromGbps(10);
    simtime_picosec delay = timeFromUs(1.0);
    std::deque<CountingQueue> plainQ;
    std::deque<CountingEcnQueue> ecnQ;
    std::deque<Pipe> pipes;
    // A link direction: its queue (the sending port) and its pipe.
    struct Dir {
        Queue* q;
        Pipe* p;
    };
    Dir hostUp[HOSTS], hostDown[HOSTS];             // h{n}_up (NIC), h{n}_down (edge port)
    Dir e2a[KARY * HALF][HALF], a2e[KARY * HALF][HALF]; // edge E -> agg j of its pod, back
    Dir a2c[KARY * HALF][HALF], c2a[CORES][KARY];   // agg A -> core 4j+c, core m -> pod p

    bool markOnArrival;

    Dir ecn() {
        Queue* q = &ecnQ.emplace_back(rate, pkts(LIMIT_PKTS + 1), ev, pkts(K_PKTS + 1),
                                      markOnArrival);
        return {q, &pipes.emplace_back(delay, ev)};
    }
    Dir nic() {
        Queue* q = &plainQ.emplace_back(rate, pkts(HOST_LIMIT_PKTS), ev);
        return {q, &pipes.emplace_back(delay, ev)};
    }

    Net(EventList& e, bool markOnArrival) : ev(e), markOnArrival(markOnArrival) {
        for (int n = 0; n < HOSTS; n++) {
            hostUp[n] = nic();
            hostDown[n] = ecn();
        }
        for (int E = 0; E < KARY * HALF; E++) {
            for (int j = 0; j < HALF; j++) {
                e2a[E][j] = ecn();
            }
        }
        for (int A = 0; A < KARY * HALF; A++) {
            for (int i = 0; i < HALF; i++) {
                a2e[A][i] = ecn();
            }
            for (int c = 0; c < HALF; c++) {
                a2c[A][c] = ecn();
            }
        }
        for (int m = 0; m < CORES; m++) {
            for (int p = 0; p < KARY; p++) {
                c2a[m][p] = ecn();
            }
        }
    }

    static void hop(Route& r, const Dir& d) {
        r.push_back(d.q);
        r.push_back(d.p);
    }

    // The shortest path s -> d via aggregation switch j and core 4j + c (the ones that
    // apply), ending at `end`.
    void path(Route& r, int s, int d, int j, int c, PacketSink* end) {
        int es = s / HALF, ed = d / HALF;         // edge switches, global ids
        int ps = s / PER_POD, pd = d / PER_POD;   // pods
        hop(r, hostUp[s]);
        if (es != ed) {
            hop(r, e2a[es][j]);
            if (ps != pd) {
                hop(r, a2c[ps * HALF + j][c]);
                hop(r, c2a[j * HALF + c][pd]);
            }
            hop(r, a2e[pd * HALF + j][ed % HALF]);
        }
        hop(r, hostDown[d]);
        r.push_back(end);
    }
};

// Starts the flows at their start times (sorted), making their objects then.
class FlowStarter : public EventSource {
  public:
    FlowStarter(EventList& ev, Net& net, std::vector<FlowSpec>& flows, std::deque<FlowState>& states,
                TcpRtxTimerScanner& scanner, bool linuxDctcp)
        : EventSource(ev, "flowstarter"), _net(net), _flows(flows), _states(states), _scanner(scanner),
          _linuxDctcp(linuxDctcp) {
        if (!_flows.empty()) {
            EventList::sourceIsPending(*this, _flows[0].start);
        }
    }
    size_t started = 0;

    void doNextEvent() override {
        simtime_picosec now = EventList::now();
        while (started < _flows.size() && _flows[started].start <= now) {
            start(_flows[started++]);
        }
        if (started < _flows.size()) {
            EventList::sourceIsPending(*this, _flows[started].start);
        }
    }

  private:
    void start(const FlowSpec& f) {
        FlowState& st = _states.emplace_back();
        st.spec = &f;
        uint64_t segs = (f.size + kPayload - 1) / kPayload;
        if (segs == 0) {
            segs = 1;
        }
        st.lastSeq = 1 + segs * (uint64_t)kWire;
        if (_linuxDctcp) {
            auto* src = new FctSrc<LinuxDctcpSrc>(eventlist());
            src->st = &st;
            st.src = src;
        } else {
            auto* src = new FctSrc<DCTCPSrc>(eventlist());
            src->st = &st;
            st.src = src;
        }
        st.sink = new FctSink();
        st.sink->st = &st;
        st.src->set_cwnd(9 * (uint64_t)st.src->_mss);
        st.src->set_ssthresh(0xffffffffu);
        // TcpSrc sends while _highest_sent (1 + segments sent x MSS) <= _flow_size + 1:
        // exactly `segs` segments.
        st.src->_flow_size = (segs - 1) * (uint64_t)kWire;
        _scanner.registerTcp(*st.src);
        int j = 0, c = 0;
        int s = f.from, d = f.to;
        if (s / HALF != d / HALF) {
            if (s / PER_POD != d / PER_POD) {
                int choice = rand() % (HALF * HALF);
                j = choice / HALF;
                c = choice % HALF;
            } else {
                j = rand() % HALF;
            }
        }
        _net.path(st.fwd, s, d, j, c, st.sink);
        _net.path(st.rev, d, s, j, c, st.src);
        st.src->connect(st.fwd, st.rev, *st.sink, EventList::now());
    }

    Net& _net;
    std::vector<FlowSpec>& _flows;
    std::deque<FlowState>& _states;
    TcpRtxTimerScanner& _scanner;
    bool _linuxDctcp;
};

static int hostIndex(const std::string& name) {
    if (name.size() < 2 || name[0] != 'h') {
        return -1;
    }
    char* end = nullptr;
    long n = std::strtol(name.c_str() + 1, &end, 10);
    if (*end || n < 0 || n >= HOSTS) {
        return -1;
    }
    return (int)n;
}

// Reads cclab's fct.csv (or any CSV with columns flow, from, to, size_bytes, start_s).
static bool readFlows(const char* path, std::vector<FlowSpec>& out) {
    std::ifstream in(path);
    if (!in) {
        std::fprintf(stderr, "cannot open %s\n", path);
        return false;
    }
    std::string line;
    if (!std::getline(in, line)) {
        std::fprintf(stderr, "%s is empty\n", path);
        return false;
    }
    std::vector<std::string> head;
    {
        std::stringstream ss(line);
        std::string col;
        while (std::getline(ss, col, ',')) {
            head.push_back(col);
        }
    }
    auto find = [&](const char* name) {
        for (size_t i = 0; i < head.size(); i++) {
            if (head[i] == name) {
                return (int)i;
            }
        }
        return -1;
    };
    int cFlow = find("flow"), cFrom = find("from"), cTo = find("to"), cSize = find("size_bytes"),
        cStart = find("start_s");
    if (cFrom < 0 || cTo < 0 || cSize < 0 || cStart < 0) {
        std::fprintf(stderr, "%s lacks a from, to, size_bytes or start_s column\n", path);
        return false;
    }
    std::vector<std::string> cols;
    size_t lineNo = 1;
    while (std::getline(in, line)) {
        lineNo++;
        if (line.empty()) {
            continue;
        }
        cols.clear();
        std::stringstream ss(line);
        std::string col;
        while (std::getline(ss, col, ',')) {
            cols.push_back(col);
        }
        if ((int)cols.size() <= std::max({cFrom, cTo, cSize, cStart, cFlow})) {
            std::fprintf(stderr, "%s:%zu: too few columns\n", path, lineNo);
            return false;
        }
        FlowSpec f;
        f.id = cFlow >= 0 ? std::strtoull(cols[cFlow].c_str(), nullptr, 10) : out.size();
        f.from = hostIndex(cols[cFrom]);
        f.to = hostIndex(cols[cTo]);
        if (f.from < 0 || f.to < 0 || f.from == f.to) {
            std::fprintf(stderr, "%s:%zu: bad hosts %s -> %s (h0..h%d)\n", path, lineNo,
                         cols[cFrom].c_str(), cols[cTo].c_str(), HOSTS - 1);
            return false;
        }
        f.size = std::strtoull(cols[cSize].c_str(), nullptr, 10);
        double s = std::strtod(cols[cStart].c_str(), nullptr);
        f.start = (simtime_picosec)std::llround(s * 1e12);
        out.push_back(f);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const FlowSpec& a, const FlowSpec& b) { return a.start < b.start; });
    return true;
}

int main(int argc, char** argv) {
    double duration = 1.0;
    unsigned seed = 1;
    bool verbose = false, linuxDctcp = false, markOnArrival = false;
    const char* csv = nullptr;
    const char* flowsOut = nullptr;
    for (int i = 1; i < argc; i++) {
        if (!std::strncmp(argv[i], "--duration=", 11)) {
            duration = std::atof(argv[i] + 11);
        } else if (!std::strncmp(argv[i], "--seed=", 7)) {
            seed = (unsigned)std::strtoul(argv[i] + 7, nullptr, 10);
        } else if (!std::strncmp(argv[i], "--verbose=", 10)) {
            verbose = std::strcmp(argv[i] + 10, "0") != 0;
        } else if (!std::strncmp(argv[i], "--flows=", 8)) {
            flowsOut = argv[i] + 8;
        } else if (flag(argv[i], "--linuxDctcp", &linuxDctcp) ||
                   flag(argv[i], "--markOnArrival", &markOnArrival)) {
        } else if (argv[i][0] != '-' && !csv) {
            csv = argv[i];
        } else {
            csv = nullptr;
            break;
        }
    }
    if (!csv || !(duration > 0)) {
        std::fprintf(stderr,
                     "usage: %s FCT.CSV [--duration=SECONDS (default 1)] [--seed=N (default 1)]\n"
                     "       [--verbose=1 (htsim's messages to stderr)] [--flows=OUT.CSV]\n"
                     "       [--linuxDctcp=1] [--markOnArrival=1] (explanation only)\n",
                     argv[0]);
        return 2;
    }
    if (verbose) {
        std::cout.rdbuf(std::cerr.rdbuf());
    } else {
        std::cout.rdbuf(nullptr); // badbit: htsim's messages are dropped unformatted
    }
    srand(seed);

    std::vector<FlowSpec> flows;
    if (!readFlows(csv, flows)) {
        return 2;
    }
    // --flows: its file is created now, so that a bad path stops the program before the run.
    std::string tmp = flowsOut ? std::string(flowsOut) + ".part" : std::string();
    std::FILE* flowsFile = nullptr;
    if (flowsOut && !(flowsFile = std::fopen(tmp.c_str(), "wx"))) {
        std::fprintf(stderr, "cannot create %s: %s\n", tmp.c_str(), std::strerror(errno));
        return 2;
    }

    Packet::set_packet_size(kWire);
    EventList eventlist;
    const simtime_picosec end = timeFromSec(duration);
    eventlist.setEndtime(end);

    Net net(eventlist, markOnArrival);
    TcpRtxTimerScanner rtxScanner(timeFromMs(10), eventlist);
    std::deque<FlowState> states;
    FlowStarter starter(eventlist, net, flows, states, rtxScanner, linuxDctcp);

    uint64_t events;
    double wall = runTimed(eventlist, events);

    uint64_t finished = 0, bytes = 0, drops = 0, fastRecoveries = 0;
    uint64_t rxFinished = 0;
    double fctSum = 0, ackSum = 0;
    for (auto& st : states) {
        const FlowSpec& f = *st.spec;
        if (st.ackDone) {
            finished++;
            bytes += f.size;
            ackSum += timeAsMs(st.ackDone - f.start);
        } else {
            uint64_t acked = st.src->_last_acked > 1 ? (st.src->_last_acked - 1) / kWire : 0;
            bytes += std::min<uint64_t>(acked * kPayload, f.size);
        }
        if (st.rxDone) {
            // Received whole (cclab's fct_s: start to the last byte received in order).
            rxFinished++;
            fctSum += timeAsMs(st.rxDone - f.start);
        }
        fastRecoveries += st.src->_drops;
    }
    for (auto& q : net.plainQ) {
        drops += (uint64_t)q.num_drops();
    }
    uint64_t marks = 0;
    for (auto& q : net.ecnQ) {
        drops += (uint64_t)q.num_drops();
        marks += q.marks;
    }
    if (flowsOut) {
        // One row per flow started: its FCT as cclab's fct_s (start to the last byte
        // received in order) and acked_ms; empty when not reached by the end. Written
        // into FILE.part (created before the run) and renamed into place when whole.
        std::FILE* f = flowsFile;
        std::fprintf(f, "flow,fct_ms,acked_ms\n");
        for (auto& st : states) {
            std::fprintf(f, "%llu,", (unsigned long long)st.spec->id);
            if (st.rxDone) {
                std::fprintf(f, "%.9f", timeAsMs(st.rxDone - st.spec->start));
            }
            std::fprintf(f, ",");
            if (st.ackDone) {
                std::fprintf(f, "%.9f", timeAsMs(st.ackDone - st.spec->start));
            }
            std::fprintf(f, "\n");
        }
        if (std::fclose(f) || std::rename(tmp.c_str(), flowsOut)) {
            std::fprintf(stderr, "cannot write %s\n", flowsOut);
            std::remove(tmp.c_str());
            return 2;
        }
    }
    uint64_t listed = 0;
    for (auto& f : flows) {
        listed += f.start < end;
    }

    const char* variant = linuxDctcp && markOnArrival ? " (linuxDctcp, markOnArrival)"
                          : linuxDctcp                 ? " (linuxDctcp)"
                          : markOnArrival              ? " (markOnArrival)"
                                                       : "";
    std::printf("{\"simulator\": \"htsim 841d9e7%s\", \"wall_s\": %.6f, \"duration_s\": %.6f, "
                "\"events\": %llu, \"packet_hops\": %llu,\n"
                " \"flows_listed\": %zu, \"flows_listed_before_end\": %llu, "
                "\"flows_started\": %zu, \"flows_finished\": %llu, "
                "\"flows_received\": %llu, \"bytes_delivered\": %llu, "
                "\"goodput_bps\": %.1f,\n"
                " \"mean_fct_ms\": %.6f, \"mean_acked_ms\": %.6f, \"ecn_marks\": %llu, "
                "\"drops\": %llu, \"fast_recoveries\": %llu, \"seed\": %u}\n",
                variant, wall, duration, (unsigned long long)events, (unsigned long long)g_hops,
                flows.size(), (unsigned long long)listed, states.size(),
                (unsigned long long)finished, (unsigned long long)rxFinished,
                (unsigned long long)bytes, bytes * 8.0 / duration,
                rxFinished ? fctSum / rxFinished : 0.0, finished ? ackSum / finished : 0.0,
                (unsigned long long)marks, (unsigned long long)drops,
                (unsigned long long)fastRecoveries, seed);
    return 0;
}
