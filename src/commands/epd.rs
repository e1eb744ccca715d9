//! `argus epd`: the EPD file tools (check, normalize, purge) on files or standard
//! input and output.

use std::fs;
use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use argus::cli::EpdCommand;
use argus::epd::tools;

/// The input file named (standard input for none or `-`).
fn open_input(path: Option<&Path>) -> Result<Box<dyn io::BufRead>> {
    Ok(match path {
        None => Box::new(io::stdin().lock()),
        Some(p) if p.as_os_str() == "-" => Box::new(io::stdin().lock()),
        Some(p) => Box::new(io::BufReader::new(
            fs::File::open(p).with_context(|| format!("cannot read {}", p.display()))?,
        )),
    })
}

/// The output file named, made anew (standard output for none).
fn open_output(path: Option<&Path>) -> Result<Box<dyn io::Write>> {
    Ok(match path {
        None => Box::new(io::BufWriter::new(io::stdout().lock())),
        Some(p) => Box::new(io::BufWriter::new(
            fs::File::create(p).with_context(|| format!("cannot write {}", p.display()))?,
        )),
    })
}

/// `argus epd`: one of the file tools, then a line of what it found (the errors first,
/// with their line numbers).
pub(crate) fn epd_cmd(command: EpdCommand) -> Result<ExitCode> {
    let (summary, what) = match command {
        EpdCommand::Check { file } => {
            let summary = tools::check(open_input(file.as_deref())?, usize::MAX)?;
            (summary, "checked")
        }
        EpdCommand::Normalize {
            input,
            output,
            keep_invalid,
        } => {
            let mut out = open_output(output.as_deref())?;
            let summary = tools::normalize(open_input(input.as_deref())?, &mut out, keep_invalid)?;
            out.flush()?;
            (summary, "normalized")
        }
        EpdCommand::Purge {
            opcode,
            input,
            output,
        } => {
            let mut out = open_output(output.as_deref())?;
            let summary = tools::purge(open_input(input.as_deref())?, &mut out, &opcode)?;
            out.flush()?;
            (summary, "purged")
        }
    };
    for error in &summary.errors {
        eprintln!("{error}");
    }
    eprintln!(
        "argus epd: {} record(s) {what}, {} invalid, {} line(s) skipped",
        summary.records, summary.invalid, summary.skipped
    );
    Ok(if summary.is_clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
