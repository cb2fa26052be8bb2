/work/wt-int/target-ci2/ci/deps/toml_datetime-d5c7b9155985e5df.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/toml_datetime-0.6.11/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/toml_datetime-0.6.11/src/datetime.rs

/work/wt-int/target-ci2/ci/deps/libtoml_datetime-d5c7b9155985e5df.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/toml_datetime-0.6.11/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/toml_datetime-0.6.11/src/datetime.rs

/work/wt-int/target-ci2/ci/deps/libtoml_datetime-d5c7b9155985e5df.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/toml_datetime-0.6.11/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/toml_datetime-0.6.11/src/datetime.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/toml_datetime-0.6.11/src/lib.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/toml_datetime-0.6.11/src/datetime.rs:
