/work/wt-int/target-ci2/ci/deps/equivalent-241262fa6f5f1c02.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/equivalent-1.0.3/src/lib.rs

/work/wt-int/target-ci2/ci/deps/libequivalent-241262fa6f5f1c02.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/equivalent-1.0.3/src/lib.rs

/work/wt-int/target-ci2/ci/deps/libequivalent-241262fa6f5f1c02.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/equivalent-1.0.3/src/lib.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/equivalent-1.0.3/src/lib.rs:
