//! The binary's logger: env_logger's lines on standard error (`warning: ...`, one line
//! each, as argus's other lines read), the findings of the engines' PV checks (`argus
//! fastchess`, log target [`argus::client::uci::pv_check::TARGET`]) on standard output as
//! they are, as fastchess prints them, and, when a match asks for one (fastchess's
//! `-log`), a log file.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::{Mutex, OnceLock, PoisonError};

use argus::client::uci::pv_check::TARGET as ENGINE_CHECK;

/// The log file a match asked for: where, from which level, and whether every line to
/// and from the engines goes there too.
struct LogFile {
    file: Mutex<File>,
    level: log::LevelFilter,
    engines: bool,
}

static LOG_FILE: OnceLock<LogFile> = OnceLock::new();

/// The log targets of the lines sent to and read from an engine.
const ENGINE_LINES: [&str; 2] = [
    "argus::client::engine_process",
    "argus::client::engine_output",
];

struct Logger(env_logger::Logger);

impl Logger {
    /// Whether the log file takes `metadata`'s record.
    fn to_file(metadata: &log::Metadata<'_>) -> bool {
        LOG_FILE.get().is_some_and(|f| {
            metadata.level() <= f.level
                || (f.engines
                    && metadata.level() <= log::Level::Debug
                    && ENGINE_LINES.contains(&metadata.target()))
        })
    }
}

impl log::Log for Logger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.target() == ENGINE_CHECK || self.0.enabled(metadata) || Logger::to_file(metadata)
    }

    fn log(&self, record: &log::Record<'_>) {
        if record.target() == ENGINE_CHECK {
            println!("{}", record.args());
        } else if self.0.matches(record) {
            self.0.log(record);
        }
        if Logger::to_file(record.metadata())
            && let Some(f) = LOG_FILE.get()
        {
            let now = time::OffsetDateTime::now_utc();
            let mut file = f.file.lock().unwrap_or_else(PoisonError::into_inner);
            let _ = writeln!(
                file,
                "[{:02}:{:02}:{:02}.{:03}] {:<5} {}",
                now.hour(),
                now.minute(),
                now.second(),
                now.millisecond(),
                record.level(),
                record.args()
            );
            let _ = file.flush();
        }
    }

    fn flush(&self) {
        self.0.flush();
    }
}

/// Installs the logger (once, before anything logs).
pub(crate) fn init() {
    let logger =
        env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
            .format(|buf, record| {
                let level = match record.level() {
                    log::Level::Error => "error",
                    log::Level::Warn => "warning",
                    log::Level::Info => "info",
                    log::Level::Debug => "debug",
                    log::Level::Trace => "trace",
                };
                writeln!(buf, "{level}: {}", record.args())
            })
            .build();
    let max = logger.filter().max(log::LevelFilter::Warn);
    if log::set_boxed_logger(Box::new(Logger(logger))).is_ok() {
        log::set_max_level(max);
    }
}

/// Writes the log to `path` too, from `level` on (appended to unless `append` is
/// false), with every line to and from the engines when `engines`.
///
/// # Errors
///
/// The file cannot be opened; a log file was set already.
pub(crate) fn to_file(
    path: &Path,
    level: log::LevelFilter,
    append: bool,
    engines: bool,
) -> std::io::Result<()> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(append)
        .truncate(!append)
        .open(path)?;
    let wanted = if engines {
        level.max(log::LevelFilter::Debug)
    } else {
        level
    };
    LOG_FILE
        .set(LogFile {
            file: Mutex::new(file),
            level,
            engines,
        })
        .map_err(|_| std::io::Error::other("a log file is set already"))?;
    log::set_max_level(log::max_level().max(wanted));
    Ok(())
}
