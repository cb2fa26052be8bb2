//! The simulator's own tests: the event's size and the prefetch hints.

use super::*;

/// An event stays within 16 bytes, so a queue entry (its 16-byte key and the event) is 32
/// bytes and a wheel chunk's 16 entries fill eight cache lines (`engine/`).
#[test]
fn event_size_is_bounded() {
    assert!(
        std::mem::size_of::<Ev>() <= 16,
        "{}",
        std::mem::size_of::<Ev>()
    );
    assert_eq!(std::mem::size_of::<(u128, Ev)>(), 32);
}

/// Prefetching is on where the ports outgrow a first-level cache and off on `cclab
/// bench`'s small dumbbells, and either way the run gives the same results.
#[test]
fn prefetching_follows_the_ports_and_changes_no_result() {
    let mut small = Sim::new(&crate::bench::scenario()).unwrap();
    small.net.seal(0);
    assert!(
        !small.net.prefetch,
        "cubic16: {} ports",
        small.net.ports().len()
    );
    let mut sc = crate::bench::scenario_fat_tree(4, "2ms");
    sc.seed = 3;
    let mut on = Sim::new(&sc).unwrap();
    on.run();
    assert!(on.net.prefetch, "k = 4: {} ports", on.net.ports().len());
    assert!(on.net.packet_hops > 10_000, "{} hops", on.net.packet_hops);
    // The same run with the hints off (`seal` sets the flag; this run steps without it).
    let mut off = Sim::new(&sc).unwrap();
    off.net.seal(0);
    off.net.prefetch = false;
    off.step_until(sc.duration);
    off.net.settle_all(off.q.now());
    assert_eq!(on.q.events_processed(), off.q.events_processed());
    assert_eq!(on.net.packet_hops, off.net.packet_hops);
    let (a, b) = (on.results(), off.results());
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    assert_eq!(format!("{:?}", a.queues), format!("{:?}", b.queues));
}
