//! The standby port against strangers (issue #23, docs/standby.md): with
//! `--standby-key`, a connection that does not prove it holds the key gets no journal
//! byte and its `took_over` is not believed (the referee goes on); an observer without
//! the key is told why; an address beyond loopback needs a key; a line of 200 MB
//! without a newline costs the primary no memory.

mod serve_support;

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use serve_support::*;

/// A key file readable by its owner alone.
fn key_file(dir: &std::path::Path) -> String {
    let path = dir.join("standby.key");
    std::fs::write(&path, "c2VjcmV0LXN0YW5kYnkta2V5LWZvci10ZXN0cw==\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    path.to_str().unwrap().to_string()
}

#[test]
fn a_forged_took_over_without_the_key_is_ignored_and_the_referee_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let ev = dir.path().join("ev");
    let key = key_file(dir.path());
    let standby = format!("127.0.0.1:{}", free_port());
    let primary = spawn(&[
        "serve",
        "--engine",
        "name=A",
        "movetime=10",
        "--engine",
        "name=B",
        "movetime=10",
        "--games",
        "2",
        "--tc",
        "60+1",
        "--standby-listen",
        &standby,
        "--standby-key",
        &key,
        "--unattended",
        "--plain",
        "--out",
        ev.to_str().unwrap(),
    ]);
    // A stranger says an observer took over, without the handshake. It reads the
    // primary's challenge first: the primary closes the connection on the answer that
    // is none, and a reset may then drop what the stranger had not read.
    let mut stranger = first_connection(&standby);
    stranger
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut hello = std::io::BufReader::new(stranger.try_clone().unwrap());
    let mut got = String::new();
    let _ = std::io::BufRead::read_line(&mut hello, &mut got);
    assert!(got.starts_with("{\"m\":\"hello\""), "{got}");
    stranger
        .write_all(b"{\"m\":\"took_over\",\"by\":\"a stranger\"}\n")
        .unwrap();
    let _ = hello.read_to_string(&mut got);
    assert!(
        !got.contains("\"lines\""),
        "the stranger was sent journals: {got}"
    );
    // An observer without the key is told it needs one, and follows nothing.
    let observer = spawn(&[
        "observe",
        &standby,
        "--out",
        dir.path().join("copy").to_str().unwrap(),
        "--unattended",
    ]);
    let observed = finish(observer, Duration::from_secs(20));
    assert_eq!(
        observed.status.code(),
        Some(1),
        "{}",
        text(&observed.stderr)
    );
    assert!(
        text(&observed.stderr).contains("--standby-key"),
        "{}",
        text(&observed.stderr)
    );
    assert!(!dir.path().join("copy/event.jsonl").exists());
    // The referee went on to the end of its event.
    let done = finish(primary, Duration::from_secs(120));
    assert_eq!(done.status.code(), Some(0), "{}", text(&done.stderr));
    assert!(
        text(&done.stdout).contains("2 of 2 game(s) played"),
        "{}",
        text(&done.stdout)
    );
    assert!(
        text(&done.stderr).contains("refused"),
        "{}",
        text(&done.stderr)
    );
}

#[test]
fn an_address_beyond_loopback_needs_a_key_and_a_short_key_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ev");
    let serve = |extra: &[&str]| {
        let mut args = vec![
            "serve",
            "--engine",
            "name=A",
            "--engine",
            "name=B",
            "--unattended",
            "--plain",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        argus(&args)
    };
    let open = serve(&["--standby-listen", "0.0.0.0:0"]);
    assert_eq!(open.status.code(), Some(1), "{}", text(&open.stderr));
    assert!(
        text(&open.stderr).contains("needs --standby-key FILE"),
        "{}",
        text(&open.stderr)
    );
    let short = dir.path().join("short.key");
    std::fs::write(&short, "abc\n").unwrap();
    let refused = serve(&["--standby-listen", "--standby-key", short.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused.stderr));
    assert!(
        text(&refused.stderr).contains("give at least 16"),
        "{}",
        text(&refused.stderr)
    );
}

/// The resident memory of process `pid`, its peak (VmHWM), in kB.
#[cfg(target_os = "linux")]
fn peak_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[test]
fn a_line_of_200_mb_on_the_standby_port_is_cut_off_and_costs_no_memory() {
    let dir = tempfile::tempdir().unwrap();
    let standby = format!("127.0.0.1:{}", free_port());
    // An open event waiting for its players: it runs until it is killed.
    let mut primary = spawn(&[
        "serve",
        "--seats",
        "2",
        "--listen",
        &format!("127.0.0.1:{}", free_port()),
        "--standby-listen",
        &standby,
        "--unattended",
        "--plain",
        "--out",
        dir.path().join("ev").to_str().unwrap(),
    ]);
    let mut stream = first_connection(&standby);
    stream
        .set_write_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let chunk = vec![b'x'; 1024 * 1024];
    let (mut sent, total) = (0usize, 200 * 1024 * 1024);
    let began = Instant::now();
    while sent < total && began.elapsed() < Duration::from_secs(60) {
        match stream.write(&chunk) {
            Ok(n) => sent += n,
            Err(_) => break,
        }
    }
    assert!(
        sent < 16 * 1024 * 1024,
        "the standby port took {} MB of one line",
        sent / (1024 * 1024)
    );
    assert!(primary.try_wait().unwrap().is_none(), "the primary died");
    #[cfg(target_os = "linux")]
    {
        let peak = peak_kb(primary.id());
        assert!(peak < 100 * 1024, "the primary's peak memory is {peak} kB");
    }
}
