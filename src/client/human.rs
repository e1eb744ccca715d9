//! A person at the keyboard as a player: shows the board and both clocks, reads a move
//! in SAN or coordinates, asks again when it is not legal, and takes `draw`, `accept`,
//! `claim` and `resign`.
//!
//! The terminal is plain lines in and out, so it works the same in a console, over ssh
//! and on Windows; the tests drive it through a pty. The keyboard is read on a thread of
//! its own, so that the client can leave (on `disconnect`, or Ctrl-C) while a person is
//! still thinking.

use std::io::{self, BufRead, Write};

use crossbeam_channel::Receiver;

use shakmaty::{Chess, Color, File, Position, Rank, Square};

use super::{Decision, Engine, EngineError, Stop, Turn};
use crate::core::pgn::format_clk;
use crate::epd::{MoveError, resolve_move};

/// A person typing moves.
pub struct HumanEngine {
    /// The lines typed; closed at the end of the input.
    input: Receiver<io::Result<String>>,
    output: Box<dyn Write + Send>,
    name: String,
    stop: Option<Stop>,
}

const HELP: &str = "Type a move (e4, Nf3, O-O, e7e8Q or e2e4). Add \"draw\" after a move to \
offer a draw with it (e4 draw). Other commands: accept (a draw offered to you), claim (a \
draw by repetition or the fifty-move rule), resign, help.";

impl HumanEngine {
    /// A player reading `input` and writing to `output` (standard input and output for
    /// `argus client --engine human`).
    pub fn new(
        name: &str,
        mut input: Box<dyn BufRead + Send>,
        output: Box<dyn Write + Send>,
    ) -> HumanEngine {
        let (tx, lines) = crossbeam_channel::unbounded();
        let spawned = std::thread::Builder::new()
            .name("argus-keyboard".into())
            .spawn(move || {
                loop {
                    let mut line = String::new();
                    match input.read_line(&mut line) {
                        Ok(0) => return,
                        Ok(_) => {
                            if tx.send(Ok(line)).is_err() {
                                return;
                            }
                        }
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            return;
                        }
                    }
                }
            });
        if let Err(e) = spawned {
            // The input reads as closed.
            log::error!("cannot read the keyboard: {e}");
        }
        HumanEngine {
            input: lines,
            output,
            name: name.to_string(),
            stop: None,
        }
    }

    fn say(&mut self, text: &str) -> Result<(), EngineError> {
        writeln!(self.output, "{text}")
            .and_then(|()| self.output.flush())
            .map_err(|e| EngineError::Failed(format!("the terminal: {e}")))
    }

    fn ask(&mut self, prompt: &str) -> Result<String, EngineError> {
        write!(self.output, "{prompt}")
            .and_then(|()| self.output.flush())
            .map_err(|e| EngineError::Failed(format!("the terminal: {e}")))?;
        let stop = self
            .stop
            .as_ref()
            .map_or_else(crossbeam_channel::never, |s| s.fired().clone());
        crossbeam_channel::select! {
            recv(self.input) -> line => match line {
                Ok(Ok(line)) => Ok(line.trim().to_string()),
                Ok(Err(e)) => Err(EngineError::Failed(format!("the terminal: {e}"))),
                Err(_) => Err(EngineError::Failed("the terminal closed".into())),
            },
            recv(stop) -> _ => Err(EngineError::Interrupted),
        }
    }
}

/// The board as text, White at the bottom, with file and rank labels.
pub fn board_text(pos: &Chess) -> String {
    let mut text = String::new();
    for rank in (0..8).rev() {
        text.push_str(&format!("  {} ", rank + 1));
        for file in 0..8 {
            let sq = Square::from_coords(File::new(file), Rank::new(rank));
            let c = pos.board().piece_at(sq).map_or('.', |p| p.char());
            text.push(' ');
            text.push(c);
        }
        text.push('\n');
    }
    text.push_str("     a b c d e f g h");
    text
}

impl Engine for HumanEngine {
    fn name(&self) -> String {
        self.name.clone()
    }

    /// Any variant: its moves are the position's legal moves (castling read as SAN's
    /// `O-O`, or as the king's move or the king taking its rook).
    fn set_variant(&mut self, _variant: crate::core::Variant) -> Result<(), EngineError> {
        Ok(())
    }

    fn new_game(&mut self) -> Result<(), EngineError> {
        self.say("A new game begins.")
    }

    fn think(&mut self, turn: &Turn<'_>) -> Result<Decision, EngineError> {
        let pos = turn.position;
        let me = pos.turn();
        let mut screen = format!("\n{}\n", board_text(pos));
        if let Some(clocks) = &turn.clocks {
            screen.push_str(&format!(
                "White {}   Black {}\n",
                format_clk(clocks.remaining.white),
                format_clk(clocks.remaining.black)
            ));
        }
        if turn.draw_offered {
            screen.push_str("Your opponent offers a draw: type accept, or play on.\n");
        }
        self.say(&screen)?;
        let side = if me == Color::White { "White" } else { "Black" };
        loop {
            let line = self.ask(&format!("{side} to move> "))?;
            let mut words = line.split_whitespace();
            let Some(first) = words.next() else { continue };
            let rest: Vec<&str> = words.collect();
            match first.to_ascii_lowercase().as_str() {
                "help" | "?" => {
                    self.say(HELP)?;
                    continue;
                }
                "resign" => return Ok(Decision::Resign),
                "accept" if turn.draw_offered => return Ok(Decision::AcceptDraw),
                "accept" => {
                    self.say("No draw has been offered to you.")?;
                    continue;
                }
                "claim" => return Ok(Decision::ClaimDraw),
                _ => {}
            }
            match resolve_move(pos, first) {
                Ok(mv) => {
                    let offer_draw = rest.iter().any(|w| w.eq_ignore_ascii_case("draw"));
                    let claim_draw = rest.iter().any(|w| w.eq_ignore_ascii_case("claim"));
                    return Ok(Decision::Move {
                        mv,
                        offer_draw,
                        claim_draw,
                        analysis: Vec::new(),
                    });
                }
                Err(MoveError::Ambiguous(_)) => {
                    self.say(&format!("{first} could be more than one move; say which."))?;
                }
                Err(_) => {
                    self.say(&format!(
                        "{first} is not a legal move here. Type help for how to enter moves."
                    ))?;
                }
            }
        }
    }

    fn game_over(&mut self, result: Option<&str>) {
        let _ = self.say(&format!("The game is over: {}.", result.unwrap_or("*")));
    }

    fn watch(&mut self, stop: &Stop) {
        self.stop = Some(stop.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Screen(Arc<Mutex<Vec<u8>>>);

    impl Write for Screen {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn turn_with(pos: &Chess, offered: bool) -> Turn<'_> {
        Turn {
            position: pos,
            start: pos,
            moves: &[],
            history: 0,
            clocks: None,
            draw_offered: offered,
        }
    }

    #[test]
    fn an_illegal_move_is_asked_again_then_a_move_with_a_draw_offer() {
        let screen = Screen::default();
        let input = Cursor::new(b"e5\n\nNf3 draw\n".to_vec());
        let mut human = HumanEngine::new("Ann", Box::new(input), Box::new(screen.clone()));
        let pos = Chess::default();
        let decision = human.think(&turn_with(&pos, false)).unwrap();
        let Decision::Move { mv, offer_draw, .. } = decision else {
            panic!("{decision:?}")
        };
        assert_eq!(mv.to_string(), "Ng1-f3");
        assert!(offer_draw);
        let text = String::from_utf8(screen.0.lock().unwrap().clone()).unwrap();
        assert!(text.contains("e5 is not a legal move here"), "{text}");
        assert!(text.contains("  1  R N B Q K B N R"), "{text}");
    }

    #[test]
    fn accept_resign_and_the_end_of_input() {
        let pos = Chess::default();
        let mut human = HumanEngine::new(
            "Ann",
            Box::new(Cursor::new(b"accept\naccept\nresign\n".to_vec())),
            Box::new(Screen::default()),
        );
        // Nothing offered: asked again, and "resign" is taken.
        assert_eq!(
            human.think(&turn_with(&pos, false)).unwrap(),
            Decision::Resign
        );
        let mut human = HumanEngine::new(
            "Ann",
            Box::new(Cursor::new(b"accept\n".to_vec())),
            Box::new(Screen::default()),
        );
        assert_eq!(
            human.think(&turn_with(&pos, true)).unwrap(),
            Decision::AcceptDraw
        );
        assert!(human.think(&turn_with(&pos, true)).is_err());
    }

    #[test]
    #[cfg(unix)]
    fn a_stop_ends_the_wait_for_the_keyboard() {
        // A keyboard nobody types on.
        let (_keep, reader) = std::os::unix::net::UnixStream::pair().unwrap();
        let mut human = HumanEngine::new(
            "Ann",
            Box::new(std::io::BufReader::new(reader)),
            Box::new(Screen::default()),
        );
        let stop = Stop::new();
        human.watch(&stop);
        let other = stop.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            other.fire(super::super::StopReason::Interrupted);
        });
        let pos = Chess::default();
        assert!(matches!(
            human.think(&turn_with(&pos, false)),
            Err(EngineError::Interrupted)
        ));
    }
}
