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
//! table over all pairs of nodes would hold 10^10 entries.
//!
//! Next hops at a node are kept in the order of the node's ports, and the hash picks
//! `hash % count` among them, so a connection keeps its path.

use super::{Node, NodeId, NodeKind, Port, PortId};
use std::collections::VecDeque;

const NONE: u32 = u32::MAX;

/// Routing state of a network.
#[derive(Debug, Default)]
pub struct Routes {
    /// Per node: its only output port, or `NONE` when it has several or none.
    single: Vec<u32>,
    /// Per node with several ports: its table row, else `NONE`.
    row: Vec<u32>,
    /// Per node: the destination group of a host (`NONE` for switches).
    group: Vec<u32>,
    /// Per group: the node its search started from (the switch of single-linked hosts, or
    /// the host itself).
    target: Vec<NodeId>,
    /// Per host node: the ports from its group's switch towards it, as (first, count)
    /// into `ports`.
    last_hop: Vec<(u32, u32)>,
    /// `table[row * groups + group]` = (first, count) into `ports`.
    table: Vec<(u32, u32)>,
    ports: Vec<PortId>,
    groups: usize,
}

impl Routes {
    /// Compute the routes of the network made of `nodes` and `ports`.
    pub fn compute(nodes: &[Node], ports: &[Port]) -> Routes {
        let n = nodes.len();
        let forwards = |v: usize| nodes[v].kind == NodeKind::Switch;
        let mut r = Routes {
            single: vec![NONE; n],
            row: vec![NONE; n],
            group: vec![NONE; n],
            last_hop: vec![(0, 0); n],
            ..Default::default()
        };
        let mut rows = 0u32;
        for (v, node) in nodes.iter().enumerate() {
            match node.ports.len() {
                0 => {}
                1 => r.single[v] = node.ports[0],
                _ => {
                    r.row[v] = rows;
                    rows += 1;
                }
            }
        }
        // Group the hosts.
        let mut group_of_switch = vec![NONE; n];
        for (h, node) in nodes.iter().enumerate() {
            if node.kind != NodeKind::Host {
                continue;
            }
            let attach = match node.ports.as_slice() {
                [p] if forwards(ports[*p as usize].peer as usize) => {
                    Some(ports[*p as usize].peer as usize)
                }
                _ => None,
            };
            let g = match attach {
                Some(a) if group_of_switch[a] != NONE => group_of_switch[a],
                Some(a) => {
                    group_of_switch[a] = r.target.len() as u32;
                    r.target.push(a as NodeId);
                    group_of_switch[a]
                }
                None => {
                    r.target.push(h as NodeId);
                    (r.target.len() - 1) as u32
                }
            };
            r.group[h] = g;
        }
        // Last hops: the ports from each group's switch to its hosts, in port order. One
        // pass over the ports, not one per host: a switch may have 100,000 of them.
        let mut last: Vec<(u32, PortId)> = Vec::new();
        for (pid, p) in ports.iter().enumerate() {
            let h = p.peer as usize;
            let g = r.group[h];
            if g != NONE && r.target[g as usize] == p.node && p.node as usize != h {
                last.push((h as u32, pid as PortId));
            }
        }
        last.sort_by_key(|&(h, _)| h); // stable: ports stay in order per host
        for (i, &(h, pid)) in last.iter().enumerate() {
            if i == 0 || last[i - 1].0 != h {
                r.last_hop[h as usize] = (r.ports.len() as u32, 0);
            }
            r.ports.push(pid);
            r.last_hop[h as usize].1 += 1;
        }
        r.groups = r.target.len();
        r.table = vec![(0, 0); rows as usize * r.groups];

        // One backward breadth-first search per group, through forwarding nodes.
        let mut into: Vec<Vec<PortId>> = vec![Vec::new(); n];
        for (pid, p) in ports.iter().enumerate() {
            into[p.peer as usize].push(pid as PortId);
        }
        let mut dist = vec![u32::MAX; n];
        let mut touched: Vec<usize> = Vec::new();
        let mut q = VecDeque::new();
        for g in 0..r.groups {
            for &v in &touched {
                dist[v] = u32::MAX;
            }
            touched.clear();
            let t = r.target[g] as usize;
            dist[t] = 0;
            touched.push(t);
            q.push_back(t);
            while let Some(v) = q.pop_front() {
                // Only the target and forwarding nodes carry traffic onwards.
                if v != t && !forwards(v) {
                    continue;
                }
                for &pid in &into[v] {
                    let u = ports[pid as usize].node as usize;
                    if dist[u] == u32::MAX {
                        dist[u] = dist[v] + 1;
                        touched.push(u);
                        q.push_back(u);
                    }
                }
            }
            for &u in &touched {
                let row = r.row[u];
                if u == t || row == NONE {
                    continue;
                }
                let first = r.ports.len() as u32;
                for &pid in &nodes[u].ports {
                    let peer = ports[pid as usize].peer as usize;
                    if dist[peer] != u32::MAX
                        && dist[peer] + 1 == dist[u]
                        && (peer == t || forwards(peer))
                    {
                        r.ports.push(pid);
                    }
                }
                r.table[row as usize * r.groups + g] = (first, r.ports.len() as u32 - first);
            }
        }
        r
    }

    /// The output port at `node` towards host `dst` for a packet with ECMP hash `hash`.
    #[inline]
    pub fn next_port(&self, node: NodeId, dst: NodeId, hash: u32) -> Option<PortId> {
        let single = self.single[node as usize];
        if single != NONE {
            return Some(single);
        }
        let row = self.row[node as usize];
        let g = self.group[dst as usize];
        if row == NONE || g == NONE {
            return None;
        }
        let (first, count) = if self.target[g as usize] == node {
            self.last_hop[dst as usize]
        } else {
            self.table[row as usize * self.groups + g as usize]
        };
        match count {
            0 => None,
            1 => Some(self.ports[first as usize]),
            c => Some(self.ports[(first + hash % c) as usize]),
        }
    }

    /// Bytes the routing state holds (for tests of its growth).
    pub fn heap_bytes(&self) -> usize {
        (self.single.len() + self.row.len() + self.group.len() + self.target.len())
            * std::mem::size_of::<u32>()
            + (self.last_hop.len() + self.table.len()) * std::mem::size_of::<(u32, u32)>()
            + self.ports.len() * std::mem::size_of::<PortId>()
    }
}
