//! The supervisor's full-screen view in the terminal (`argus serial` and `argus serve`
//! attended in a terminal): the selected game's board with its last move marked, both
//! clocks ticking, names, the moves in SAN, the engines' evaluations, depths and PVs;
//! every game of the round with its result, the standings; the log of what argus
//! prints (noise, faults, lost lines, the answers to commands); and the console line,
//! with history and editing. Drawn with ratatui on crossterm.
//!
//! [`View::start`] turns the terminal over to the view until the [`View`] is dropped;
//! while it is up, what argus writes on standard output and error goes to the log
//! instead of the screen (Unix only: elsewhere [`wanted`] says no, and argus prints its
//! plain lines). The terminal is given back however argus ends: at the end of the run,
//! on an error (the `View` is dropped), on a panic (a hook), and on a second Ctrl-C
//! that exits at once ([`restore`], which the interrupt handlers call).

#[cfg(unix)]
mod capture;
pub mod render;
pub mod state;

use std::io::{self, IsTerminal as _};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
#[cfg(unix)]
use std::time::{SystemTime, UNIX_EPOCH};

use crossbeam_channel::Receiver;

use super::live::Live;
pub use state::{Action, Screen};

/// What the console does with a line typed in the view (parse it as a command and
/// act; what it prints reaches the log).
pub type OnLine = Box<dyn FnMut(&str, Option<u32>) + Send>;

/// Whether to show the view: not with `--plain` (`plain`), and only where it can be
/// shown: on Unix, when standard input and output are both a terminal, TERM names one
/// that is not `dumb`, and that terminal is no serial console (a VT100 on a serial
/// line is argus's supervisor too, and gets the plain lines).
pub fn wanted(plain: bool) -> bool {
    if plain || !cfg!(unix) {
        return false;
    }
    if !io::stdout().is_terminal() || !io::stdin().is_terminal() {
        return false;
    }
    if !std::env::var("TERM").is_ok_and(|t| !t.is_empty() && t != "dumb") {
        return false;
    }
    !terminal_name().is_some_and(|name| is_serial_console(&name))
}

/// The name of the terminal on standard output (`/dev/pts/3`).
fn terminal_name() -> Option<String> {
    #[cfg(unix)]
    {
        let mut buf = [0 as libc::c_char; 256];
        // SAFETY: ttyname_r writes at most buf.len() bytes, NUL included.
        let ok = unsafe { libc::ttyname_r(1, buf.as_mut_ptr(), buf.len()) } == 0;
        if ok {
            // SAFETY: on success the buffer holds a NUL-terminated string.
            let name = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
            return Some(name.to_string_lossy().into_owned());
        }
    }
    None
}

/// Whether a terminal's device is a serial line (`/dev/ttyS0`, `/dev/ttyUSB0`,
/// `/dev/ttyAMA0`, ...), not a console or a pseudo-terminal.
pub fn is_serial_console(device: &str) -> bool {
    let name = device.rsplit('/').next().unwrap_or(device);
    [
        "ttyS", "ttyUSB", "ttyACM", "ttyAMA", "ttymxc", "ttySAC", "ttyO", "cu.",
    ]
    .iter()
    .any(|prefix| {
        name.strip_prefix(prefix).is_some_and(|rest| {
            prefix.ends_with('.') || rest.starts_with(|c: char| c.is_ascii_digit())
        })
    })
}

/// The view's hold on the terminal: what [`restore`] gives back.
struct Hold {
    #[cfg(unix)]
    capture: capture::Capture,
    tty: std::fs::File,
}

static HOLD: Mutex<Option<Hold>> = Mutex::new(None);

/// Gives the terminal back as it was before the view: the main screen, the cursor,
/// cooked mode, and standard output and error. Does nothing when the view is not up;
/// safe to call from any thread, more than once.
pub fn restore() {
    let hold = HOLD.lock().unwrap_or_else(PoisonError::into_inner).take();
    if let Some(mut hold) = hold {
        use crossterm::{cursor, execute, terminal};
        let _ = execute!(
            hold.tty,
            crossterm::event::DisableBracketedPaste,
            terminal::LeaveAlternateScreen,
            cursor::Show
        );
        let _ = terminal::disable_raw_mode();
        #[cfg(unix)]
        hold.capture.restore();
    }
}

#[cfg(unix)]
fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The view while it is up; dropping it ends the view and gives the terminal back.
pub struct View {
    stop: Arc<AtomicBool>,
    /// The view's thread, which hands back the last lines of its log.
    thread: Option<JoinHandle<Vec<String>>>,
    lines: Receiver<String>,
}

impl View {
    /// Takes the terminal over and shows `live`; `title` is the top line, `commands`
    /// the console's commands, and `on_line` runs each line typed. Ctrl-C in the view
    /// raises SIGINT, so it does what it does without the view.
    ///
    /// # Errors
    ///
    /// When the terminal cannot be set up (the terminal is then as it was).
    #[cfg(unix)]
    pub fn start(
        live: Arc<Live>,
        title: &str,
        commands: &str,
        on_line: OnLine,
    ) -> io::Result<View> {
        use crossterm::{execute, terminal};
        use ratatui::Terminal;
        use ratatui::backend::CrosstermBackend;

        static HOOK: std::sync::Once = std::sync::Once::new();
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                restore();
                previous(info);
            }));
        });
        let (capture, mut tty, lines) = capture::Capture::start()?;
        let setup = (|| {
            terminal::enable_raw_mode()?;
            execute!(
                tty,
                terminal::EnterAlternateScreen,
                crossterm::event::EnableBracketedPaste
            )?;
            tty.try_clone()
        })();
        *HOLD.lock().unwrap_or_else(PoisonError::into_inner) = Some(Hold {
            capture,
            tty: tty.try_clone()?,
        });
        let terminal = match setup
            .and_then(|out| Terminal::new(CrosstermBackend::new(io::BufWriter::new(out))))
        {
            Ok(terminal) => terminal,
            Err(e) => {
                restore();
                return Err(e);
            }
        };
        let stop = Arc::new(AtomicBool::new(false));
        let screen = Screen::new(title, commands);
        let thread = {
            let (stop, lines) = (Arc::clone(&stop), lines.clone());
            std::thread::Builder::new()
                .name("argus-view".into())
                .spawn(
                    move || match run(terminal, &live, screen, &lines, &stop, on_line) {
                        Ok(last) => last,
                        Err(e) => {
                            restore();
                            log::warn!(
                                "the terminal view stopped ({e}); the console reads no more"
                            );
                            Vec::new()
                        }
                    },
                )?
        };
        Ok(View {
            stop,
            thread: Some(thread),
            lines,
        })
    }

    /// Not on this system: argus prints its plain lines.
    ///
    /// # Errors
    ///
    /// Always.
    #[cfg(not(unix))]
    pub fn start(_: Arc<Live>, _: &str, _: &str, _: OnLine) -> io::Result<View> {
        Err(io::Error::other("no terminal view on this system"))
    }
}

impl Drop for View {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let last = self
            .thread
            .take()
            .and_then(|thread| thread.join().ok())
            .unwrap_or_default();
        restore();
        // The last lines of the log stay on the terminal, and what was printed after
        // the view's last frame (the lines that end a run) follows them.
        for line in last {
            println!("{line}");
        }
        let deadline = Instant::now() + Duration::from_millis(200);
        while let Ok(line) = self.lines.recv_deadline(deadline) {
            println!("{line}");
        }
    }
}

/// How many of the log's last lines are printed when the view closes.
pub const LINES_KEPT: usize = 20;

/// The view's loop: a frame every 100 ms (the clocks tick by tenths), and the keys;
/// returns the log's last lines.
#[cfg(unix)]
fn run<B: ratatui::backend::Backend>(
    mut terminal: ratatui::Terminal<B>,
    live: &Live,
    mut screen: Screen,
    lines: &Receiver<String>,
    stop: &AtomicBool,
    mut on_line: OnLine,
) -> io::Result<Vec<String>>
where
    B::Error: Into<io::Error>,
{
    use crossterm::event::{self, Event};
    let (_, mut updates) = live.subscribe();
    screen.refresh(live);
    while !stop.load(Ordering::SeqCst) {
        while let Ok(line) = lines.try_recv() {
            screen.print(&line);
        }
        let mut changed = false;
        loop {
            match updates.try_recv() {
                Ok(_) => changed = true,
                Err(crossbeam_channel::TryRecvError::Empty) => break,
                Err(crossbeam_channel::TryRecvError::Disconnected) => {
                    // Let go for falling behind: take the model afresh.
                    updates = live.subscribe().1;
                    changed = true;
                    break;
                }
            }
        }
        if changed {
            screen.refresh(live);
        }
        terminal
            .draw(|frame| render::draw(frame, &screen, now_ms()))
            .map_err(Into::into)?;
        let mut wait = Duration::from_millis(100);
        while event::poll(wait)? {
            wait = Duration::ZERO;
            match event::read()? {
                Event::Key(key) => match screen.key(key) {
                    Action::Command(line) => on_line(&line, screen.selected().map(|g| g.number)),
                    Action::Interrupt => interrupt(),
                    Action::Redraw => terminal.clear().map_err(Into::into)?,
                    Action::None => {}
                },
                Event::Paste(text) => {
                    for c in text.chars().filter(|c| !c.is_control()) {
                        let key = event::KeyEvent::from(event::KeyCode::Char(c));
                        let _ = screen.key(key);
                    }
                }
                _ => {}
            }
        }
    }
    let log = screen.log();
    let skip = log.len().saturating_sub(LINES_KEPT);
    Ok(log.skip(skip).map(|line| line.text.clone()).collect())
}

/// Ctrl-C typed in the view: the terminal's raw mode sends it as a key, so the view
/// raises the signal itself, for the handler that is there without the view.
#[cfg(unix)]
fn interrupt() {
    // SAFETY: raise sends this process a signal that argus handles.
    unsafe {
        libc::raise(libc::SIGINT);
    }
}

#[cfg(test)]
mod tests;
