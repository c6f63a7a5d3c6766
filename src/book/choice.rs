//! Choosing one book move: how ([`Selection`]), within which limits ([`BookOptions`]), and with which
//! randomness ([`Random`], seeded for reproducible games). [`BookPlayer`] holds all three for an
//! engine that consults its book before it searches.

use std::sync::Arc;

use shakmaty::{Chess, Move, Position as _};

use super::{Book, BookEntry};
use crate::error::Error;
use crate::random::Random;

/// How a move is picked among a position's book moves.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Selection {
    /// At random, in proportion to the weights (what Polyglot does): varied, but mostly the
    /// moves the book likes best.
    #[default]
    Weighted,
    /// At random, every move alike.
    Uniform,
    /// The highest weight (the first in file order among equals): always the same move.
    Best,
}

impl Selection {
    /// The names accepted by [`Selection::parse`], in the order of the variants.
    pub const NAMES: [&'static str; 3] = ["weighted", "uniform", "best"];

    /// `"weighted"`, `"uniform"` or `"best"`.
    pub fn parse(name: &str) -> Result<Selection, Error> {
        match name {
            "weighted" => Ok(Selection::Weighted),
            "uniform" => Ok(Selection::Uniform),
            "best" => Ok(Selection::Best),
            _ => Err(Error::argument(
                "book_choice",
                format!("'{name}'"),
                "must be 'weighted', 'uniform' or 'best'",
            )),
        }
    }
}

/// Which book moves may be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookOptions {
    pub selection: Selection,
    /// Entries lighter than this are ignored (at least 1: weight 0 means "never play").
    pub minimum_weight: u16,
    /// The book is left once the game is this many plies old (counted from the FEN's move
    /// number, so a game set up mid-way counts its earlier moves); `None` for no limit.
    pub max_ply: Option<u32>,
}

impl Default for BookOptions {
    fn default() -> Self {
        BookOptions {
            selection: Selection::Weighted,
            minimum_weight: 1,
            max_ply: None,
        }
    }
}

/// The game ply of `position` as its FEN tells it: 0 at move 1 with White to move.
pub fn game_ply(position: &Chess) -> u32 {
    let full_moves = position.fullmoves().get();
    (full_moves - 1)
        .saturating_mul(2)
        .saturating_add(u32::from(position.turn().is_black()))
}

impl Book {
    /// One book move for `position` chosen by `options` (never one in `excluded`, never an
    /// illegal one), or `None` when the book has nothing to offer there.
    pub fn choose(
        &self,
        position: &Chess,
        options: &BookOptions,
        excluded: &[Move],
        random: &mut Random,
    ) -> Option<BookEntry> {
        if options.max_ply.is_some_and(|max| game_ply(position) >= max) {
            return None;
        }
        let entries: Vec<BookEntry> = self
            .find_all(position, options.minimum_weight.max(1))
            .into_iter()
            .filter(|entry| !excluded.contains(&entry.chess_move))
            .collect();
        if entries.is_empty() {
            return None;
        }
        let chosen = match options.selection {
            Selection::Best => {
                // `max_by_key` would keep the last of equals; the first in file order is wanted.
                let best = entries.iter().map(|e| e.weight).max()?;
                entries.iter().position(|e| e.weight == best)?
            }
            Selection::Uniform => random.below(entries.len() as u64) as usize,
            Selection::Weighted => {
                let total: u64 = entries.iter().map(|e| u64::from(e.weight)).sum();
                let mut target = random.below(total);
                entries
                    .iter()
                    .position(|e| {
                        let weight = u64::from(e.weight);
                        if target < weight {
                            true
                        } else {
                            target -= weight;
                            false
                        }
                    })
                    .expect("the target is below the total weight")
            }
        };
        Some(entries[chosen])
    }
}

/// A book with the rules and the randomness an engine plays it by.
pub struct BookPlayer {
    book: Arc<Book>,
    pub options: BookOptions,
    random: Random,
}

impl BookPlayer {
    /// `seed` makes the choices reproducible; `None` draws a fresh seed.
    pub fn new(book: Arc<Book>, options: BookOptions, seed: Option<u64>) -> BookPlayer {
        let random = seed.map_or_else(Random::from_entropy, Random::seeded);
        BookPlayer {
            book,
            options,
            random,
        }
    }

    pub fn book(&self) -> &Book {
        &self.book
    }

    /// The book, shared (to hand it to another player).
    pub fn shared_book(&self) -> Arc<Book> {
        Arc::clone(&self.book)
    }

    /// The move to play from the book in `position`, if any (see [`Book::choose`]).
    pub fn choose(&mut self, position: &Chess, excluded: &[Move]) -> Option<BookEntry> {
        self.book
            .choose(position, &self.options, excluded, &mut self.random)
    }

    /// Every legal book move of `position` that the options allow (ignoring `max_ply`), in file
    /// order: what an analysis shows beside its search.
    pub fn candidates(&self, position: &Chess) -> Vec<BookEntry> {
        self.book
            .find_all(position, self.options.minimum_weight.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_ply_saturates_at_the_largest_move_number() {
        let late = crate::position::parse_fen("8/8/4k3/8/8/4K3/4P3/8 b - - 0 4294967295").unwrap();
        assert_eq!(game_ply(&late), u32::MAX);
        let start = crate::position::parse_fen(crate::position::START_FEN).unwrap();
        assert_eq!(game_ply(&start), 0);
    }

    #[test]
    fn selection_names_parse_and_bad_ones_are_quoted() {
        for (name, expected) in
            Selection::NAMES
                .iter()
                .zip([Selection::Weighted, Selection::Uniform, Selection::Best])
        {
            assert_eq!(Selection::parse(name).unwrap(), expected);
        }
        let error = Selection::parse("random").unwrap_err();
        assert!(error.to_string().contains("'random'"), "{error}");
    }

    #[test]
    fn game_ply_counts_from_the_fen() {
        let start = crate::position::parse_fen(crate::position::START_FEN).unwrap();
        assert_eq!(game_ply(&start), 0);
        let black = crate::position::parse_fen(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3",
        )
        .unwrap();
        assert_eq!(game_ply(&black), 5);
    }
}
