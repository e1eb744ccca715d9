//! What `argus epd` and its file tools take on their command lines.

use std::path::PathBuf;

use clap::Subcommand;

// `argus epd`.
#[derive(Subcommand)]
pub enum EpdCommand {
    /// Check every record: it parses, its position is legal, its operations are
    /// well-formed; errors are reported with their line numbers.
    Check {
        /// The EPD file (`-` or nothing for standard input).
        file: Option<PathBuf>,
    },
    /// Write every record in canonical form (the pfdn verb of EPD spec 7.1).
    Normalize {
        /// The input (`-` or nothing for standard input).
        input: Option<PathBuf>,
        /// The output (nothing for standard output).
        output: Option<PathBuf>,
        /// Copy invalid records unchanged instead of leaving them out.
        #[arg(long)]
        keep_invalid: bool,
    },
    /// Remove every operation with OPCODE (the pfop verb of EPD spec 7.4).
    Purge {
        /// The opcode to remove, such as `c0` or `acn`.
        opcode: String,
        /// The input (`-` or nothing for standard input).
        input: Option<PathBuf>,
        /// The output (nothing for standard output).
        output: Option<PathBuf>,
    },
}
