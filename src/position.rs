//! The game as the search sees it: a stack of shakmaty positions with their Polyglot-compatible
//! Zobrist keys (copy-make), plus the draw rules that need history (repetition, the 50-move rule).

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Chess, EnPassantMode, FromSetup as _, Move, Position as _};

use crate::error::Error;

/// The standard starting position.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Half-moves without a capture or pawn move after which the fifty-move rule draws.
pub const FIFTY_MOVE_PLIES: u32 = 100;

#[derive(Clone, Debug)]
struct State {
    board: Chess,
    key: u64,
    /// Reached by a null move ([`Position::push_null`]).
    null: bool,
    /// The move that reached it ([`Position::push`]); `None` for the game's first position and
    /// after a null move.
    moved: Option<Move>,
}

/// A game: the position it started from, the moves played since, and the moves the search is trying.
///
/// The *root* is the position the search starts from; positions before it are game history and count
/// for threefold repetition, positions after it are the search tree, where a single repetition is
/// already scored as a draw.
#[derive(Clone, Debug)]
pub struct Position {
    states: Vec<State>,
    root: usize,
}

/// The key of a position: equal to python-chess's `chess.polyglot.zobrist_hash`.
pub fn polyglot_key(board: &Chess) -> u64 {
    board
        .zobrist_hash::<Zobrist64>(EnPassantMode::PseudoLegal)
        .0
}

/// A move in UCI notation, castling as the king's two-square move (`e1g1`).
pub fn move_to_uci(m: Move) -> String {
    move_to_uci_in(m, CastlingMode::Standard)
}

/// A move in UCI notation for games in castling `mode`: castling as the king's two-square move
/// (`e1g1`) in standard chess, as the king taking its own rook (`e1h1`) in Chess960.
pub fn move_to_uci_in(m: Move, mode: CastlingMode) -> String {
    m.to_uci(mode).to_string()
}

/// Parses a FEN (4 to 6 space-separated fields) into a legal standard chess position.
pub fn parse_fen(fen: &str) -> Result<Chess, Error> {
    parse_fen_in(fen, CastlingMode::Standard)
}

/// Parses a FEN into a legal position of castling `mode`. In Chess960 the castling field may name
/// the rooks' files (Shredder-FEN `HAha`, or X-FEN's `KQkq` with a file where it is ambiguous).
pub fn parse_fen_in(fen: &str, mode: CastlingMode) -> Result<Chess, Error> {
    let invalid = |reason: String| Error::InvalidFen {
        fen: fen.to_string(),
        reason,
    };
    let fields = fen.split_whitespace().count();
    if !(4..=6).contains(&fields) {
        return Err(invalid(format!(
            "expected 4 to 6 space-separated fields (board, side to move, castling, en passant, \
             halfmove clock, fullmove number), found {fields}"
        )));
    }
    if let Some(castling) = fen.split_whitespace().nth(2)
        && !is_castling_field(castling)
    {
        return Err(invalid(format!(
            "invalid castling field '{castling}' (expected '-' or White's rights then Black's, \
             at most two each, like 'KQkq')"
        )));
    }
    let parsed: Fen = fen.trim().parse().map_err(|e| invalid(format!("{e}")))?;
    parsed
        .into_position::<Chess>(mode)
        .map_err(|e| invalid(format!("{e}")))
}

/// `-`, or White's castling rights then Black's, at most two each: `K`/`Q` or a rook's file
/// (`A`-`H`) for White, the same in lower case for Black (python-chess's rule).
fn is_castling_field(field: &str) -> bool {
    if field == "-" {
        return true;
    }
    let white = field
        .bytes()
        .take_while(|b| matches!(b, b'K' | b'Q' | b'A'..=b'H'))
        .count();
    let (ours, theirs) = field.as_bytes().split_at(white);
    let black_ok = theirs
        .iter()
        .all(|b| matches!(b, b'k' | b'q' | b'a'..=b'h'));
    !field.is_empty() && ours.len() <= 2 && theirs.len() <= 2 && black_ok
}

/// A position given as bitboards, the way python-chess's `Board` stores it: pieces by colour
/// (white, black) and by role (pawns .. kings), castling rights as the squares of the rooks that
/// may castle, the en passant square as python-chess keeps it (after any double push).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Bitboards {
    pub by_color: [u64; 2],
    pub by_role: [u64; 6],
    pub white_to_move: bool,
    pub castling_rights: u64,
    pub ep_square: Option<u8>,
    pub halfmoves: u32,
    pub fullmoves: u32,
}

/// The legal standard chess position `bitboards` describe; an error quoting its FEN (as far as it
/// can be written) otherwise.
pub fn from_bitboards(bitboards: &Bitboards) -> Result<Chess, Error> {
    use shakmaty::{Bitboard, ByColor, ByRole, Color, FromSetup, Setup, Square};
    let [pawn, knight, bishop, rook, queen, king] = bitboards.by_role.map(Bitboard);
    let by_role = ByRole {
        pawn,
        knight,
        bishop,
        rook,
        queen,
        king,
    };
    let [white, black] = bitboards.by_color.map(Bitboard);
    let board =
        shakmaty::Board::try_from_bitboards(by_role, ByColor { white, black }).map_err(|e| {
            Error::InvalidFen {
                fen: format!("{bitboards:?}"),
                reason: e.to_string(),
            }
        })?;
    let mut setup = Setup::empty();
    setup.board = board;
    setup.turn = Color::from_white(bitboards.white_to_move);
    setup.castling_rights = Bitboard(bitboards.castling_rights);
    setup.ep_square = bitboards
        .ep_square
        .and_then(|square| Square::try_from(square).ok());
    setup.halfmoves = bitboards.halfmoves;
    setup.fullmoves = std::num::NonZeroU32::new(bitboards.fullmoves.max(1)).expect("at least 1");
    let fen = || match Fen::try_from_setup(setup.clone()) {
        Ok(fen) => fen.to_string(),
        Err(lossy) => lossy.ignore().to_string(),
    };
    Chess::from_setup(setup.clone(), CastlingMode::Standard).map_err(|e| Error::InvalidFen {
        fen: fen(),
        reason: e.to_string(),
    })
}

impl Position {
    /// A game of standard chess starting at `fen`.
    pub fn from_fen(fen: &str) -> Result<Position, Error> {
        Position::from_fen_in(fen, CastlingMode::Standard)
    }

    /// A game in castling `mode` (standard chess or Chess960) starting at `fen`.
    pub fn from_fen_in(fen: &str, mode: CastlingMode) -> Result<Position, Error> {
        let board = parse_fen_in(fen, mode)?;
        Ok(Position::from_board(board))
    }

    /// A game starting at `board`.
    pub fn from_board(board: Chess) -> Position {
        let key = polyglot_key(&board);
        Position {
            states: vec![State {
                board,
                key,
                null: false,
                moved: None,
            }],
            root: 0,
        }
    }

    /// A game of standard chess starting at `fen` followed by `moves` in UCI notation; the root is
    /// the last position.
    pub fn from_fen_and_moves<S: AsRef<str>>(fen: &str, moves: &[S]) -> Result<Position, Error> {
        Position::from_fen_and_moves_in(fen, moves, CastlingMode::Standard)
    }

    /// [`Position::from_fen_and_moves`] in castling `mode`: the moves are read as
    /// [`Position::parse_uci`] reads them in that mode.
    pub fn from_fen_and_moves_in<S: AsRef<str>>(
        fen: &str,
        moves: &[S],
        mode: CastlingMode,
    ) -> Result<Position, Error> {
        let mut position = Position::from_fen_in(fen, mode)?;
        for uci in moves {
            let m = position.parse_uci(uci.as_ref())?;
            position.push(m);
        }
        position.set_root();
        Ok(position)
    }

    /// The same game in castling `mode`: its first position read again in that mode, then the
    /// same moves. An error when the first position's castling rights have no meaning in
    /// standard chess (a king or rook off its standard square).
    pub fn with_castling_mode(&self, mode: CastlingMode) -> Result<Position, Error> {
        let first = &self.states[0].board;
        let board = Chess::from_setup(first.to_setup(EnPassantMode::Legal), mode).map_err(|e| {
            Error::InvalidFen {
                fen: Fen::from_position(first, EnPassantMode::Legal).to_string(),
                reason: e.to_string(),
            }
        })?;
        let mut position = Position::from_board(board);
        for state in &self.states[1..=self.root] {
            match state.moved {
                Some(m) => position.push(m),
                None => position.push_null(),
            }
        }
        position.set_root();
        Ok(position)
    }

    /// Standard chess or Chess960: how castling rights are read and castling moves written.
    pub fn castling_mode(&self) -> CastlingMode {
        self.board().castles().mode()
    }

    /// Reads a UCI move and checks that it is legal here. In standard chess castling is the
    /// king's two-square move (`e1g1`, and shakmaty's king-takes-rook `e1h1` as well); in Chess960
    /// it is only the king taking its own rook (`e1h1`), as UCI's `UCI_Chess960` says.
    pub fn parse_uci(&self, uci: &str) -> Result<Move, Error> {
        let parsed = UciMove::from_ascii(uci.as_bytes()).map_err(|_| Error::InvalidMove {
            uci: uci.to_string(),
        })?;
        let mode = self.castling_mode();
        parsed
            .to_move(self.board())
            .ok()
            .filter(|m| mode == CastlingMode::Standard || m.to_uci(mode) == parsed)
            .ok_or_else(|| Error::IllegalMove {
                uci: uci.to_string(),
                fen: self.fen(),
            })
    }

    /// A move of this game in UCI notation ([`move_to_uci_in`] in its castling mode).
    pub fn move_to_uci(&self, m: Move) -> String {
        move_to_uci_in(m, self.castling_mode())
    }

    /// Makes the current position the search root.
    pub fn set_root(&mut self) {
        self.root = self.states.len() - 1;
    }

    #[inline]
    fn current(&self) -> &State {
        // The stack is never empty: it starts with the game's first position and pop stops at the root.
        &self.states[self.states.len() - 1]
    }

    /// The current position.
    #[inline]
    pub fn board(&self) -> &Chess {
        &self.current().board
    }

    /// Zobrist key of the current position (Polyglot compatible).
    #[inline]
    pub fn key(&self) -> u64 {
        self.current().key
    }

    /// The position `ply` plies after the search root (at most [`Position::ply`]).
    #[inline]
    pub fn board_at(&self, ply: usize) -> &Chess {
        &self.states[self.root + ply].board
    }

    /// The key of the position `ply` plies after the search root (at most [`Position::ply`]).
    #[inline]
    pub fn key_at(&self, ply: usize) -> u64 {
        self.states[self.root + ply].key
    }

    /// The move that reached the position `ply` plies after the search root, `None` at the
    /// root when it is the game's first position and after a null move.
    #[inline]
    pub fn moved_at(&self, ply: usize) -> Option<Move> {
        self.states[self.root + ply].moved
    }

    /// Whether the position `ply` plies after the search root was reached by a null move.
    #[inline]
    pub fn is_null_at(&self, ply: usize) -> bool {
        self.states[self.root + ply].null
    }

    /// Plies from the search root to the current position.
    #[inline]
    pub fn ply(&self) -> usize {
        self.states.len() - 1 - self.root
    }

    /// Plies played since the game's first position.
    pub fn game_ply(&self) -> usize {
        self.states.len() - 1
    }

    /// Plays a legal move (the caller guarantees legality).
    #[inline]
    pub fn push(&mut self, m: Move) {
        // Copy the current state once, in place at the end of the stack, then play the move on it.
        let last = self.states.len() - 1;
        self.states.extend_from_within(last..);
        let state = &mut self.states[last + 1];
        state.null = false;
        state.moved = Some(m);
        let incremental =
            state
                .board
                .update_zobrist_hash(Zobrist64(state.key), m, EnPassantMode::PseudoLegal);
        state.board.play_unchecked(m);
        state.key = match incremental {
            Some(key) => key.0,
            None => polyglot_key(&state.board),
        };
        debug_assert_eq!(
            state.key,
            polyglot_key(&state.board),
            "incremental Zobrist key diverged"
        );
    }

    /// Passes the move to the opponent (the search's null move): the side to move changes and
    /// nothing else, but the en passant right is lost and the repetition and 50-move counts start
    /// over (no position before a null move repeats one after it). The caller makes sure the side
    /// to move is not in check; taken back with [`Position::pop`].
    pub fn push_null(&mut self) {
        let board = self.board();
        debug_assert!(!board.is_check(), "a null move while in check");
        let mut setup = board.to_setup(EnPassantMode::Legal);
        setup.turn = !setup.turn;
        setup.ep_square = None;
        setup.halfmoves = 0;
        let board = Chess::from_setup(setup, board.castles().mode())
            .expect("passing the move (not in check) keeps a legal position legal");
        let key = polyglot_key(&board);
        self.states.push(State {
            board,
            key,
            null: true,
            moved: None,
        });
    }

    /// Whether the current position was reached by a null move.
    #[inline]
    pub fn is_after_null(&self) -> bool {
        self.current().null
    }

    /// Takes back the last move played with [`Position::push`] after the root.
    #[inline]
    pub fn pop(&mut self) {
        debug_assert!(
            self.states.len() > self.root + 1,
            "pop past the search root"
        );
        self.states.pop();
    }

    /// Whether the current position repeats: once inside the search tree, or twice before (a third
    /// occurrence) counting the game history.
    pub fn is_repetition(&self) -> bool {
        let current = self.states.len() - 1;
        let reversible = self.board().halfmoves() as usize;
        let earliest = current.saturating_sub(reversible);
        let key = self.key();
        let mut seen_in_history = 0;
        let mut index = current;
        while index >= earliest + 2 {
            index -= 2;
            if self.states[index].key == key {
                if index >= self.root {
                    return true;
                }
                seen_in_history += 1;
                if seen_in_history == 2 {
                    return true;
                }
            }
        }
        false
    }

    /// Whether the side to move has a move to a position that [`Position::is_repetition`] would
    /// then call a repetition: a piece going back to where it stood in an earlier position of this
    /// stretch of reversible moves. The search uses it to know a draw is in hand before the
    /// transposition table, which does not know the game's history, suggests otherwise.
    pub fn has_upcoming_repetition(&self) -> bool {
        let board = self.board();
        let reversible = board.halfmoves() as usize;
        let current = self.states.len() - 1;
        let ours = board.board().by_color(board.turn());
        // After our move the opponent is to move: earlier positions at odd distances 3, 5, ...
        let mut distance = 3;
        while distance <= reversible && distance <= current {
            let earlier_index = current - distance;
            distance += 2;
            let earlier = &self.states[earlier_index];
            let changed = board.board().occupied() ^ earlier.board.board().occupied();
            if changed.count() != 2 {
                continue;
            }
            let (Some(from), Some(to)) = ((changed & ours).first(), (changed & !ours).first())
            else {
                continue;
            };
            let Some(role) = board.board().role_at(from) else {
                continue;
            };
            let m = Move::Normal {
                role,
                from,
                capture: None,
                to,
                promotion: None,
            };
            if !board.is_legal(m) {
                continue;
            }
            let mut after = board.clone();
            after.play_unchecked(m);
            if polyglot_key(&after) != earlier.key {
                continue;
            }
            // Inside the tree one repetition is a draw; in the game's history it must be the third.
            if earlier_index >= self.root || self.occurrences_before(earlier_index) >= 2 {
                return true;
            }
        }
        false
    }

    /// How many times the position at `index` occurred within its stretch of reversible moves,
    /// itself included.
    fn occurrences_before(&self, index: usize) -> usize {
        let key = self.states[index].key;
        let earliest = index.saturating_sub(self.states[index].board.halfmoves() as usize);
        (earliest..=index)
            .rev()
            .step_by(2)
            .filter(|&i| self.states[i].key == key)
            .count()
    }

    /// Whether [`FIFTY_MOVE_PLIES`] passed without a capture or pawn move. (Checkmate on the last
    /// of them takes precedence; the search checks for it first.)
    pub fn is_fifty_move_limit(&self) -> bool {
        self.board().halfmoves() >= FIFTY_MOVE_PLIES
    }

    /// Whether neither side can possibly mate.
    pub fn is_insufficient_material(&self) -> bool {
        self.board().is_insufficient_material()
    }

    /// FEN of the current position.
    pub fn fen(&self) -> String {
        Fen::from_position(self.board(), EnPassantMode::Legal).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn castling_fields_are_read_as_python_chess_reads_them() {
        let fen = |castling: &str| format!("r3k2r/8/8/8/8/8/8/R3K2R w {castling} - 0 1");
        for good in ["KQkq", "-", "Kk", "Qq", "K", "q", "HAha", "KK"] {
            assert!(parse_fen(&fen(good)).is_ok(), "{good}");
        }
        for bad in ["kQkq", "kK", "KQkqx", "KQQkq", "KQ-", "x"] {
            let error = parse_fen(&fen(bad)).unwrap_err().to_string();
            assert!(error.contains("castling"), "{bad}: {error}");
        }
    }

    #[test]
    fn an_upcoming_repetition_is_seen() {
        // After Ra1-b1 Ng8-f6 Rb1-a1 Nf6-g8 Ra1-b1 Ng8-f6 Rb1-a1, Black's Nf6-g8 repeats the root
        // position for the third time.
        let moves = ["a1b1", "g8f6", "b1a1", "f6g8", "a1b1", "g8f6", "b1a1"];
        let mut position =
            Position::from_fen_and_moves("4k1n1/8/8/8/8/8/8/R3K2R w - - 0 1", &moves).unwrap();
        position.set_root();
        assert!(position.has_upcoming_repetition());
        // One repetition earlier, Nf6-g8 would be only the second occurrence: no draw yet.
        let mut early =
            Position::from_fen_and_moves("4k1n1/8/8/8/8/8/8/R3K2R w - - 0 1", &moves[..3]).unwrap();
        early.set_root();
        assert!(!early.has_upcoming_repetition());
        // Inside the search tree one repetition is enough.
        let mut tree = Position::from_fen("4k1n1/8/8/8/8/8/8/R3K2R w - - 0 1").unwrap();
        tree.set_root();
        for uci in &moves[..3] {
            let m = tree.parse_uci(uci).unwrap();
            tree.push(m);
        }
        assert!(tree.has_upcoming_repetition());
        let start = Position::from_fen(START_FEN).unwrap();
        assert!(!start.has_upcoming_repetition());
    }

    #[test]
    fn start_position_key_is_polyglot() {
        let position = Position::from_fen(START_FEN).unwrap();
        assert_eq!(position.key(), 0x463b96181691fc9c);
    }

    #[test]
    fn incremental_keys_match_full_computation() {
        let moves = [
            "e2e4", "d7d5", "e4e5", "f7f5", "e5f6", "g8f6", "e1e2", "e8f7", "b1c3", "h7h6",
        ];
        let position = Position::from_fen_and_moves(START_FEN, &moves).unwrap();
        assert_eq!(position.key(), polyglot_key(position.board()));
        assert_eq!(position.game_ply(), moves.len());
        assert_eq!(position.ply(), 0);
    }

    #[test]
    fn threefold_counts_history_twofold_counts_tree() {
        let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        // One repetition in the history only: the start position has occurred twice.
        let mut position = Position::from_fen_and_moves(START_FEN, &shuffle).unwrap();
        assert!(!position.is_repetition());
        // Repeating once more inside the search tree is a draw.
        for uci in shuffle {
            let m = position.parse_uci(uci).unwrap();
            position.push(m);
        }
        assert!(position.is_repetition());
        // Two repetitions in the history: a third occurrence.
        let twice: Vec<&str> = shuffle.iter().chain(shuffle.iter()).copied().collect();
        let position = Position::from_fen_and_moves(START_FEN, &twice).unwrap();
        assert!(position.is_repetition());
    }

    #[test]
    fn bad_input_is_an_error_quoting_it() {
        for fen in [
            "garbage",
            "8/8/8/8/8/8/8/8 w - -",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w XYZ - 0 1",
        ] {
            let err = Position::from_fen(fen).unwrap_err();
            assert!(err.to_string().contains(fen), "{err}");
        }
        let err = Position::from_fen_and_moves(START_FEN, &["e2e5"]).unwrap_err();
        assert!(matches!(err, Error::IllegalMove { .. }), "{err}");
        let err = Position::from_fen_and_moves(START_FEN, &["zz"]).unwrap_err();
        assert!(err.to_string().contains("'zz'"), "{err}");
    }

    #[test]
    fn fifty_move_rule() {
        let position = Position::from_fen("8/8/8/4k3/8/8/8/R3K3 w - - 100 80").unwrap();
        assert!(position.is_fifty_move_limit());
        let position = Position::from_fen("8/8/8/4k3/8/8/8/R3K3 w - - 99 80").unwrap();
        assert!(!position.is_fifty_move_limit());
    }
}
