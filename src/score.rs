//! Scores: centipawns from the side to move's point of view, with mates encoded at the far ends.
//!
//! A mate found `n` plies from the root is `MATE - n`; being mated in `n` plies is `-(MATE - n)`. The
//! shorter mate therefore scores higher and the longer defence scores higher for the loser. Inside the
//! transposition table mate scores are stored relative to the node, not the root ([`Score::to_tt`]).
//! Tablebase wins and losses have their own band below the mates: `TB_WIN - n` for a position the
//! tables call won, `n` plies from the root (or `n` plies from zeroing, at the root).
//! [`Score::tablebase_verdict`] reads that band back as a [`TablebaseVerdict`], the tables' word
//! for the position; users get the verdict from it, never from the band's numbers.

use std::fmt;
use std::ops::{Add, Neg, Sub};

/// The deepest ply the search can reach (depth plus extensions plus quiescence).
pub const MAX_PLY: usize = 128;

/// A search score in centipawns (or an encoded mate) from the side to move's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Score(i32);

/// The two ways a score is shown to users.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ScoreKind {
    /// Centipawns.
    Centipawns(i32),
    /// Moves (not plies) to mate: positive when the side to move mates, negative when it is mated.
    Mate(i32),
}

/// What the Syzygy tables say of a position, from the side to move's point of view, counting the
/// 50-move rule: the five outcomes of a WDL probe, best first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TablebaseVerdict {
    /// A win within the 50-move rule.
    Win,
    /// A win the 50-move rule turns into a draw (unless the opponent errs).
    CursedWin,
    /// A draw.
    Draw,
    /// A loss the 50-move rule saves.
    BlessedLoss,
    /// A loss within the 50-move rule.
    Loss,
}

impl TablebaseVerdict {
    /// Every verdict, best first (so one side's verdict is the other's read from the far end).
    pub const ALL: [TablebaseVerdict; 5] = [
        TablebaseVerdict::Win,
        TablebaseVerdict::CursedWin,
        TablebaseVerdict::Draw,
        TablebaseVerdict::BlessedLoss,
        TablebaseVerdict::Loss,
    ];

    /// The verdict of a WDL value as `chess.syzygy` gives it (2 win, 1 cursed win, 0 draw,
    /// -1 blessed loss, -2 loss); `None` for any other value.
    pub const fn from_wdl(wdl: i32) -> Option<TablebaseVerdict> {
        match wdl {
            2 => Some(TablebaseVerdict::Win),
            1 => Some(TablebaseVerdict::CursedWin),
            0 => Some(TablebaseVerdict::Draw),
            -1 => Some(TablebaseVerdict::BlessedLoss),
            -2 => Some(TablebaseVerdict::Loss),
            _ => None,
        }
    }

    /// The verdict as users read it: `"win"`, `"cursed win"`, `"draw"`, `"blessed loss"` or
    /// `"loss"` (the words of `chess.syzygy`'s documentation).
    pub const fn name(self) -> &'static str {
        match self {
            TablebaseVerdict::Win => "win",
            TablebaseVerdict::CursedWin => "cursed win",
            TablebaseVerdict::Draw => "draw",
            TablebaseVerdict::BlessedLoss => "blessed loss",
            TablebaseVerdict::Loss => "loss",
        }
    }
}

impl Score {
    const MATE_VALUE: i32 = 32_000;
    /// Larger than any real score; the initial alpha-beta window.
    pub const INFINITE: Score = Score(32_001);
    /// The score of a draw.
    pub const DRAW: Score = Score(0);
    /// A win the tables say the 50-move rule spoils (a cursed win), inside the search: a draw,
    /// a hair above it, so the search still prefers it to a plain draw (the opponent may err)...
    pub const CURSED_WIN: Score = Score(1);
    /// ...and a loss the 50-move rule saves (a blessed loss), a hair below a draw.
    pub const BLESSED_LOSS: Score = Score(-1);
    /// Mating the opponent right now (never returned; mates are `MATE - ply`).
    pub const MATE: Score = Score(Self::MATE_VALUE);
    /// Every score at or beyond this magnitude is a mate.
    const MATE_BOUND: i32 = Self::MATE_VALUE - MAX_PLY as i32;
    const TB_WIN_VALUE: i32 = 20_000;
    /// A tablebase win right here (never returned; wins are `TB_WIN - ply`).
    pub const TB_WIN: Score = Score(Self::TB_WIN_VALUE);
    /// Every score at or beyond this magnitude is a tablebase result or a mate.
    const DECISIVE_BOUND: i32 = Self::TB_WIN_VALUE - MAX_PLY as i32;

    /// A centipawn score.
    pub const fn centipawns(cp: i32) -> Score {
        Score(cp)
    }

    /// The raw value (centipawns for non-mate scores).
    pub const fn value(self) -> i32 {
        self.0
    }

    /// The side to move is checkmated, `ply` plies from the root.
    pub const fn mated_in(ply: usize) -> Score {
        Score(-Self::MATE_VALUE + ply as i32)
    }

    /// The side to move mates, `ply` plies from the root.
    pub const fn mate_in(ply: usize) -> Score {
        Score(Self::MATE_VALUE - ply as i32)
    }

    /// The side to move wins by the tablebases, `ply` plies from the root (capped at MAX_PLY).
    pub const fn tb_win_in(ply: usize) -> Score {
        let ply = if ply > MAX_PLY { MAX_PLY } else { ply };
        Score(Self::TB_WIN_VALUE - ply as i32)
    }

    /// The side to move loses by the tablebases, `ply` plies from the root (capped at MAX_PLY).
    pub const fn tb_loss_in(ply: usize) -> Score {
        Score(-Self::tb_win_in(ply).0)
    }

    /// Whether this is a tablebase win or loss (not a mate).
    pub const fn is_tablebase(self) -> bool {
        self.0.abs() >= Self::DECISIVE_BOUND && self.0.abs() <= Self::TB_WIN_VALUE
    }

    /// The tablebase verdict this score carries: a win or a loss for a score in the tablebase
    /// band, `None` for any other (an evaluation, a mate, and also the cursed wins, blessed losses
    /// and draws the search scores as +1, -1 and 0 centipawns, which no score tells apart from
    /// evaluations; the root's answer from the tables knows those from its WDL instead).
    pub const fn tablebase_verdict(self) -> Option<TablebaseVerdict> {
        if !self.is_tablebase() {
            None
        } else if self.0 > 0 {
            Some(TablebaseVerdict::Win)
        } else {
            Some(TablebaseVerdict::Loss)
        }
    }

    /// Whether this score encodes a forced mate for either side.
    pub const fn is_mate(self) -> bool {
        self.0.abs() >= Self::MATE_BOUND
    }

    /// Converts a root-relative score into a node-relative one for storage in the table.
    pub const fn to_tt(self, ply: usize) -> Score {
        if self.0 >= Self::DECISIVE_BOUND {
            Score(self.0 + ply as i32)
        } else if self.0 <= -Self::DECISIVE_BOUND {
            Score(self.0 - ply as i32)
        } else {
            self
        }
    }

    /// Inverse of [`Score::to_tt`]: a stored score seen again at `ply`.
    pub const fn from_tt(self, ply: usize) -> Score {
        if self.0 >= Self::DECISIVE_BOUND {
            Score(self.0 - ply as i32)
        } else if self.0 <= -Self::DECISIVE_BOUND {
            Score(self.0 + ply as i32)
        } else {
            self
        }
    }

    /// Centipawns, or moves to mate.
    pub const fn kind(self) -> ScoreKind {
        if self.0 >= Self::MATE_BOUND {
            ScoreKind::Mate((Self::MATE_VALUE - self.0 + 1) / 2)
        } else if self.0 <= -Self::MATE_BOUND {
            ScoreKind::Mate(-(Self::MATE_VALUE + self.0) / 2)
        } else {
            ScoreKind::Centipawns(self.0)
        }
    }

    /// Packs into 16 bits for the transposition table.
    pub const fn to_i16(self) -> i16 {
        self.0 as i16
    }

    /// Unpacks from [`Score::to_i16`].
    pub const fn from_i16(v: i16) -> Score {
        Score(v as i32)
    }
}

impl Neg for Score {
    type Output = Score;
    fn neg(self) -> Score {
        Score(-self.0)
    }
}

impl Add<i32> for Score {
    type Output = Score;
    fn add(self, rhs: i32) -> Score {
        Score(self.0 + rhs)
    }
}

impl Sub<i32> for Score {
    type Output = Score;
    fn sub(self, rhs: i32) -> Score {
        Score(self.0 - rhs)
    }
}

impl fmt::Display for Score {
    /// UCI notation: `cp 35` or `mate -3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            ScoreKind::Centipawns(cp) => write!(f, "cp {cp}"),
            ScoreKind::Mate(moves) => write!(f, "mate {moves}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_convert_to_moves() {
        assert_eq!(Score::mate_in(1).kind(), ScoreKind::Mate(1));
        assert_eq!(Score::mate_in(3).kind(), ScoreKind::Mate(2));
        assert_eq!(Score::mated_in(2).kind(), ScoreKind::Mate(-1));
        assert_eq!(Score::mated_in(0).kind(), ScoreKind::Mate(0));
        assert_eq!(Score::centipawns(-35).kind(), ScoreKind::Centipawns(-35));
    }

    #[test]
    fn shorter_mates_score_higher() {
        assert!(Score::mate_in(1) > Score::mate_in(3));
        assert!(Score::mated_in(2) < Score::mated_in(4));
        assert!(Score::mated_in(MAX_PLY) > -Score::INFINITE);
    }

    #[test]
    fn tablebase_scores_sit_between_evaluations_and_mates() {
        let win = Score::tb_win_in(5);
        assert!(win.is_tablebase() && !win.is_mate());
        assert!(win < Score::mate_in(MAX_PLY) && win > Score::centipawns(15_000));
        assert!(Score::tb_win_in(3) > Score::tb_win_in(9));
        assert_eq!(-Score::tb_loss_in(5), win);
        assert_eq!(win.to_tt(2).from_tt(4), Score::tb_win_in(7));
        assert!(!Score::centipawns(900).is_tablebase());
    }

    #[test]
    fn only_the_tablebase_band_carries_a_verdict() {
        assert_eq!(
            Score::tb_win_in(0).tablebase_verdict(),
            Some(TablebaseVerdict::Win)
        );
        assert_eq!(
            Score::tb_win_in(MAX_PLY + 40).tablebase_verdict(),
            Some(TablebaseVerdict::Win)
        );
        assert_eq!(
            Score::tb_loss_in(7).tablebase_verdict(),
            Some(TablebaseVerdict::Loss)
        );
        for plain in [
            Score::DRAW,
            Score::centipawns(1),
            Score::centipawns(-1),
            Score::centipawns(1_500),
            Score::tb_win_in(MAX_PLY) - 1,
            Score::mate_in(3),
            Score::mated_in(MAX_PLY),
        ] {
            assert_eq!(plain.tablebase_verdict(), None, "{plain:?}");
        }
    }

    #[test]
    fn wdl_values_name_their_verdicts() {
        let names: Vec<_> = (-3..=3)
            .map(|wdl| TablebaseVerdict::from_wdl(wdl).map(TablebaseVerdict::name))
            .collect();
        assert_eq!(
            names,
            [
                None,
                Some("loss"),
                Some("blessed loss"),
                Some("draw"),
                Some("cursed win"),
                Some("win"),
                None
            ]
        );
    }

    #[test]
    fn tt_round_trip_keeps_mate_distance() {
        // A mate in 5 plies from the root, found at a node 3 plies deep, is a mate in 2 from that node.
        let at_root = Score::mate_in(5);
        let stored = at_root.to_tt(3);
        assert_eq!(stored, Score::mate_in(2));
        // Seen again at ply 7 through a transposition it is a mate 9 plies from the root.
        assert_eq!(stored.from_tt(7), Score::mate_in(9));
        assert_eq!(at_root.to_tt(3).from_tt(3), at_root);
        let mated = Score::mated_in(6);
        assert_eq!(mated.to_tt(2).from_tt(2), mated);
        let cp = Score::centipawns(123);
        assert_eq!(cp.to_tt(9).from_tt(4), cp);
        assert_eq!(
            Score::from_i16(Score::mated_in(6).to_i16()),
            Score::mated_in(6)
        );
    }
}
