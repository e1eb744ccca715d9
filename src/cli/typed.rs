//! Which options were typed on the command line, as opposed to left at clap's defaults:
//! `--resume` refuses a typed option that contradicts the journal, and an event file's
//! key gives way to the same option typed.

use clap::ArgMatches;
use clap::parser::ValueSource;

/// The options of one subcommand whose values came from the command line, by their clap
/// ids (`games` for `--games`, `port_a` for the first port).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Typed(Vec<String>);

impl Typed {
    /// The options of `matches` (a subcommand's matches) whose value was typed; none when
    /// there are no matches (a command line made by argus itself).
    pub fn from_matches(matches: Option<&ArgMatches>) -> Typed {
        let Some(matches) = matches else {
            return Typed::default();
        };
        Typed(
            matches
                .ids()
                .map(|id| id.as_str())
                .filter(|id| matches.value_source(id) == Some(ValueSource::CommandLine))
                .map(str::to_string)
                .collect(),
        )
    }

    /// Whether the option `id` was typed.
    pub fn has(&self, id: &str) -> bool {
        self.0.iter().any(|typed| typed == id)
    }

    /// The options typed, by id, in the order clap lists them (not that of the command
    /// line); the groups clap makes of argument structs (`ServeArgs`) are no options and
    /// are left out.
    pub fn options(&self) -> impl Iterator<Item = &str> {
        self.0
            .iter()
            .map(String::as_str)
            .filter(|id| id.starts_with(|c: char| c.is_ascii_lowercase()))
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Typed;
    use crate::cli::Cli;

    fn typed(args: &[&str]) -> Vec<String> {
        let matches = Cli::command()
            .try_get_matches_from(["argus", "serial"].iter().chain(args))
            .unwrap();
        let typed = Typed::from_matches(matches.subcommand_matches("serial"));
        let mut ids: Vec<String> = typed.options().map(str::to_string).collect();
        ids.sort();
        ids
    }

    #[test]
    fn only_the_options_typed_count_not_the_defaults() {
        assert_eq!(typed(&["--resume", "j.jsonl"]), ["resume"]);
        assert_eq!(
            typed(&["a", "b", "--games", "1", "--unattended", "--resume", "j"]),
            ["games", "port_a", "port_b", "resume", "unattended"]
        );
    }
}
