//! `argus demo`: a short match between two built-in random movers over pty pairs (in-memory
//! lines where there are no ptys: Windows).

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use argus::cli::DemoArgs;
use argus::client::random::RandomEngine;
use argus::client::{self, ClientOptions};
use argus::core::{DrawRule, GameReport, IllegalRule, MatchConfig, Notice, Referee};
use argus::mediator::journal::{self, Event, Journal};
use argus::mediator::{self, Eol, Line, PrintWatcher, Records, Watcher};
use argus::transport::{LOCAL_PAIRS, local_pair};
use argus::watch::feed::MatchFeed;
use argus::watch::live::Live;

use super::interrupt::interrupts;
use super::today;
use super::views::start_page;

/// `argus demo`: the match played, then a line a game and where its files are.
pub(crate) fn demo_cmd(args: DemoArgs) -> Result<ExitCode> {
    // The demo appends its games to the PGN file and writes a journal of its own, next
    // to it; it never replaces a file.
    let (date, stamp) = today();
    let stem = args
        .pgn
        .file_stem()
        .map_or_else(|| "argus-demo".into(), |s| s.to_string_lossy().into_owned());
    let journal_path = args.pgn.with_file_name(format!("{stem}-{stamp}.jsonl"));
    mediator::append_pgn(&args.pgn, "")?;
    let config = MatchConfig {
        event: "argus demo".into(),
        site: LOCAL_PAIRS.into(),
        date,
        round: None,
        names: [None, None],
        port_labels: ["pty-a".into(), "pty-b".into()],
        time_control: "120+1".parse()?,
        games: args.games,
        openings: Vec::new(),
        reset_delay: Duration::from_millis(300),
        conclude_delay: Duration::from_millis(300),
        draw_rule: DrawRule::Auto,
        illegal: IllegalRule::Loss,
        attended: false,
        hosted: false,
        time_margin: Default::default(),
        time_odds: Default::default(),
        keep_info: false,
        variant: Default::default(),
        wire: Default::default(),
    };
    let live = match &args.http {
        Some(addr) => {
            let live = Arc::new(Live::new());
            start_page(addr, &config.event, &config.site, Arc::clone(&live))?;
            Some(live)
        }
        None => None,
    };
    // Slow enough to follow on the page, when there is one.
    let think = Duration::from_millis(if live.is_some() { 400 } else { 15 });
    let referee = Referee::new(config.clone())?;
    let mut lines = Vec::new();
    let mut clients = Vec::new();
    for (i, name) in ["Random A", "Random B"].into_iter().enumerate() {
        let (referee_end, client_end, address) =
            local_pair(i).context("cannot make the demo's lines")?;
        let opts = ClientOptions {
            name: Some(name.to_string()),
            address,
            eol: Eol::Lf,
            checksum: true,
            token: None,
            restarts: None,
        };
        let duplex = client_end;
        clients.push(
            std::thread::Builder::new()
                .name(format!("argus-demo-client-{i}"))
                .spawn(move || {
                    let mut engine = RandomEngine::new(i as u64 + 1, think);
                    client::run(duplex, &mut engine, &opts)
                })?,
        );
        lines.push(Line {
            label: format!("pty-{i}"),
            wire: referee_end.into(),
            reopen: None,
        });
    }
    let mut journal = Journal::create(&journal_path)?;
    journal.write(&Event::Session {
        version: journal::VERSION,
        argus: env!("CARGO_PKG_VERSION").to_string(),
        started: journal::now_rfc3339(),
        ports: ["pty-a".into(), "pty-b".into()],
        lines: None,
        eol: Some("lf".into()),
        pgn: Some(args.pgn.clone()),
        config: Box::new(config),
    })?;
    let mut records = Records {
        journal,
        pgn: Some(args.pgn.clone()),
    };
    let lines: [Line; 2] = lines.try_into().map_err(|_| anyhow::anyhow!("two lines"))?;
    println!(
        "argus demo: two random movers over {LOCAL_PAIRS}, {} game(s) at 120+1",
        args.games
    );
    // The demo's games are few: it keeps a line per game for the summary at the end.
    struct DemoWatcher(Vec<String>, Option<MatchFeed<()>>);
    impl Watcher for DemoWatcher {
        fn notice(&mut self, notice: &Notice) {
            PrintWatcher.notice(notice);
            if let Some(feed) = &mut self.1 {
                feed.notice(notice);
            }
        }
        fn game_over(&mut self, g: &GameReport) {
            if let Some(feed) = &mut self.1 {
                feed.game_over(g);
            }
            self.0.push(format!(
                "game {}: {} - {}  {}  ({})",
                g.number, g.white, g.black, g.result, g.reason
            ));
        }
    }
    let feed = live.map(|live| MatchFeed::new((), live, Default::default()));
    let mut watcher = DemoWatcher(Vec::new(), feed);
    let (control, controls) = crossbeam_channel::unbounded();
    interrupts(&control)?;
    mediator::run(
        referee,
        lines,
        Eol::Lf,
        &mut records,
        &mut watcher,
        controls,
    )?;
    for client in clients {
        match client.join() {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => log::warn!("demo client: {e}"),
            Err(_) => log::warn!("a demo client panicked"),
        }
    }
    println!();
    for line in &watcher.0 {
        println!("{line}");
    }
    println!(
        "PGN: {}   journal: {}   (try: argus replay {})",
        args.pgn.display(),
        journal_path.display(),
        journal_path.display()
    );
    Ok(ExitCode::SUCCESS)
}
