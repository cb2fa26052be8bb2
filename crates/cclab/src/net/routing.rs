//! Static routing: shortest paths (hop count) to every host, with equal-cost multipath
//! (ECMP) chosen by a per-connection hash, kept only where a node has a choice.
//!
//! - A node with one output port sends everything there: a host with a single link needs
//!   no table.
//! - Hosts do not forward (Linux with `ip_forward = 0`): paths run through switches only.
//! - Destinations are grouped. A host whose one link leads to a switch is reached through
//!   that switch, so every node's next hops towards it are its next hops towards the
//!   switch; one breadth-first search per such switch serves all its hosts, and a table row
//!   holds one entry per group. Any other host (several links, or a link to another host)
//!   is a group of its own.
//!
//! So memory grows with (nodes that have a choice) × (groups) + hosts: a star of 100,000
//! senders on one switch keeps one row of one entry plus a last hop per host, where a
//! table over all pairs of nodes would hold 10^10 entries. An entry points into a shared
//! array of port lists, where a row stores a list once for all the groups in a run that
//! share it (a leaf's uplinks serve every other leaf).
//!
//! Next hops at a node are kept in the order of the node's ports, and a connection's hash,
//! mixed with the node's own id, picks one of them: a connection keeps its path. The mix
//! is the per-switch hash seed real switches use against ECMP "polarization": were every
//! switch to pick `hash % count`, consecutive tiers would make the same choice, and a
//! k-ary fat-tree would use k/2 of its (k/2)² paths between pods.

use super::{Node, NodeId, NodeKind, Port, PortId};
use std::collections::VecDeque;

const NONE: u32 = u32::MAX;

/// A connection's ECMP hash as switch `node` sees it: the two through MurmurHash3's
/// 64-bit finaliser (Appleby), so every output bit depends on every input bit and the
/// choices of two switches are independent.
#[inline(always)]
fn ecmp_mix(hash: u32, node: NodeId) -> u32 {
    let mut x = (hash as u64) << 32 | node as u64;
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^= x >> 33;
    x as u32
}

/// An index into the port lists as stored. They hold at most each row's distinct lists,
/// fewer entries than the network has ports, which `PortId` (u32) counts.
fn index(i: usize) -> u32 {
    u32::try_from(i).expect("fewer port-list entries than ports")
}

/// How a node forwards: its only port, or its table row.
#[derive(Clone, Copy, Debug)]
struct NodeRoute {
    /// The node's only output port, or `NONE` when it has several or none.
    single: u32,
    /// The node's table row when it has several ports, else `NONE`.
    row: u32,
}

/// How a destination host is reached; one cache line holds all a lookup needs.
#[derive(Clone, Copy, Debug, Default)]
struct HostRoute {
    /// The host's destination group (`NONE` for switches).
    group: u32,
    /// The node the group's search started from (the switch of single-linked hosts, or
    /// the host itself).
    target: NodeId,
    /// The ports from that switch to the host: (first, count) into `ports`, or (the
    /// port, 1) when there is one.
    last: (u32, u32),
}

/// Routing state of a network.
#[derive(Debug, Default)]
pub struct Routes {
    node: Vec<NodeRoute>,
    host: Vec<HostRoute>,
    /// Per group: the node its search started from.
    target: Vec<NodeId>,
    /// `table[row * groups + group]` = (first, count) into `ports`, or (the port, 1).
    table: Vec<(u32, u32)>,
    ports: Vec<PortId>,
    groups: usize,
}

/// One backward breadth-first search per group, through forwarding nodes, over compact
/// copies of what it reads (a port is a large record; a large fabric's searches read every
/// link once per group), with what the searches share.
struct Search {
    /// For each node, the nodes with a link into it.
    into: Vec<Vec<u32>>,
    /// For each port, its peer.
    peer_of: Vec<u32>,
    /// Hops to the search's target (`u32::MAX`: not reached, or not needed).
    dist: Vec<u32>,
    /// The nodes the last search reached, in the order it reached them.
    touched: Vec<usize>,
    q: VecDeque<usize>,
    /// Per row: the port list it stored last (first, count).
    last_list: Vec<(u32, u32)>,
}

impl Search {
    fn new(n: usize, ports: &[Port], rows: u32) -> Search {
        let mut into: Vec<Vec<u32>> = vec![Vec::new(); n];
        for p in ports {
            into[p.peer as usize].push(p.node);
        }
        Search {
            into,
            peer_of: ports.iter().map(|p| p.peer).collect(),
            dist: vec![u32::MAX; n],
            touched: Vec::new(),
            q: VecDeque::new(),
            last_list: vec![(0, 0); rows as usize],
        }
    }

    /// The distances to `t` of the nodes that need one: forwarding nodes, and nodes with
    /// a table row one link beyond them.
    fn run(&mut self, r: &Routes, t: usize, fwd: &[bool]) {
        for &v in &self.touched {
            self.dist[v] = u32::MAX;
        }
        self.touched.clear();
        self.dist[t] = 0;
        self.touched.push(t);
        self.q.push_back(t);
        while let Some(v) = self.q.pop_front() {
            for &u in &self.into[v] {
                let u = u as usize;
                if self.dist[u] != u32::MAX {
                    continue;
                }
                // Only forwarding nodes carry traffic onwards; a node that neither
                // forwards nor has a table row (a host on one link) needs no distance:
                // nothing reads it.
                if fwd[u] {
                    self.q.push_back(u);
                } else if r.node[u].row == NONE {
                    continue;
                }
                self.dist[u] = self.dist[v] + 1;
                self.touched.push(u);
            }
        }
    }
}

impl Routes {
    /// Compute the routes of the network made of `nodes` and `ports`.
    pub fn compute(nodes: &[Node], ports: &[Port]) -> Routes {
        let n = nodes.len();
        // Which nodes forward (switches; hosts do not), read by every search below.
        let fwd: Vec<bool> = nodes.iter().map(|x| x.kind == NodeKind::Switch).collect();
        let mut r = Routes {
            node: vec![
                NodeRoute {
                    single: NONE,
                    row: NONE
                };
                n
            ],
            host: vec![
                HostRoute {
                    group: NONE,
                    target: NONE,
                    last: (0, 0),
                };
                n
            ],
            ..Default::default()
        };
        let rows = r.number_rows(nodes);
        r.group_hosts(nodes, ports, &fwd);
        r.last_hops(ports);
        r.groups = r.target.len();
        r.table = vec![(0, 0); rows as usize * r.groups];
        let mut search = Search::new(nodes.len(), ports, rows);
        for g in 0..r.groups {
            let t = r.target[g] as usize;
            search.run(&r, t, &fwd);
            r.store_ways(g, t, nodes, &fwd, &mut search);
        }
        r.inline_single_ways();
        r
    }

    /// Each node's only port, or for a node with several its table row: returns the
    /// number of rows.
    fn number_rows(&mut self, nodes: &[Node]) -> u32 {
        let mut rows = 0u32;
        for (v, node) in nodes.iter().enumerate() {
            match node.ports.len() {
                0 => {}
                1 => self.node[v].single = node.ports[0],
                _ => {
                    self.node[v].row = rows;
                    rows += 1;
                }
            }
        }
        rows
    }

    /// Group the hosts: one group per switch for the hosts whose one link leads to it,
    /// one of its own for any other host.
    fn group_hosts(&mut self, nodes: &[Node], ports: &[Port], fwd: &[bool]) {
        let mut group_of_switch = vec![NONE; nodes.len()];
        for (h, node) in nodes.iter().enumerate() {
            if node.kind != NodeKind::Host {
                continue;
            }
            let attach = match node.ports.as_slice() {
                [p] if fwd[ports[*p as usize].peer as usize] => {
                    Some(ports[*p as usize].peer as usize)
                }
                _ => None,
            };
            let g = match attach {
                Some(a) if group_of_switch[a] != NONE => group_of_switch[a],
                Some(a) => {
                    group_of_switch[a] = self.target.len() as u32;
                    self.target.push(a as NodeId);
                    group_of_switch[a]
                }
                None => {
                    self.target.push(h as NodeId);
                    (self.target.len() - 1) as u32
                }
            };
            self.host[h].group = g;
        }
    }

    /// Last hops: the ports from each group's switch to its hosts, in port order. One
    /// pass over the ports, not one per host: a switch may have 100,000 of them. Then
    /// each host's target.
    fn last_hops(&mut self, ports: &[Port]) {
        let mut last: Vec<(u32, PortId)> = Vec::new();
        for (pid, p) in ports.iter().enumerate() {
            let h = p.peer as usize;
            let g = self.host[h].group;
            if g != NONE && self.target[g as usize] == p.node && p.node as usize != h {
                last.push((h as u32, pid as PortId));
            }
        }
        last.sort_by_key(|&(h, _)| h); // stable: ports stay in order per host
        for (i, &(h, pid)) in last.iter().enumerate() {
            if i == 0 || last[i - 1].0 != h {
                self.host[h as usize].last = (index(self.ports.len()), 0);
            }
            self.ports.push(pid);
            self.host[h as usize].last.1 += 1;
        }
        for h in 0..self.host.len() {
            let g = self.host[h].group;
            if g != NONE {
                self.host[h].target = self.target[g as usize];
            }
        }
    }

    /// Group `g`'s table entries, after `search` ran from its target `t`: at each node
    /// with a row that the search reached, the ports to a neighbour one step nearer
    /// (through a forwarding node, or `t` itself).
    fn store_ways(
        &mut self,
        g: usize,
        t: usize,
        nodes: &[Node],
        fwd: &[bool],
        search: &mut Search,
    ) {
        let Search {
            peer_of,
            dist,
            touched,
            last_list,
            ..
        } = search;
        for &u in touched.iter() {
            let row = self.node[u].row;
            if u == t || row == NONE {
                continue;
            }
            let first = self.ports.len();
            for &pid in &nodes[u].ports {
                let peer = peer_of[pid as usize] as usize;
                if dist[peer] != u32::MAX && dist[peer] + 1 == dist[u] && (peer == t || fwd[peer]) {
                    self.ports.push(pid);
                }
            }
            // A switch's ways to most groups are the same ports (a leaf's or an edge
            // switch's uplinks): the list it stored last is reused, so the array grows
            // with the ports, not with switches × groups × ways.
            let (pf, pc) = last_list[row as usize];
            let new = &self.ports[first..];
            let entry = if pc as usize == new.len()
                && self.ports[pf as usize..(pf + pc) as usize] == *new
            {
                self.ports.truncate(first);
                (pf, pc)
            } else {
                let e = (index(first), index(new.len()));
                last_list[row as usize] = e;
                e
            };
            self.table[row as usize * self.groups + g] = entry;
        }
    }

    /// A single way holds its port itself: a lookup then reads one array less (on a
    /// fat-tree, every way down).
    fn inline_single_ways(&mut self) {
        for e in self
            .table
            .iter_mut()
            .chain(self.host.iter_mut().map(|h| &mut h.last))
        {
            if e.1 == 1 {
                e.0 = self.ports[e.0 as usize];
            }
        }
    }

    /// The output port at `node` towards host `dst` for a packet with ECMP hash `hash`.
    #[inline(always)]
    pub fn next_port(&self, node: NodeId, dst: NodeId, hash: u32) -> Option<PortId> {
        let nr = self.node[node as usize];
        if nr.single != NONE {
            return Some(nr.single);
        }
        let h = self.host[dst as usize];
        if nr.row == NONE || h.group == NONE {
            return None;
        }
        let (first, count) = if h.target == node {
            h.last
        } else {
            self.table[nr.row as usize * self.groups + h.group as usize]
        };
        match count {
            0 => None,
            1 => Some(first),
            c => Some(self.ports[(first + ecmp_mix(hash, node) % c) as usize]),
        }
    }

    /// The switch a host's only link leads to (the host's group's target), if it has one:
    /// every host of that switch is routed alike.
    pub fn attachment(&self, host: NodeId) -> Option<NodeId> {
        let h = self.host[host as usize];
        (h.group != NONE && h.target != host).then_some(h.target)
    }

    /// Bytes the routing state holds (for tests of its growth).
    pub fn heap_bytes(&self) -> usize {
        self.node.len() * std::mem::size_of::<NodeRoute>()
            + self.host.len() * std::mem::size_of::<HostRoute>()
            + self.target.len() * std::mem::size_of::<NodeId>()
            + self.table.len() * std::mem::size_of::<(u32, u32)>()
            + self.ports.len() * std::mem::size_of::<PortId>()
    }
}
