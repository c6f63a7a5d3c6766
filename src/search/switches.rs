//! The search's switches: parts of the search a learner can turn off to see what each is worth.

/// Parts of the search that can be switched off, to see what each is worth (all on by default).
/// With everything off the search is the plain minimax of the textbooks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SearchSwitches {
    /// Alpha-beta pruning (off: every move is searched with a full window, nothing is cut off;
    /// mate distance pruning, stand-pat cut-offs and delta pruning go too).
    pub alpha_beta: bool,
    /// The quiescence search at the horizon (off: the static evaluation there, mid-exchange or not).
    pub quiescence: bool,
    /// Move ordering: TT move, MVV-LVA, killers, history (off: the order moves are generated in).
    pub move_ordering: bool,
    /// The transposition table (off: never probed nor stored to).
    pub transposition_table: bool,
    /// Selective search, on top of alpha-beta: null-move, ProbCut, reverse futility, futility,
    /// late move, history and static-exchange pruning, late move and internal iterative reductions,
    /// singular extensions, the correction history's correction of the static evaluation and its
    /// shrinking as the 50-move rule nears, and the quiescence search's
    /// static-exchange pruning. These trade exactness for depth (off, alpha-beta without
    /// quiescence returns exactly the minimax score: the quiescence search's delta pruning
    /// belongs to alpha-beta; on, the engine plays far better).
    pub pruning: bool,
}

impl SearchSwitches {
    /// Whether the selective steps run (they need alpha-beta).
    #[inline]
    pub fn selective(&self) -> bool {
        self.alpha_beta && self.pruning
    }
}

impl Default for SearchSwitches {
    fn default() -> Self {
        SearchSwitches {
            alpha_beta: true,
            quiescence: true,
            move_ordering: true,
            transposition_table: true,
            pruning: true,
        }
    }
}
