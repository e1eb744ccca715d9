//! The lines' first words: a line cut by the opening of a port, crossed and straight
//! cables, names the event does not give, and the probe of a silent port.

use super::*;

#[test]
fn a_line_cut_by_the_opening_of_a_port_is_not_noise() {
    let mut s = Script::new(config("60"));
    let noise = |s: &Script| {
        s.notices
            .iter()
            .filter(|n| matches!(n, Notice::Noise { .. }))
            .count()
    };
    // The tail of a line from before the referee opened its port.
    s.line(Port::A, 0, "QKq - refreq sign_o");
    assert_eq!(noise(&s), 0);
    s.line(Port::A, 10, &format!("{START} refreq sign_on;"));
    s.line(Port::A, 20, "garbage");
    assert_eq!(noise(&s), 1, "after a readable line, garbage is noise");
    // A resume opens the ports again.
    s.input(Input::Resume { at: ms(30) });
    s.line(Port::A, 40, "cut short");
    assert_eq!(noise(&s), 1);
    s.line(Port::A, 50, "cut short");
    assert_eq!(noise(&s), 2, "only the first line is forgiven");
}

#[test]
fn crossed_cables_are_followed_and_said() {
    let mut cfg = config("60");
    cfg.names = [Some("Stockfish".into()), Some("Fairymax".into())];
    let mut s = Script::new(cfg);
    sign_on_as(&mut s, Port::A, 0, "fairymax");
    sign_on_as(&mut s, Port::B, 10, "Stockfish");
    let text = said(&s).join("\n");
    assert!(text.contains("the cables are swapped"), "{text}");
    assert!(
        text.contains("game 1: Fairymax (White) vs Stockfish (Black)"),
        "the player on port a plays White under its own name: {text}"
    );
}

#[test]
fn a_name_the_event_gives_neither_port_is_a_warning() {
    let mut cfg = config("60");
    cfg.names = [Some("Stockfish".into()), Some("Fairymax".into())];
    let mut s = Script::new(cfg);
    sign_on_as(&mut s, Port::A, 0, "Stockfish");
    sign_on_as(&mut s, Port::B, 10, "GNU Chess");
    let text = said(&s).join("\n");
    assert!(!text.contains("swapped"), "{text}");
    assert!(
        text.contains("port b: signed on as \"GNU Chess\", a name the event gives neither port"),
        "{text}"
    );
    assert!(text.contains("game 1: Stockfish (White) vs Fairymax (Black)"));
}

#[test]
fn straight_cables_and_unnamed_events_say_nothing_more() {
    for names in [
        [Some("Ann".to_string()), Some("Bob".to_string())],
        [None, None],
    ] {
        let mut cfg = config("60");
        cfg.names = names;
        let mut s = Script::new(cfg);
        sign_on_as(&mut s, Port::A, 0, "Ann");
        sign_on_as(&mut s, Port::B, 10, "Bob");
        let text = said(&s).join("\n");
        assert!(
            !text.contains("cables") && !text.contains("neither"),
            "{text}"
        );
    }
}

#[test]
fn a_silent_port_is_probed_once_and_an_echo_names_the_miswiring() {
    let mut s = Script::new(config("60"));
    assert_eq!(s.referee.poll_timeout(), Some(cables::PROBE_AFTER));
    s.input(Input::Timeout {
        at: cables::PROBE_AFTER,
    });
    let sent = s.take();
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert!(sent[0].1.contains(cables::PROBE_REASON), "{sent:?}");
    assert_eq!(s.referee.poll_timeout(), None, "once");
    // Port a's probe arrives on port b: one cable.
    let probe_a = sent[0].1.clone();
    s.line(Port::B, 3100, &probe_a);
    assert!(
        said(&s)
            .iter()
            .any(|n| n.starts_with("ports a and b are the two ends of one cable"))
    );
    // Port b's probe arrives on port b: a loopback.
    let probe_b = sent[1].1.clone();
    s.notices.clear();
    s.line(Port::B, 3200, &probe_b);
    assert!(said(&s)[0].starts_with("port b: argus's own record came back"));
}

#[test]
fn a_port_that_signed_on_is_not_probed() {
    let mut s = Script::new(config("60"));
    s.line(Port::A, 0, &format!("{START} refreq sign_on;"));
    s.input(Input::Timeout {
        at: cables::PROBE_AFTER,
    });
    let sent = s.take();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0].0, Port::B);
}
