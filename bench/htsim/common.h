// common.h — what our htsim programs (dctcp10.cpp, fattree8.cpp) share: cclab's packet
// sizes and queue limits, the queues that count what they send, and the timed event loop.
// Our own code, compiled against htsim's headers (bench/htsim/build.sh); see README.md.
#pragma once

#include "ecnqueue.h"
#include "eventlist.h"
#include "network.h"
#include "queue.h"

#include <chrono>
#include <cstdint>

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
class CountingEcnQueue : public ECNQueue {
  public:
    CountingEcnQueue(linkspeed_bps rate, mem_b limit, EventList& ev, mem_b k)
        : ECNQueue(rate, limit, ev, nullptr, k), _k(k) {}
    uint64_t tx = 0, marks = 0;

  protected:
    void completeService() override {
        // ECNQueue::completeService marks the departing packet when _queuesize (which
        // still counts it) exceeds K; count the marks the same way.
        if (_queuesize > _k) {
            marks++;
        }
        tx++;
        g_hops++;
        ECNQueue::completeService();
    }

  private:
    mem_b _k;
};

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
