//! Views of the games in progress, for the supervisor and the audience (spec 3.2 item
//! 10): one model of the games ([`live`]) that the referees' notices feed, and the
//! views that read it: the web page with its live PGN and event stream ([`http`]), and
//! the supervisor's full-screen view in the terminal ([`tui`]).

pub mod feed;
pub mod http;
pub mod live;
pub mod pgn;
pub mod tui;
