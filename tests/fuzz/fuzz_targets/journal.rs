//! Fuzz target `journal`: any file handed to `argus replay` or `argus serial --resume`
//! gives a replay, a rebuilt match or an error, never a panic.
//!
//! The input is written to a file of this process, and a copy of it (`rebuild` cuts a
//! last line short off its file), and both are read by the journal's public functions.
//! The seeds hold a real journal of a demo game and small variations of it. The two
//! files (a few KB in /dev/shm) stay behind when the process ends: libFuzzer leaves by
//! `exit`, which runs no destructor.

#![no_main]

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;

/// The two files of this process: one for `replay`, one for `rebuild`; in memory where
/// the system has a tmpfs at /dev/shm (a file written twice a run costs most of a run).
static FILES: LazyLock<[PathBuf; 2]> = LazyLock::new(|| {
    let shm = Path::new("/dev/shm");
    let dir = if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let pid = std::process::id();
    ["replay", "rebuild"].map(|what| dir.join(format!("argus-fuzz-{pid}-{what}.jsonl")))
});

fuzz_target!(|data: &[u8]| {
    let [for_replay, for_rebuild] = &*FILES;
    std::fs::write(for_replay, data).expect("write the journal");
    std::fs::write(for_rebuild, data).expect("write its copy");
    read_journal(for_replay, for_rebuild);
});

/// The journal's whole public reading interface; the one place to adapt when the
/// signatures of `replay` and `rebuild` change. Errors are fine; panics are findings.
fn read_journal(for_replay: &Path, for_rebuild: &Path) {
    let _ = argus::mediator::journal::replay(for_replay);
    if let Ok(mut rebuilt) = argus::mediator::journal::rebuild(for_rebuild) {
        // The resumed session's first input, as the mediator feeds it.
        let at = rebuilt.takeover.at;
        rebuilt.referee.handle(argus::core::Input::Resume { at });
        while rebuilt.referee.poll_output().is_some() {}
    }
}
