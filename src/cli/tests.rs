//! Checks of the command line against the event files: every option has a key of the
//! same name and every key an option, with the same defaults.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use clap::{CommandFactory, Parser};

use super::{Cli, Command, DrawRuleArg, IllegalArg, SerialArgs, config_hint};
use crate::core::{DrawRule, IllegalRule};
use crate::mediator::config::{EventConfig, key_of_option, keys};

/// The options of `argus serial` that have no key in an event file, and why: they say
/// how a run finds its match, not what the match is.
const NOT_IN_A_FILE: [(&str, &str); 4] = [
    ("config", "it names the event file itself"),
    (
        "resume",
        "it names the journal of a match to take over, whose every option is in the journal",
    ),
    (
        "continue",
        "it takes the match over from its journal or starts it, by whether the journal exists; the file names the journal",
    ),
    (
        "plain",
        "it says how this run is shown (plain lines, not the terminal view), not what the match is: one file serves a referee at a terminal and one whose output is logged",
    ),
];

/// The options of `argus serial`, by name (long names; the ids of positional
/// arguments), but help.
fn serial_options() -> Vec<String> {
    let cli = Cli::command();
    let serial = cli.find_subcommand("serial").expect("argus serial");
    serial
        .get_arguments()
        .filter(|arg| arg.get_id() != "help")
        .map(|arg| arg.get_long().unwrap_or(arg.get_id().as_str()).to_string())
        .collect()
}

/// The key's table and name: `("match", "games")`.
fn split(key: &str) -> (&str, &str) {
    key.rsplit_once('.').expect("a key in a table")
}

#[test]
fn every_option_of_serial_is_a_key_of_the_same_name_and_every_key_an_option() {
    let options = serial_options();
    let keys: BTreeSet<String> = keys().into_iter().collect();
    let mut covered = BTreeSet::new();
    for name in &options {
        let key = key_of_option(name);
        if let Some((_, why)) = NOT_IN_A_FILE.iter().find(|(n, _)| n == name) {
            assert_eq!(key, None, "--{name} is listed as having no key ({why})");
            continue;
        }
        let Some(key) = key else {
            panic!(
                "--{name} has no key `{}` in the event file: add one (src/config.rs), or list the option in NOT_IN_A_FILE with the reason",
                name.replace('-', "_")
            );
        };
        assert_eq!(
            split(&key).1,
            name.replace('-', "_")
                .trim_end_matches("_a")
                .trim_end_matches("_b"),
            "--{name}"
        );
        covered.insert(key);
    }
    for (name, _) in NOT_IN_A_FILE {
        assert!(
            options.iter().any(|o| o == name),
            "NOT_IN_A_FILE names --{name}, which argus serial does not have"
        );
    }
    // Every key is an option: one of the above, or a [line] key set again in a
    // player's table for that player's port alone.
    for key in &keys {
        if covered.contains(key) {
            continue;
        }
        let for_one_port = ["player.a.", "player.b."]
            .iter()
            .find_map(|table| key.strip_prefix(table))
            .map(|name| format!("line.{name}"));
        assert!(
            for_one_port.is_some_and(|line| covered.contains(&line)),
            "the event file's key {key} is no option of argus serial: add the option (src/cli/serial.rs), or remove the key"
        );
    }
}

/// A name is one key: each has one table, and none could be read as a player's.
#[test]
fn no_key_name_is_ambiguous() {
    let mut tables = BTreeMap::new();
    for key in keys() {
        let (table, name) = split(&key);
        if table.starts_with("player.") {
            continue;
        }
        assert!(
            !name.ends_with("_a") && !name.ends_with("_b"),
            "{key}: a name ending in _a or _b is a player's"
        );
        if let Some(other) = tables.insert(name.to_string(), table.to_string()) {
            panic!("`{name}` is a key of both [{other}] and [{table}]");
        }
    }
    // A player's own keys (the port, the name) are no other table's; the others are
    // [line]'s, for that player's port alone.
    for key in keys() {
        let (table, name) = split(&key);
        if let (true, Some(other)) = (table.starts_with("player."), tables.get(name)) {
            assert_eq!(other, "line", "{key} is also a key of [{other}]");
        }
    }
}

/// With --config the file gives the match: the command line may add only what has
/// no key, and --unattended (the same file serves a referee in the hall and one in
/// the background); clap refuses any other option.
#[test]
fn with_config_only_the_options_without_a_key_and_unattended_may_be_given() {
    let cli = Cli::command();
    let serial = cli.find_subcommand("serial").unwrap();
    let config = serial
        .get_arguments()
        .find(|arg| arg.get_id() == "config")
        .unwrap();
    let refused: BTreeSet<&str> = serial
        .get_arg_conflicts_with(config)
        .iter()
        .map(|arg| arg.get_id().as_str())
        .collect();
    for arg in serial.get_arguments() {
        let id = arg.get_id().as_str();
        if id == "help" || id == "config" {
            continue;
        }
        let name = arg.get_long().unwrap_or(id);
        let allowed =
            name == "unattended" || NOT_IN_A_FILE.iter().any(|(option, _)| *option == name);
        assert_eq!(
            refused.contains(id),
            !allowed,
            "--{name} with --config: list it in (or take it out of) the conflicts of --config"
        );
    }
}

#[test]
fn an_option_refused_with_config_names_its_key() {
    let hint = |args: &[&str]| {
        let e = Cli::command()
            .try_get_matches_from(["argus", "serial"].iter().chain(args))
            .map(|_| ())
            .unwrap_err();
        config_hint(&e)
    };
    assert_eq!(
        hint(&["--config", "e.toml", "--reset-delay", "1"]).as_deref(),
        Some("set `reset_delay` in [match] of the event file instead")
    );
    assert_eq!(
        hint(&["--name-b", "Ann", "--config", "e.toml"]).as_deref(),
        Some("set `name` in [player.b] of the event file instead")
    );
    assert_eq!(
        hint(&["--config", "e.toml", "/dev/ttyS0"]).as_deref(),
        Some("set `port` in [player.a] of the event file instead")
    );
    assert_eq!(hint(&["--resume", "j", "--continue"]), None);
}

/// A key left out of a file means what the option left off the command line does.
#[test]
fn the_file_and_the_command_line_have_the_same_defaults() {
    let Command::Serial(args) = Cli::try_parse_from(["argus", "serial", "/dev/a", "/dev/b"])
        .unwrap()
        .command
    else {
        panic!("argus serial");
    };
    let SerialArgs { line, .. } = args.as_ref();
    let file = "[player.a]\nport = \"/dev/a\"\n[player.b]\nport = \"/dev/b\"\n";
    let event = EventConfig::parse(file, Path::new("")).unwrap();
    assert_eq!(event.time_control, args.tc);
    assert_eq!(event.games, args.games);
    assert_eq!(event.openings, args.openings);
    assert_eq!(event.event, args.event);
    assert_eq!(event.site, args.site);
    assert_eq!(event.round, args.round);
    assert_eq!(
        [&event.ports[0].name, &event.ports[1].name],
        [&args.name_a, &args.name_b]
    );
    assert_eq!(event.pgn, args.pgn);
    assert_eq!(event.journal, args.journal);
    assert_eq!(event.reset_delay, args.reset_delay);
    assert_eq!(event.conclude_delay, args.conclude_delay);
    let draw_rule = match args.draw_rule {
        DrawRuleArg::Auto => DrawRule::Auto,
        DrawRuleArg::Claim => DrawRule::Claim,
    };
    assert_eq!(event.draw_rule, draw_rule);
    let illegal = match args.illegal {
        IllegalArg::Loss => IllegalRule::Loss,
        IllegalArg::Fault => IllegalRule::Fault,
    };
    assert_eq!(event.illegal, illegal);
    assert_eq!(event.unattended, args.unattended);
    assert_eq!(event.no_wire_compensation, args.no_wire_compensation);
    for port in &event.ports {
        assert_eq!(port.line, line.settings());
        assert_eq!(port.baud_given, line.baud.is_some());
    }
    assert_eq!(event.eol, line.eol);
    assert_eq!(event.journal_path("x"), PathBuf::from("argus-x.jsonl"));
}

/// The options of `argus serve` with no key in its event file, and why.
const SERVE_NOT_IN_A_FILE: [(&str, &str); 3] = [
    ("config", "it names the event file itself"),
    (
        "resume",
        "it names the folder of an event to go on with, whose every option is in its event.jsonl",
    ),
    (
        "plain",
        "it says how this run is shown (plain lines, not the terminal view), not what the event is",
    ),
];

#[test]
fn every_option_of_serve_is_a_key_of_the_same_name_and_every_key_an_option() {
    use crate::server::config::{key_of_option, keys};
    let cli = Cli::command();
    let serve = cli.find_subcommand("serve").expect("argus serve");
    let options: Vec<String> = serve
        .get_arguments()
        .filter(|arg| arg.get_id() != "help")
        .map(|arg| arg.get_long().unwrap_or(arg.get_id().as_str()).to_string())
        .collect();
    let mut covered = BTreeSet::new();
    for name in &options {
        let key = key_of_option(name);
        if let Some((_, why)) = SERVE_NOT_IN_A_FILE.iter().find(|(n, _)| n == name) {
            assert_eq!(key, None, "--{name} is listed as having no key ({why})");
            continue;
        }
        let key = key.unwrap_or_else(|| {
            panic!(
                "--{name} has no key `{}` in argus serve's event file: add one (src/server/config.rs), or list it in SERVE_NOT_IN_A_FILE with the reason",
                name.replace('-', "_")
            )
        });
        assert_eq!(
            key.rsplit('.').next(),
            Some(name.replace('-', "_").as_str()),
            "--{name}"
        );
        assert!(
            covered.insert(key.clone()),
            "{key} is the key of two options"
        );
    }
    for key in keys() {
        assert!(
            covered.contains(&key),
            "argus serve's event-file key {key} is no option of argus serve: add the option (src/cli/serve.rs), or remove the key"
        );
    }
    // A name is one key.
    let leaves: BTreeSet<String> = keys()
        .iter()
        .map(|k| k.rsplit('.').next().unwrap().to_string())
        .collect();
    assert_eq!(leaves.len(), keys().len());
    // An [[engine]]'s keys are --engine's words.
    let words = [
        "name",
        "cmd",
        "proto",
        "option",
        "nodes",
        "depth",
        "movetime",
        "restarts",
        "timemargin",
    ];
    let mut engine: Vec<&str> = crate::server::config::engine_keys().to_vec();
    engine.sort_unstable();
    let mut expected = words.to_vec();
    expected.sort_unstable();
    assert_eq!(engine, expected);
    let spec = crate::server::EngineSpec::parse(
        &["name=A", "cmd=x", "proto=uci", "option.Hash=1", "nodes=5"].map(String::from),
    );
    assert!(spec.is_ok(), "{spec:?}");
}
