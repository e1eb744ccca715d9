//! What a mover said of its search on its reply, kept value by value for the records
//! that show it field by field: fastchess's PGN comments (`n=`, `sd=`, `nps=`, ...)
//! under `argus fastchess`. The referee keeps it only when its match asks
//! ([`crate::core::MatchConfig::keep_info`]); the PGN's own comment is made from the
//! same operations at the move.

use crate::epd::{Operand, Record};

/// The analysis operations of one reply.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveInfo {
    /// The score, EPD's `ce` (the mover's view; mates as 32767 - plies).
    pub ce: Option<i64>,
    /// The search's depth (`acd`).
    pub depth: Option<i64>,
    /// Its nodes (`acn`).
    pub nodes: Option<i64>,
    /// Its selective depth (`seldepth`, an argus extension).
    pub seldepth: Option<i64>,
    /// Its speed in nodes a second (`nps`).
    pub nps: Option<i64>,
    /// How full its hash table was, in permille (`hashfull`).
    pub hashfull: Option<i64>,
    /// Its tablebase hits (`tbhits`).
    pub tbhits: Option<i64>,
    /// How long it said it searched, in milliseconds (`acms`).
    pub time_ms: Option<i64>,
    /// Its principal variation in SAN from the move's position, the move first.
    pub pv: Vec<String>,
    /// Lines of its output kept for the record (`eline`).
    pub lines: Vec<String>,
}

impl MoveInfo {
    /// The analysis of reply `rec`, its `pv` already in SAN (`pv_sans`); None when it
    /// has none.
    pub fn of_reply(rec: &Record, pv_sans: Option<&[String]>) -> Option<MoveInfo> {
        let int = |op: &str| {
            rec.operands(op)
                .and_then(|ops| ops.first())
                .and_then(Operand::as_integer)
        };
        let info = MoveInfo {
            ce: int("ce"),
            depth: int("acd"),
            nodes: int("acn"),
            seldepth: int("seldepth"),
            nps: int("nps"),
            hashfull: int("hashfull"),
            tbhits: int("tbhits"),
            time_ms: int("acms"),
            pv: pv_sans.map(<[String]>::to_vec).unwrap_or_default(),
            lines: rec
                .operands("eline")
                .map(|ops| {
                    ops.iter()
                        .filter_map(Operand::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
        };
        (info != MoveInfo::default()).then_some(info)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_s_analysis_is_kept_value_by_value() {
        let rec: Record = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 refreq reply; \
             sm e5; ce -20; acd 12; acn 15400; seldepth 17; nps 900000; hashfull 3; \
             tbhits 0; acms 17; eline \"info string pgncomment x\" \"info string y\";"
            .parse()
            .unwrap();
        let pv = ["e5".to_string(), "Nf3".to_string()];
        let info = MoveInfo::of_reply(&rec, Some(&pv)).unwrap();
        assert_eq!(info.ce, Some(-20));
        assert_eq!(info.depth, Some(12));
        assert_eq!(info.nodes, Some(15400));
        assert_eq!(info.seldepth, Some(17));
        assert_eq!(info.nps, Some(900_000));
        assert_eq!(info.hashfull, Some(3));
        assert_eq!(info.tbhits, Some(0));
        assert_eq!(info.time_ms, Some(17));
        assert_eq!(info.pv, pv);
        assert_eq!(info.lines, ["info string pgncomment x", "info string y"]);
    }

    #[test]
    fn a_bare_reply_has_no_analysis() {
        let rec: Record =
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 refreq reply; sm e5;"
                .parse()
                .unwrap();
        assert_eq!(MoveInfo::of_reply(&rec, None), None);
    }
}
