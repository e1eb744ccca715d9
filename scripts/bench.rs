//! Placeholder replaced by the benchmark below.
fn main() {}
