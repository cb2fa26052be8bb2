#!/usr/bin/env python3
"""bench/ns3/ack_rules.py — how many ACKs a DCTCP receiver sends for a recorded data stream,
under Linux's rule (what cclab models) and under ns-3 3.37's, so that the two simulators'
ACK counts can be told apart from their different data streams (bench/ns3/README.md).

Usage: bench/ns3/ack_rules.py PCAP [QUICKACK]

PCAP is a cclab capture of the link into the receivers (e.g. `cclab run bench/incast32.toml
--set 'output.pcap=["bottleneck"]' --out D`, then D/bottleneck.pcap): every data segment
in arrival order, with its CE mark (marks are applied at enqueue, so the capture of the
link's transmissions shows them). No loss or reordering is assumed (the races have none).
QUICKACK is the segments ACKed at once at a flow's start (cclab's `[tcp] quickack`,
default 16; ns-3 has none).

Per flow, in order:
- Linux (`tcp_dctcp.c` `dctcp_ece_ack_update`, `__tcp_ack_snd_check`): when the CE state
  flips and a delayed ACK is pending, the earlier data is ACKed with the old state, and
  the flipping segment is ACKed at once (ICSK_ACK_NOW); otherwise every 2nd segment, and
  every segment of the first QUICKACK.
- ns-3 3.37 (`TcpDctcp::CeState0to1/1to0`, `TcpSocketBase` delayed ACKs): on a flip after
  the first, a pending delayed ACK is sent for the earlier data; the flipping segment then
  counts as any other, an ACK every 2nd segment.
Delayed-ACK timer expiries (40 ms) are not counted; bulk flows leave none pending but at
the end. Exit status 2 on a missing or malformed file.
"""
import struct
import sys


def fail(msg):
    print(f"ack_rules.py: {msg}", file=sys.stderr)
    sys.exit(2)


def read_flows(path):
    """Each flow's data segments in order, as CE flags (flows keyed by source address and
    port)."""
    try:
        f = open(path, "rb")
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    with f:
        head = f.read(24)
        if len(head) < 24 or struct.unpack("<I", head[:4])[0] not in (0xA1B2C3D4, 0xA1B23C4D):
            fail(f"{path}: not a little-endian pcap file")
        link = struct.unpack("<I", head[20:24])[0]
        if link not in (1, 101):
            fail(f"{path}: link type {link}; Ethernet (1) or raw IP (101) expected")
        skip = 14 if link == 1 else 0
        flows = {}
        while True:
            rec = f.read(16)
            if not rec:
                break
            if len(rec) < 16:
                fail(f"{path}: a truncated record header")
            incl = struct.unpack("<I", rec[8:12])[0]
            d = f.read(incl)
            if len(d) < incl:
                fail(f"{path}: a truncated record")
            ip = d[skip:]
            if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 6:
                continue  # not IPv4 TCP
            ihl = (ip[0] & 15) * 4
            total = struct.unpack(">H", ip[2:4])[0]
            tcp = ip[ihl:]
            if len(tcp) < 13:
                fail(f"{path}: a TCP header cut short (snap length too small)")
            payload = total - ihl - (tcp[12] >> 4) * 4
            if payload > 0:
                sport = struct.unpack(">H", tcp[:2])[0]
                flows.setdefault((ip[12:16], sport), []).append((ip[1] & 3) == 3)
        return flows


def linux_acks(ces, quickack):
    acks = pending = 0
    ce = False
    for c in ces:
        now = False
        if c != ce:
            if pending:
                acks += 1  # the earlier data, with the old CE state
            ce, now = c, True
        pending += 1
        if quickack:
            quickack -= 1
            acks, pending = acks + 1, 0
        elif now or pending >= 2:
            acks, pending = acks + 1, 0
    return acks


def ns3_acks(ces):
    acks = pending = 0
    ce = flipped = False
    for c in ces:
        if c != ce:
            if pending and flipped:  # m_delayedAckReserved && m_priorRcvNxtFlag
                acks, pending = acks + 1, 0
            ce, flipped = c, True
        pending += 1
        if pending >= 2:
            acks, pending = acks + 1, 0
    return acks


def main():
    if len(sys.argv) not in (2, 3):
        fail("usage: ack_rules.py PCAP [QUICKACK]")
    quickack = 16
    if len(sys.argv) == 3:
        if not sys.argv[2].isdigit():
            fail(f"QUICKACK must be a whole number of segments (got '{sys.argv[2]}')")
        quickack = int(sys.argv[2])
    flows = read_flows(sys.argv[1])
    segs = sum(len(c) for c in flows.values())
    ce = sum(sum(c) for c in flows.values())
    flips = sum(sum(1 for a, b in zip([False] + c, c) if a != b) for c in flows.values())
    print(f"{len(flows)} flows, {segs:,} data segments, {ce:,} CE ({ce / max(segs, 1):.1%}), "
          f"{flips:,} CE flips")
    lx = sum(linux_acks(c, quickack) for c in flows.values())
    ns = sum(ns3_acks(c) for c in flows.values())
    print(f"ACKs under Linux's rule: {lx:,}")
    print(f"ACKs under ns-3 3.37's rule: {ns:,} ({(ns - lx) / max(lx, 1):+.1%})")


if __name__ == "__main__":
    main()
