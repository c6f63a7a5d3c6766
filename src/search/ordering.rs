//! Move ordering: the transposition table move, then captures that do not lose material (by static
//! exchange) by MVV-LVA, and queen promotions, then the two killer moves of the ply, then quiet
//! moves by history, then captures that lose material, then underpromotions.

use arrayvec::ArrayVec;
use shakmaty::{Board, Color, Move, MoveList, Role};

use super::params::{HISTORY_MAX, LVA_DIVISOR, MVV_WEIGHT, ORDERING_VALUE_CP};
use crate::score::MAX_PLY;
use crate::transposition::PackedMove;

// The ordering bands, best first. Each band's moves are ranked inside it by MVV-LVA (captures)
// or history (quiet moves, within +-HISTORY_MAX), so the bands are far enough apart never to mix.
/// The transposition table's move: searched first.
const TT_MOVE: i32 = 1_000_000;
/// Captures (and queen promotions) that do not lose material by static exchange, plus MVV-LVA.
const GOOD_CAPTURE: i32 = 100_000;
/// The ply's first killer move...
const FIRST_KILLER: i32 = 90_000;
/// ...and its second.
const SECOND_KILLER: i32 = 89_000;
// (Quiet moves score their history, between the killers and the losing captures.)
/// Captures that lose material by static exchange, plus MVV-LVA.
const LOSING_CAPTURE: i32 = -50_000;
/// Promotions to a knight, bishop or rook: last.
const UNDERPROMOTION: i32 = -100_000;

/// Quiet moves that caused beta cut-offs, by side and from/to square; kept across searches of a game.
#[derive(Clone)]
pub struct History {
    table: Box<[[[i32; 64]; 64]; 2]>,
}

impl Default for History {
    fn default() -> Self {
        History {
            table: Box::new([[[0; 64]; 64]; 2]),
        }
    }
}

impl History {
    #[inline]
    fn slot(&mut self, side: Color, m: Move) -> &mut i32 {
        let from = m.from().map_or(0, |sq| sq as usize);
        &mut self.table[side as usize][from][m.to() as usize]
    }

    #[inline]
    pub fn get(&self, side: Color, m: Move) -> i32 {
        let from = m.from().map_or(0, |sq| sq as usize);
        self.table[side as usize][from][m.to() as usize]
    }

    /// Rewards (positive `bonus`) or punishes (negative) a quiet move; values stay within
    /// `±HISTORY_MAX` because large values move less.
    #[inline]
    pub fn update(&mut self, side: Color, m: Move, bonus: i32) {
        let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
        let entry = self.slot(side, m);
        *entry += bonus - *entry * bonus.abs() / HISTORY_MAX;
    }

    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        *self.table = [[[0; 64]; 64]; 2];
    }
}

/// Two killer moves per ply: quiet moves that recently caused a cut-off at the same depth.
pub struct Killers {
    moves: Vec<[Option<Move>; 2]>,
}

impl Default for Killers {
    fn default() -> Self {
        Killers {
            moves: vec![[None; 2]; MAX_PLY + 1],
        }
    }
}

impl Killers {
    #[inline]
    pub fn get(&self, ply: usize) -> [Option<Move>; 2] {
        self.moves[ply]
    }

    #[inline]
    pub fn add(&mut self, ply: usize, m: Move) {
        let slot = &mut self.moves[ply];
        if slot[0] != Some(m) {
            slot[1] = slot[0];
            slot[0] = Some(m);
        }
    }
}

/// Value of a role for ordering.
#[inline]
pub fn role_value(role: Role) -> i32 {
    ORDERING_VALUE_CP[role as usize - 1]
}

/// Most valuable victim, least valuable attacker; queen promotions count as winning a queen.
#[inline]
pub fn mvv_lva(m: Move) -> i32 {
    let victim = m.capture().map_or(0, role_value);
    let promotion = match m.promotion() {
        Some(Role::Queen) => role_value(Role::Queen),
        _ => 0,
    };
    MVV_WEIGHT * (victim + promotion) - role_value(m.role()) / LVA_DIVISOR
}

/// Ordering scores of a move list, one per move, same indices (no zero-filling of unused slots).
pub type MoveScores = ArrayVec<i32, 256>;

/// Whether capture (or promotion) `m` loses material by static exchange. A capture of a piece
/// worth at least the capturer's never does, which spares most exchange evaluations.
#[inline]
pub fn loses_material(board: &Board, m: Move) -> bool {
    m.capture().map_or(0, role_value) < role_value(m.role()) && super::see::see(board, m) < 0
}

/// Ordering scores for `moves` (legal on `board`), one per move, same indices.
pub fn score_moves(
    board: &Board,
    moves: &MoveList,
    tt_move: PackedMove,
    killers: [Option<Move>; 2],
    history: &History,
    side: Color,
) -> MoveScores {
    let mut scores = MoveScores::new();
    for &m in moves.iter() {
        scores.push(if !tt_move.is_none() && PackedMove::new(m) == tt_move {
            TT_MOVE
        } else if m.is_capture() || m.promotion() == Some(Role::Queen) {
            if loses_material(board, m) {
                LOSING_CAPTURE + mvv_lva(m)
            } else {
                GOOD_CAPTURE + mvv_lva(m)
            }
        } else if m.is_promotion() {
            UNDERPROMOTION
        } else if killers[0] == Some(m) {
            FIRST_KILLER
        } else if killers[1] == Some(m) {
            SECOND_KILLER
        } else {
            history.get(side, m)
        });
    }
    scores
}

/// Capture ordering for the quiescence search: MVV-LVA only.
pub fn score_captures(moves: &MoveList) -> MoveScores {
    moves.iter().map(|&m| mvv_lva(m)).collect()
}

/// Moves the best-scored move among `start..` to `start`: a selection sort, one step at a time, so
/// that a cut-off on an early move saves sorting the rest; from the `SORT_AFTER`th move on
/// (past the table move, the good captures and the killers, mostly) the rest is sorted at once.
#[inline]
pub fn pick_next(moves: &mut MoveList, scores: &mut [i32], start: usize) {
    if start == SORT_AFTER {
        let mut rest: ArrayVec<(i32, Move), 256> = (start..moves.len())
            .map(|index| (scores[index], moves[index]))
            .collect();
        rest.sort_by_key(|&(score, _)| std::cmp::Reverse(score));
        for (offset, (score, m)) in rest.into_iter().enumerate() {
            scores[start + offset] = score;
            moves[start + offset] = m;
        }
        return;
    }
    if start > SORT_AFTER {
        return;
    }
    let mut best = start;
    for index in start + 1..moves.len() {
        if scores[index] > scores[best] {
            best = index;
        }
    }
    moves.swap(start, best);
    scores.swap(start, best);
}

/// Moves picked one by one before [`pick_next`] sorts the rest.
const SORT_AFTER: usize = 4;

/// Whether a move is quiet (neither a capture nor a promotion): the moves killers and history track.
#[inline]
pub fn is_quiet(m: Move) -> bool {
    !m.is_capture() && !m.is_promotion()
}
