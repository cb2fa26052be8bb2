// common.h — what our htsim programs (dctcp10.cpp, fattree8.cpp) share: cclab's packet
// sizes and queue limits, the queues that count what they send, and the timed event loop.
// Our own code, compiled against htsim's headers (bench/htsim/build.sh); see README.md.
#pragma once

#include "ecn.h"
#include "ecnqueue.h"
#include "eventlist.h"
#include "network.h"
#include "queue.h"
#include "tcp.h"
#include "tcppacket.h"

#include <chrono>
#include <cstdint>
#include <cstring>

// A data packet as cclab puts it on the wire: 1500 B IP (1448 B payload + 20 IP + 20 TCP +
// 12 timestamps) + 38 B Ethernet framing (preamble, header, FCS, gap) = 1538 B. htsim's
// one packet size is both the wire size and the segment's sequence length.
static const int kFraming = 38;
static const int kIpLen = 1500;
static const int kPayload = 1448;
static const int kWire = kIpLen + kFraming;
static const int K_PKTS = 65;             // ECN marking threshold (what waits), packets
static const int HOST_LIMIT_PKTS = 10000; // host NICs (cclab's default host queue)

// Packets that left any queue onto its pipe (cclab: packets started on a link).
inline uint64_t g_hops = 0;

// A limit or threshold of n packets, in the bytes htsim's queues count.
static inline mem_b pkts(int n) { return (mem_b)n * kWire; }

// A drop-tail queue that counts the packets it sends.
class CountingQueue : public Queue {
  public:
    CountingQueue(linkspeed_bps rate, mem_b limit, EventList& ev)
        : Queue(rate, limit, ev, nullptr) {}
    uint64_t tx = 0;

  protected:
    void completeService() override {
        tx++;
        g_hops++;
        Queue::completeService();
    }
};

// htsim's ECNQueue that counts the packets it sends and the ones it marks: a departing
// packet is marked when the bytes held, itself included, exceed the threshold `k`.
// With markOnArrival (explanation only) it marks as cclab does instead: an arriving packet
// that finds more than K_PKTS packets waiting (the one on the wire not counted), and
// ECNQueue's own threshold is set where it can never be exceeded (the limit).
class CountingEcnQueue : public ECNQueue {
  public:
    CountingEcnQueue(linkspeed_bps rate, mem_b limit, EventList& ev, mem_b k,
                     bool markOnArrival = false)
        : ECNQueue(rate, limit, ev, nullptr, markOnArrival ? limit : k),
          _k(markOnArrival ? limit : k), _onArrival(markOnArrival) {}
    uint64_t tx = 0, marks = 0;

    void receivePacket(Packet& pkt) override {
        if (_onArrival && (int)_enqueued.size() - 1 > K_PKTS &&
            _queuesize + pkt.size() <= _maxsize) {
            pkt.set_flags(pkt.flags() | ECN_CE);
            marks++;
        }
        ECNQueue::receivePacket(pkt);
    }

  protected:
    void completeService() override {
        // ECNQueue::completeService marks the departing packet when _queuesize (which
        // still counts it) exceeds K; count the marks the same way (never, marking on
        // arrival: the threshold is then the limit).
        if (_queuesize > _k) {
            marks++;
        }
        tx++;
        g_hops++;
        ECNQueue::completeService();
    }

  private:
    mem_b _k;
    bool _onArrival;
};

// Explanation only (--linuxDctcp=1): Linux's DCTCP reaction (tcp_dctcp.c, with Reno's
// tcp_enter_cwr) sketched on htsim's TcpSrc, to show how much of htsim's results its own
// DCTCPSrc makes. Alpha in 1/1024, starting at 1024, updated once per window of data
// (snd_una passing the snd_nxt of the last update) from ECE bytes / acked bytes with g =
// 1/16 (dctcp_update_alpha); an ECE outside CWR sets ssthresh = max(cwnd - (cwnd x alpha
// >> 11), 2) in whole segments and enters CWR (dctcp_ssthresh, tcp_enter_cwr); CWR ends
// when an ACK passes the snd_nxt at entry. Approximations: cwnd drops to ssthresh at once
// (Linux: PRR over the next round trip), and the window is held during CWR, grown
// otherwise by htsim's own slow start and congestion avoidance.
class LinuxDctcpSrc : public TcpSrc {
  public:
    LinuxDctcpSrc(TcpLogger* logger, TrafficLogger* pktlogger, EventList& ev)
        : TcpSrc(logger, pktlogger, ev) {}

    void receivePacket(Packet& pkt) override {
        uint64_t ack = ((TcpAck&)pkt).ackno();
        bool ece = pkt.flags() & ECN_ECHO;
        if (_established && ack > _last_acked) {
            uint64_t acked = ack - _last_acked;
            _bytesTotal += acked;
            _bytesEcn += ece ? acked : 0;
            if (ack >= _nextSeq) { // the window since the last update is acked
                _alpha -= (_alpha >> 4) ? (_alpha >> 4) : _alpha;
                if (_bytesEcn) {
                    _alpha += (uint32_t)((_bytesEcn << 6) / _bytesTotal);
                    _alpha = _alpha > 1024 ? 1024 : _alpha;
                }
                _nextSeq = _highest_sent;
                _bytesTotal = _bytesEcn = 0;
            }
            if (_cwr && ack > _cwrHigh) {
                _cwr = false;
            }
        }
        if (_established && ece && !_cwr && !_in_fast_recovery) {
            uint64_t cwnd = _cwnd / _mss;
            uint64_t ss = cwnd - ((cwnd * _alpha) >> 11);
            _ssthresh = (uint32_t)((ss < 2 ? 2 : ss) * _mss);
            _cwnd = _ssthresh;
            _cwr = true;
            _cwrHigh = _highest_sent;
        }
        uint32_t cwnd = _cwnd;
        TcpSrc::receivePacket(pkt);
        if (_cwr && _cwnd > cwnd) {
            _cwnd = cwnd; // no growth in CWR
        }
    }

  private:
    uint32_t _alpha = 1024;
    uint64_t _nextSeq = 0, _bytesTotal = 0, _bytesEcn = 0, _cwrHigh = 0;
    bool _cwr = false;
};

// Parses `--name`, `--name=1` (true) or `--name=0` (false) into *out; false if `arg` is
// not that flag.
static inline bool flag(const char* arg, const char* name, bool* out) {
    size_t n = std::strlen(name);
    if (std::strncmp(arg, name, n) || (arg[n] != '=' && arg[n] != 0)) {
        return false;
    }
    *out = arg[n] == 0 || std::strcmp(arg + n + 1, "0") != 0;
    return true;
}

// Runs the event loop to its end time; returns its wall time in seconds (steady clock,
// the loop alone) and counts its events.
static inline double runTimed(EventList& eventlist, uint64_t& events) {
    events = 0;
    auto t0 = std::chrono::steady_clock::now();
    while (eventlist.doNextEvent()) {
        events++;
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
