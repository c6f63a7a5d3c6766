//! Endgame tablebases in the search (the main search's Step 8): the WDL value of a position
//! just reached by a capture or pawn move, scored in its band below the mates.

use shakmaty::Position as _;

use super::context::Context;
use crate::score::Score;
use crate::tablebase::Wdl;

impl Context<'_> {
    /// The tablebase score of the current position when it was just reached by a zeroing move
    /// (not at the root) and the tables cover it. A table that fails to be read stops the probing
    /// for the rest of the search and is reported, never raised.
    pub(super) fn probe_tablebase(&mut self, ply: usize) -> Option<Score> {
        let tablebase = self.tablebase?;
        let board = self.position.board();
        if ply == 0 || board.halfmoves() != 0 || !tablebase.covers(board) {
            return None;
        }
        match tablebase.wdl(board) {
            Ok(Some(wdl)) => {
                self.tbhits += 1;
                Some(match wdl {
                    Wdl::Win => Score::tb_win_in(ply),
                    Wdl::CursedWin => Score::CURSED_WIN,
                    Wdl::Draw => Score::DRAW,
                    Wdl::BlessedLoss => Score::BLESSED_LOSS,
                    Wdl::Loss => Score::tb_loss_in(ply),
                })
            }
            Ok(None) => None,
            Err(error) => {
                self.tablebase_error = Some(error.to_string());
                self.tablebase = None;
                None
            }
        }
    }
}
