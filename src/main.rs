//! The `argus` binary: logging set up, the command line parsed, and each subcommand
//! handed to its room under `commands/`. Errors are reported here, in one line that
//! names the culprit, and become the exit code.

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

use argus::cli::{Cli, Command, Typed};

mod commands;
mod logging;

/// Reports a command-line error in one line that names the culprit (help and version
/// are printed as they are).
fn usage_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion)
        || matches!(
            e.kind(),
            ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
        )
    {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    // For a missing argument clap puts the culprit on the second line; join them.
    let text = e.render().to_string();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("error: bad arguments");
    if e.kind() == ErrorKind::MissingRequiredArgument {
        let missing: Vec<&str> = lines
            .take_while(|l| l.starts_with('<') || l.starts_with("--"))
            .collect();
        eprintln!("{first} {}", missing.join(" "));
    } else if let Some(hint) = argus::cli::config_hint(e) {
        // With several culprits clap ends the line with a colon and lists them below:
        // name them on the line.
        let culprits: Vec<&str> = lines
            .take_while(|l| l.starts_with('<') || l.starts_with('[') || l.starts_with("--"))
            .collect();
        if let Some(head) = first.strip_suffix(':') {
            eprintln!("{head} {}: {hint}", culprits.join(" and "));
        } else {
            eprintln!("{first}: {hint}");
        }
    } else {
        eprintln!("{first}");
    }
    ExitCode::from(2)
}

/// glibc gives threads malloc arenas of their own, up to eight per core: `argus serve`
/// runs three threads a game, and each arena holds memory of its own (about 2 MB more
/// peak RSS at 8 games at once). As many arenas as cores keep the threads from waiting
/// for each other's, since no more of them run at once. Before any thread starts; the
/// environment's `MALLOC_ARENA_MAX` wins.
fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let arenas = libc::c_int::try_from(cores).unwrap_or(libc::c_int::MAX);
        // SAFETY: mallopt only sets a tunable of the allocator; no thread has started.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, arenas);
        }
    }
}

fn main() -> ExitCode {
    limit_malloc_arenas();
    logging::init();
    // Started as fastchess or cutechess-cli (a symlink or a copy under its name): that
    // program's command line.
    let mut argv = std::env::args_os();
    let started_as = argv
        .next()
        .as_deref()
        .and_then(|a| std::path::Path::new(a).file_stem())
        .map(|s| s.to_string_lossy().into_owned());
    if let Some(dialect) = started_as
        .as_deref()
        .and_then(commands::dialect::dialect_of)
    {
        let words: Vec<String> = argv.map(|a| a.to_string_lossy().into_owned()).collect();
        return report(commands::dialect::dialect_cmd(dialect, &words));
    }
    // Parsed in two steps to keep the matches: `--resume` needs to know which options
    // were typed, not defaulted.
    let matches = match Cli::command().try_get_matches() {
        Ok(matches) => matches,
        Err(e) => return usage_error(&e),
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e.format(&mut Cli::command())),
    };
    let result = match cli.command {
        Command::Serial(args) => commands::serial::serial_cmd(
            *args,
            &Typed::from_matches(matches.subcommand_matches("serial")),
        ),
        Command::Serve(args) => {
            commands::serve::serve_cmd(*args, matches.subcommand_matches("serve"))
        }
        Command::Client(args) => commands::client::client_cmd(args),
        Command::Observe(args) => commands::observe::observe_cmd(args),
        Command::Demo(args) => commands::demo::demo_cmd(args),
        Command::Replay(args) => commands::replay::replay_cmd(args),
        Command::Epd(command) => commands::epd::epd_cmd(command),
        Command::Wire(args) => commands::field::wire_cmd(args),
        Command::CableTest(args) => commands::field::cable_test_cmd(args),
        Command::Ports => commands::field::ports_cmd(),
        Command::Fastchess(args) => {
            commands::dialect::dialect_cmd(argus::cli::dialect::Dialect::Fastchess, &args.words)
        }
        Command::CutechessCli(args) => {
            commands::dialect::dialect_cmd(argus::cli::dialect::Dialect::Cutechess, &args.words)
        }
    };
    report(result)
}

/// The exit code of a subcommand's result, its error reported in one line.
fn report(result: anyhow::Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", one_line(&e));
            ExitCode::FAILURE
        }
    }
}

/// An error and its causes on one line, each cause once: errors that already name their
/// cause in their own message are not followed by it again.
fn one_line(error: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if !line.contains(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
    }
    line
}
