//! The subcommands of the `argus` binary, one room each: what was typed (the library's
//! `cli`) resolved and run. The helpers more than one of them uses are named modules
//! here: the views, the interrupts, the standby stream, the engines an `--engine` word
//! names.

pub(crate) mod client;
pub(crate) mod demo;
pub(crate) mod dialect;
pub(crate) mod engines;
pub(crate) mod epd;
pub(crate) mod field;
pub(crate) mod interrupt;
pub(crate) mod observe;
pub(crate) mod replay;
pub(crate) mod serial;
pub(crate) mod serve;
pub(crate) mod standby;
pub(crate) mod views;

/// Today's date for a PGN header (`2026.11.28`) and a stamp for a file name
/// (`20261128-161819`), in UTC.
pub(crate) fn today() -> (String, String) {
    let now = time::OffsetDateTime::now_utc();
    let date = format!(
        "{:04}.{:02}.{:02}",
        now.year(),
        u8::from(now.month()),
        now.day()
    );
    let stamp = format!(
        "{:04}{:02}{:02}-{:02}{:02}{:02}",
        now.year(),
        u8::from(now.month()),
        now.day(),
        now.hour(),
        now.minute(),
        now.second()
    );
    (date, stamp)
}
