//! Move ordering: the transposition table move, then captures that do not lose material (by static
//! exchange) by MVV-LVA, and queen promotions, then the two killer moves of the ply, then quiet
//! moves by history (the move's own, and how it fared after the last two moves: continuation
//! history), then captures that lose material, then underpromotions. Captures rank by MVV-LVA
//! and how they fared before (capture history). The same module keeps the
//! correction history, which learns how far the static evaluation misses in a pawn structure.

use arrayvec::ArrayVec;
use shakmaty::{Board, Color, Move, MoveList, Role};

use super::params::{
    CORRECTION_GRAIN, CORRECTION_MAX_CP, CORRECTION_SLOTS, CORRECTION_WEIGHT_MAX, HISTORY_MAX,
    LVA_DIVISOR, MVV_WEIGHT,
};
use super::see::{role_value, see};
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
// (Quiet moves score their history, at most 3 * HISTORY_MAX either way, between the killers and
// the losing captures.)
/// Captures rank by MVV-LVA plus their capture history over this: within ±2,048, two pawns'
/// worth of victim (`MVV_WEIGHT` times a pawn's 100) either way, so two captures' records can
/// reorder victims up to about four pawns apart (a pawn before a knight, even a rook), never a
/// pawn before a queen.
const CAPTURE_HISTORY_DIVISOR: i32 = 8;
/// Captures that lose material by static exchange, plus MVV-LVA.
const LOSING_CAPTURE: i32 = -200_000;
/// Promotions to a knight, bishop or rook: last.
const UNDERPROMOTION: i32 = -300_000;

/// A move as the continuation history sees it: the piece that moved (side and role) and the
/// square it went to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PieceTo {
    piece: u8,
    to: u8,
}

impl PieceTo {
    /// `m`, played by `side`.
    #[inline]
    pub fn new(side: Color, m: Move) -> PieceTo {
        PieceTo {
            piece: side as u8 * 6 + (m.role() as u8 - 1),
            to: m.to() as u8,
        }
    }

    #[inline]
    fn index(self) -> usize {
        usize::from(self.piece) * 64 + usize::from(self.to)
    }
}

/// The moves played one and two plies before a node (`None` at the root, after a null move or
/// before the root): the context the continuation history reads a quiet move in.
pub type Continuation = [Option<PieceTo>; 2];

/// Pieces (side and role) times squares: the size of one side of the continuation table.
const PIECE_SQUARES: usize = 12 * 64;

/// Captured roles the capture history tells apart: none (a queen promotion), then pawn to king.
const CAPTURED_KINDS: usize = 7;

/// Quiet moves that caused beta cut-offs, kept across the searches of a game: by side and
/// from/to square (the butterfly history), and by the piece and square of the move one or two
/// plies before (the continuation history, one table for both distances). Captures likewise, by
/// the piece, its square and the piece it takes (the capture history). Also the correction
/// history (see [`History::correct`]).
#[derive(Clone)]
pub struct History {
    table: Box<[[[i32; 64]; 64]; 2]>,
    /// `[previous piece-square][piece-square]`, flat; i16 keeps it at 1.2 MB.
    continuation: Box<[i16]>,
    /// `[piece-square][captured role]`, flat.
    capture: Box<[i16]>,
    /// By side to move and pawn structure: what to add to the static evaluation, in
    /// 1/[`CORRECTION_GRAIN`] centipawns.
    correction: Box<[i32]>,
}

impl Default for History {
    fn default() -> Self {
        History {
            table: Box::new([[[0; 64]; 64]; 2]),
            continuation: vec![0; PIECE_SQUARES * PIECE_SQUARES].into_boxed_slice(),
            capture: vec![0; PIECE_SQUARES * CAPTURED_KINDS].into_boxed_slice(),
            correction: vec![0; 2 * CORRECTION_SLOTS].into_boxed_slice(),
        }
    }
}

/// Moves `entry` towards `bonus`'s sign; values stay within `±HISTORY_MAX` because large values
/// move less ("gravity").
#[inline]
fn apply_bonus(entry: i32, bonus: i32) -> i32 {
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    entry + bonus - entry * bonus.abs() / HISTORY_MAX
}

impl History {
    #[inline]
    fn slot(&mut self, side: Color, m: Move) -> &mut i32 {
        let from = m.from().map_or(0, |sq| sq as usize);
        &mut self.table[side as usize][from][m.to() as usize]
    }

    /// The butterfly history of `m` for `side`, within `±HISTORY_MAX`.
    #[inline]
    pub fn get(&self, side: Color, m: Move) -> i32 {
        let from = m.from().map_or(0, |sq| sq as usize);
        self.table[side as usize][from][m.to() as usize]
    }

    #[inline]
    fn continuation_index(previous: PieceTo, current: PieceTo) -> usize {
        previous.index() * PIECE_SQUARES + current.index()
    }

    /// How good quiet move `m` of `side` has been: its butterfly history plus its continuation
    /// history after each of the `previous` moves, within `±3 * HISTORY_MAX`.
    #[inline]
    pub fn quiet_score(&self, side: Color, m: Move, previous: &Continuation) -> i32 {
        let current = PieceTo::new(side, m);
        let continuation: i32 = previous
            .iter()
            .flatten()
            .map(|&before| i32::from(self.continuation[Self::continuation_index(before, current)]))
            .sum();
        self.get(side, m) + continuation
    }

    /// Rewards (positive `bonus`) or punishes (negative) a quiet move in both histories.
    #[inline]
    pub fn update(&mut self, side: Color, m: Move, previous: &Continuation, bonus: i32) {
        let entry = self.slot(side, m);
        *entry = apply_bonus(*entry, bonus);
        let current = PieceTo::new(side, m);
        for &before in previous.iter().flatten() {
            let entry = &mut self.continuation[Self::continuation_index(before, current)];
            // Within ±HISTORY_MAX (16,384), so it fits an i16.
            *entry = apply_bonus(i32::from(*entry), bonus) as i16;
        }
    }

    #[inline]
    fn capture_index(side: Color, m: Move) -> usize {
        let captured = m.capture().map_or(0, |role| role as usize);
        PieceTo::new(side, m).index() * CAPTURED_KINDS + captured
    }

    /// How good capture (or promotion) `m` of `side` has been, within `±HISTORY_MAX`.
    #[inline]
    pub fn capture_score(&self, side: Color, m: Move) -> i32 {
        i32::from(self.capture[Self::capture_index(side, m)])
    }

    /// Rewards (positive `bonus`) or punishes (negative) a capture or promotion.
    #[inline]
    pub fn update_capture(&mut self, side: Color, m: Move, bonus: i32) {
        let entry = &mut self.capture[Self::capture_index(side, m)];
        // Within ±HISTORY_MAX (16,384), so it fits an i16.
        *entry = apply_bonus(i32::from(*entry), bonus) as i16;
    }

    #[inline]
    fn correction_index(board: &Board, side: Color) -> usize {
        // A multiplicative hash of the two sides' pawns, its top bits.
        let white = board.by_piece(shakmaty::Piece {
            color: Color::White,
            role: Role::Pawn,
        });
        let black = board.by_piece(shakmaty::Piece {
            color: Color::Black,
            role: Role::Pawn,
        });
        let hash = u64::from(white).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ u64::from(black).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        let slot = (hash >> 32) as usize % CORRECTION_SLOTS;
        side as usize * CORRECTION_SLOTS + slot
    }

    /// The correction of a static evaluation (centipawns, side to move's view) in this pawn
    /// structure: what searches found the evaluation missed there, averaged.
    #[inline]
    pub fn correct(&self, board: &Board, side: Color) -> i32 {
        self.correction[Self::correction_index(board, side)] / CORRECTION_GRAIN
    }

    /// Learns from a search of `depth` plies whose result, `searched` (centipawns), differs from
    /// the uncorrected static evaluation `raw`: a moving average, deeper results weighing more.
    #[inline]
    pub fn update_correction(
        &mut self,
        board: &Board,
        side: Color,
        depth: i32,
        raw: i32,
        searched: i32,
    ) {
        let entry = &mut self.correction[Self::correction_index(board, side)];
        let weight = (depth + 1).clamp(1, CORRECTION_WEIGHT_MAX);
        let target = (searched - raw) * CORRECTION_GRAIN;
        let limit = CORRECTION_MAX_CP * CORRECTION_GRAIN;
        *entry = ((*entry * (256 - weight) + target * weight) / 256).clamp(-limit, limit);
    }

    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        *self.table = [[[0; 64]; 64]; 2];
        self.continuation.fill(0);
        self.capture.fill(0);
        self.correction.fill(0);
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
    m.capture().map_or(0, role_value) < role_value(m.role()) && see(board, m) < 0
}

/// Ordering scores for `moves` (legal on `board`), one per move, same indices.
pub fn score_moves(
    board: &Board,
    moves: &MoveList,
    tt_move: PackedMove,
    killers: [Option<Move>; 2],
    history: &History,
    side: Color,
    previous: &Continuation,
) -> MoveScores {
    let mut scores = MoveScores::new();
    for &m in moves.iter() {
        scores.push(if !tt_move.is_none() && PackedMove::new(m) == tt_move {
            TT_MOVE
        } else if m.is_capture() || m.promotion() == Some(Role::Queen) {
            let learned = history.capture_score(side, m) / CAPTURE_HISTORY_DIVISOR;
            if loses_material(board, m) {
                LOSING_CAPTURE + mvv_lva(m) + learned
            } else {
                GOOD_CAPTURE + mvv_lva(m) + learned
            }
        } else if m.is_promotion() {
            UNDERPROMOTION
        } else if killers[0] == Some(m) {
            FIRST_KILLER
        } else if killers[1] == Some(m) {
            SECOND_KILLER
        } else {
            history.quiet_score(side, m, previous)
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

#[cfg(test)]
mod tests {
    use shakmaty::{Chess, Position as _, Square};

    use super::*;

    fn quiet(role: Role, from: Square, to: Square) -> Move {
        Move::Normal {
            role,
            from,
            capture: None,
            to,
            promotion: None,
        }
    }

    #[test]
    fn histories_reward_punish_and_stay_within_bounds() {
        let mut history = History::default();
        let knight = quiet(Role::Knight, Square::G1, Square::F3);
        let reply = PieceTo::new(Color::Black, quiet(Role::Pawn, Square::E7, Square::E5));
        let after_e5: Continuation = [Some(reply), None];
        for _ in 0..1_000 {
            history.update(Color::White, knight, &after_e5, HISTORY_MAX);
        }
        assert_eq!(history.get(Color::White, knight), HISTORY_MAX);
        assert_eq!(
            history.quiet_score(Color::White, knight, &after_e5),
            2 * HISTORY_MAX,
            "the butterfly and the one continuation entry, each at its bound"
        );
        // Read in another context (no move before), only the butterfly history counts.
        assert_eq!(
            history.quiet_score(Color::White, knight, &[None, None]),
            HISTORY_MAX
        );
        assert_eq!(
            history.get(Color::Black, knight),
            0,
            "the other side's table"
        );
        for _ in 0..1_000 {
            history.update(Color::White, knight, &after_e5, -HISTORY_MAX);
        }
        assert_eq!(
            history.quiet_score(Color::White, knight, &after_e5),
            -2 * HISTORY_MAX
        );
        history.clear();
        assert_eq!(history.quiet_score(Color::White, knight, &after_e5), 0);
    }

    #[test]
    fn capture_history_reorders_captures_but_never_a_pawn_before_a_queen() {
        // The knight on c3 takes the pawn on d5, the knight on f3 the pawn on e5 (equal
        // victims, equal attackers, neither defended), and the rook on a1 the queen on a7.
        let board: Chess = "4k3/q7/8/3pp3/8/2N2N2/8/R3K3 w - - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        let moves = board.legal_moves();
        let find = |from: Square, to: Square| {
            *moves
                .iter()
                .find(|m| m.from() == Some(from) && m.to() == to)
                .unwrap()
        };
        let (takes_d5, takes_e5, takes_queen) = (
            find(Square::C3, Square::D5),
            find(Square::F3, Square::E5),
            find(Square::A1, Square::A7),
        );
        let mut history = History::default();
        let score = |history: &History, m: Move| {
            let scores = score_moves(
                board.board(),
                &moves,
                PackedMove::NONE,
                [None, None],
                history,
                Color::White,
                &[None, None],
            );
            scores[moves.iter().position(|&x| x == m).unwrap()]
        };
        assert_eq!(score(&history, takes_d5), score(&history, takes_e5));
        for _ in 0..1_000 {
            history.update_capture(Color::White, takes_e5, HISTORY_MAX);
            history.update_capture(Color::White, takes_d5, -HISTORY_MAX);
        }
        assert_eq!(history.capture_score(Color::White, takes_e5), HISTORY_MAX);
        assert_eq!(history.capture_score(Color::White, takes_d5), -HISTORY_MAX);
        assert_eq!(
            history.capture_score(Color::Black, takes_e5),
            0,
            "the other side"
        );
        assert!(score(&history, takes_e5) > score(&history, takes_d5));
        // However bad its record, the queen's capture stays ahead of a pawn's.
        for _ in 0..1_000 {
            history.update_capture(Color::White, takes_queen, -HISTORY_MAX);
        }
        assert!(score(&history, takes_queen) > score(&history, takes_e5));
        history.clear();
        assert_eq!(history.capture_score(Color::White, takes_e5), 0);
    }

    #[test]
    fn the_correction_is_a_bounded_average_per_side_and_pawn_structure() {
        let mut history = History::default();
        let start = Chess::default();
        let board = start.board();
        let after_e4 = start
            .clone()
            .play(quiet(Role::Pawn, Square::E2, Square::E4))
            .unwrap();
        // One search finding the evaluation 40 cp low moves the correction a little way.
        history.update_correction(board, Color::White, 3, 0, 40);
        let once = history.correct(board, Color::White);
        assert!((0..40).contains(&once), "{once}");
        // Many, from deep searches, converge to the miss...
        for _ in 0..2_000 {
            history.update_correction(board, Color::White, 20, 0, 40);
        }
        assert!((39..=40).contains(&history.correct(board, Color::White)));
        // ...but never past the bound, however far off the evaluation was.
        for _ in 0..2_000 {
            history.update_correction(board, Color::White, 20, 0, 5_000);
        }
        assert_eq!(history.correct(board, Color::White), CORRECTION_MAX_CP);
        assert_eq!(
            history.correct(board, Color::Black),
            0,
            "the other side to move"
        );
        assert_eq!(
            history.correct(after_e4.board(), Color::White),
            0,
            "another pawn structure"
        );
        history.clear();
        assert_eq!(history.correct(board, Color::White), 0);
    }
}
