//! The tools for the day of an event: `argus wire` (a line simulator), `argus
//! cable-test` and `argus ports`.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};
use argus::cli::{CableTestArgs, WireArgs};
use argus::field::{cable_test, ports, wire};
use argus::transport::serial;

/// `argus wire`: relays two ports at the byte timing of a real line, with noise, until
/// Ctrl-C.
pub(crate) fn wire_cmd(args: WireArgs) -> Result<ExitCode> {
    let settings = args.line.settings();
    let open = |path: &str| {
        serial::open(path, &settings).with_context(|| format!("cannot open port {path}"))
    };
    let (a, b) = (open(&args.port_a)?, open(&args.port_b)?);
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst))
        .context("cannot install the interrupt handler")?;
    let options = wire::WireOptions {
        settings: settings.clone(),
        noise: args.noise,
        seed: args.seed,
    };
    println!(
        "argus wire: {} <-> {} at {settings}, noise {}; Ctrl-C to stop",
        args.port_a, args.port_b, args.noise
    );
    let stats = wire::run(a, b, &options, &stop)?;
    println!(
        "argus wire: {} bytes a->b ({} corrupted), {} bytes b->a ({} corrupted)",
        stats.bytes[0], stats.corrupted[0], stats.bytes[1], stats.corrupted[1]
    );
    Ok(ExitCode::SUCCESS)
}

/// `argus cable-test`: a cable between two ports, or one port with a loopback plug.
pub(crate) fn cable_test_cmd(args: CableTestArgs) -> Result<ExitCode> {
    let settings = args.line.settings();
    let bytes = args
        .bytes
        .unwrap_or_else(|| cable_test::default_bytes(&settings));
    let open = |path: &str| {
        serial::open(path, &settings).with_context(|| format!("cannot open port {path}"))
    };
    let report = match &args.port_b {
        Some(port_b) if !args.loopback => cable_test::test_pair(
            open(&args.port_a)?,
            open(port_b)?,
            [&args.port_a, port_b],
            &settings,
            bytes,
        )?,
        _ => cable_test::test_loopback(open(&args.port_a)?, &args.port_a, &settings, bytes)?,
    };
    println!("{report}");
    Ok(if report.is_clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `argus ports`: the serial ports of this machine, a line each.
pub(crate) fn ports_cmd() -> Result<ExitCode> {
    let ports = ports::list().context("cannot list the serial ports")?;
    if ports.is_empty() {
        println!(
            "no serial ports found on this machine (plug in a USB adapter, or check that the built-in port is enabled in the BIOS)"
        );
    }
    for port in ports {
        println!("{port}");
    }
    Ok(ExitCode::SUCCESS)
}
