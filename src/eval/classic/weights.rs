//! The weights of the positional terms ([`super::terms`]), in centipawns, (middlegame, endgame).
//!
//! The values between the `tuned` markers are written by the Texel tuner,
//! `cargo run --release -p ferrochess-tools --bin texel-tune -- POSITIONS --write` (see
//! `tools/src/texel.rs`), which fits them to the positions' labels (Stockfish's expected scores,
//! from `tools/ferrochess_tools/texel_positions.py --stockfish`), with the material and
//! piece-square tables held fixed.

use super::Tapered;

/// What a weight belongs to, for the evaluation's breakdown.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Group {
    PawnStructure,
    PassedPawns,
    Mobility,
    KingSafety,
    Pieces,
}

/// A named run of weights: `name`, first index, how many, group.
pub struct Term {
    pub name: &'static str,
    pub first: usize,
    pub len: usize,
    pub group: Group,
}

/// Per pawn beyond the first on a file.
pub const DOUBLED_PAWN: usize = 0;
/// Per pawn with no pawn of its side on the files beside it.
pub const ISOLATED_PAWN: usize = 1;
/// Per pawn that no pawn of its side can defend and whose stop square an enemy pawn attacks.
pub const BACKWARD_PAWN: usize = 2;
/// Per pawn defended by a pawn.
pub const SUPPORTED_PAWN: usize = 3;
/// Per pawn with a pawn of its side beside it on the same rank.
pub const PHALANX_PAWN: usize = 4;
/// Per passed pawn, by its rank from its side's point of view (8 weights, first and last unused).
pub const PASSED_PAWN: usize = 5;
/// Per passed pawn whose stop square is occupied.
pub const PASSED_PAWN_BLOCKED: usize = 13;
/// Per square between the own king and a passed pawn's stop square, times the pawn's rank bonus
/// (its rank from its side's point of view minus 2, at least 0).
pub const PASSED_PAWN_OWN_KING: usize = 14;
/// The same for the enemy king.
pub const PASSED_PAWN_THEIR_KING: usize = 15;
/// Per square a knight, bishop, rook or queen attacks that holds no piece of its side and no
/// enemy pawn attacks (4 weights).
pub const MOBILITY: usize = 16;
/// Per square of the enemy king's zone (the king's square and its neighbours) that a knight,
/// bishop, rook or queen attacks (4 weights).
pub const KING_ZONE_ATTACK: usize = 20;
/// Per pawn of the king's side on its file or the files beside it, one or two ranks ahead.
pub const KING_SHELTER_PAWN: usize = 24;
/// Per file at or beside the king without a pawn of its side.
pub const KING_OPEN_FILE: usize = 25;
/// Two bishops or more.
pub const BISHOP_PAIR: usize = 26;
/// Per rook on a file without pawns.
pub const ROOK_OPEN_FILE: usize = 27;
/// Per rook on a file with only enemy pawns.
pub const ROOK_SEMI_OPEN_FILE: usize = 28;
/// Per enemy knight, bishop, rook or queen attacked by a pawn.
pub const THREAT_BY_PAWN: usize = 29;
/// Per knight on the fourth to sixth rank, defended by a pawn, that no enemy pawn can attack.
pub const KNIGHT_OUTPOST: usize = 30;
/// How many weights there are.
pub const COUNT: usize = 31;

/// Every run of weights, in index order.
pub const TERMS: [Term; 19] = [
    term("doubled pawn", DOUBLED_PAWN, 1, Group::PawnStructure),
    term("isolated pawn", ISOLATED_PAWN, 1, Group::PawnStructure),
    term("backward pawn", BACKWARD_PAWN, 1, Group::PawnStructure),
    term("supported pawn", SUPPORTED_PAWN, 1, Group::PawnStructure),
    term("phalanx pawn", PHALANX_PAWN, 1, Group::PawnStructure),
    term("passed pawn", PASSED_PAWN, 8, Group::PassedPawns),
    term(
        "passed pawn blocked",
        PASSED_PAWN_BLOCKED,
        1,
        Group::PassedPawns,
    ),
    term(
        "passed pawn own king",
        PASSED_PAWN_OWN_KING,
        1,
        Group::PassedPawns,
    ),
    term(
        "passed pawn their king",
        PASSED_PAWN_THEIR_KING,
        1,
        Group::PassedPawns,
    ),
    term("mobility", MOBILITY, 4, Group::Mobility),
    term("king zone attack", KING_ZONE_ATTACK, 4, Group::KingSafety),
    term("king shelter pawn", KING_SHELTER_PAWN, 1, Group::KingSafety),
    term("king open file", KING_OPEN_FILE, 1, Group::KingSafety),
    term("bishop pair", BISHOP_PAIR, 1, Group::Pieces),
    term("rook open file", ROOK_OPEN_FILE, 1, Group::Pieces),
    term("rook semi-open file", ROOK_SEMI_OPEN_FILE, 1, Group::Pieces),
    term("threat by pawn", THREAT_BY_PAWN, 1, Group::Pieces),
    term("knight outpost", KNIGHT_OUTPOST, 1, Group::Pieces),
    term("end", COUNT, 0, Group::Pieces),
];

const fn term(name: &'static str, first: usize, len: usize, group: Group) -> Term {
    Term {
        name,
        first,
        len,
        group,
    }
}

/// The group weight `index` belongs to.
pub fn group(index: usize) -> Group {
    TERMS
        .iter()
        .rev()
        .find(|term| term.first <= index && term.len > 0)
        .map_or(Group::Pieces, |term| term.group)
}

const fn t(middlegame: i32, endgame: i32) -> Tapered {
    Tapered {
        middlegame,
        endgame,
    }
}

/// The weights, indexed by the constants above.
#[rustfmt::skip]
pub static WEIGHTS: [Tapered; COUNT] = [
    // tuned: begin
    t(-26, 6), // doubled pawn
    t(-8, -4), // isolated pawn
    t(-16, -11), // backward pawn
    t(-1, 35), // supported pawn
    t(1, 16), // phalanx pawn
    t(0, 0), t(9, 44), t(-12, 58), t(-76, 91), t(-57, 126), t(-38, 155), t(-58, 112), t(0, 0), // passed pawn
    t(-31, -26), // passed pawn blocked
    t(2, -8), // passed pawn own king
    t(10, 7), // passed pawn their king
    t(7, 12), t(5, 10), t(4, 10), t(3, 11), // mobility
    t(13, -4), t(16, -0), t(11, 2), t(4, 32), // king zone attack
    t(-2, -8), // king shelter pawn
    t(-29, -13), // king open file
    t(30, 114), // bishop pair
    t(36, 2), // rook open file
    t(11, 18), // rook semi-open file
    t(49, 59), // threat by pawn
    t(15, 45), // knight outpost
    // tuned: end
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_tile_the_weights() {
        let mut next = 0;
        for term in &TERMS {
            assert_eq!(term.first, next, "{}", term.name);
            next += term.len;
        }
        assert_eq!(next, COUNT);
        assert_eq!(group(PASSED_PAWN + 7), Group::PassedPawns);
        assert_eq!(group(KNIGHT_OUTPOST), Group::Pieces);
    }
}
