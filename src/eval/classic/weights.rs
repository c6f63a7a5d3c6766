//! The numbers of the hand-crafted evaluation: [`ClassicWeights`] holds all of them (material,
//! piece-square tables, the positional terms' weights, the tempo bonus), and [`DEFAULT_WEIGHTS`]
//! are the ones the engine plays with; the Python binding reads and sets them, and the Texel
//! tuner ([`super::tune`]) fits them.
//!
//! The positional terms ([`super::terms`]) are named runs of weights, [`TERMS`], in centipawns,
//! (middlegame, endgame). Their default values between the `tuned` markers are written by the
//! Texel tuner, `cargo run --release -p ferrochess-tools --bin texel-tune -- POSITIONS --write`
//! (see `tools/src/texel.rs`), which fits them to the positions' labels (Stockfish's expected
//! scores, from `tools/ferrochess_tools/texel_positions.py --stockfish`), with the material and
//! piece-square tables held fixed.

use shakmaty::{Color, Role, Square};

use super::pst;
use super::tapered::Tapered;
use crate::error::Error;

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
/// (its 0-based rank from its side's point of view minus 2, at least 0: 1 on the fourth rank).
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

/// The side to move is worth this much by default, in centipawns: having the move is an
/// advantage, and without it a fixed-depth search swings by some 35 cp between odd and even depths (measured at
/// the start position: +35 at depths 1, 3, 5, 0 at 2, 4, 6), which a game review reads as
/// inaccuracies.
pub const TEMPO_CP: i32 = 18;

/// The largest magnitude of any weight, in centipawns (a hundred pawns): it keeps every
/// evaluation far from overflowing.
pub const MAX_WEIGHT: i32 = 10_000;

/// The names of the roles, Pawn..King, as weights' fields are named.
pub const ROLE_NAMES: [&str; 6] = ["pawn", "knight", "bishop", "rook", "queen", "king"];

/// Every number of the hand-crafted evaluation, in centipawns from the point of view of the
/// piece's owner: material per role, a piece-square table per role, the positional terms'
/// weights ([`TERMS`]) and the tempo bonus of the side to move. The game phase that blends
/// middlegame and endgame is fixed ([`pst::PHASE_WEIGHT`]).
///
/// Built once (a search reads it by reference, with no allocation): [`ClassicWeights::new`]
/// checks the values and precomputes material plus table for each colour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassicWeights {
    material: [Tapered; 6],
    tables: [[Tapered; 64]; 6],
    terms: [Tapered; COUNT],
    tempo: i32,
    /// Material plus table, indexed `[color][role][square]` (`color as usize`: Black 0, White 1;
    /// `role as usize - 1`; shakmaty's square index): what the evaluation sums.
    placed: [[[Tapered; 64]; 6]; 2],
}

/// The weights the engine plays with: PeSTO's material and tables ([`pst::MATERIAL`],
/// [`pst::TABLES`]), the tuned [`WEIGHTS`] and [`TEMPO_CP`].
pub static DEFAULT_WEIGHTS: ClassicWeights = ClassicWeights::build(
    paired(&pst::MATERIAL),
    {
        let mut tables = [[t(0, 0); 64]; 6];
        let mut role = 0;
        while role < 6 {
            tables[role] = paired(&pst::TABLES[role]);
            role += 1;
        }
        tables
    },
    WEIGHTS,
    TEMPO_CP,
);

/// `(middlegame, endgame)` pairs as tapered values.
const fn paired<const N: usize>(pairs: &[(i32, i32); N]) -> [Tapered; N] {
    let mut out = [t(0, 0); N];
    let mut index = 0;
    while index < N {
        out[index] = t(pairs[index].0, pairs[index].1);
        index += 1;
    }
    out
}

impl Default for ClassicWeights {
    /// [`DEFAULT_WEIGHTS`].
    fn default() -> ClassicWeights {
        DEFAULT_WEIGHTS.clone()
    }
}

impl ClassicWeights {
    /// Weights from their parts: `material` and `tables` indexed by role (Pawn..King), each table
    /// by shakmaty's square index from White's side (a1 = 0, b1 = 1, ..., h8 = 63; a Black piece
    /// on a square reads the entry of the square mirrored vertically), `terms` indexed as
    /// [`TERMS`], `tempo` for the side to move. Every value must lie within
    /// [`MAX_WEIGHT`]; the error names the first that does not.
    pub fn new(
        material: [Tapered; 6],
        tables: [[Tapered; 64]; 6],
        terms: [Tapered; COUNT],
        tempo: i32,
    ) -> Result<ClassicWeights, Error> {
        let check = |field: String, value: i32| {
            // Not `value.abs()`: i32::MIN's wraps (in release) to itself and would pass.
            if (-MAX_WEIGHT..=MAX_WEIGHT).contains(&value) {
                Ok(())
            } else {
                Err(Error::argument(
                    "weight",
                    format!("{field} = {value}"),
                    format!("must be between -{MAX_WEIGHT} and {MAX_WEIGHT} centipawns"),
                ))
            }
        };
        let check_tapered = |field: String, value: Tapered| {
            check(format!("{field} middlegame"), value.middlegame)?;
            check(format!("{field} endgame"), value.endgame)
        };
        for (role, name) in ROLE_NAMES.iter().enumerate() {
            check_tapered(format!("material {name}"), material[role])?;
            for square in Square::ALL {
                check_tapered(
                    format!("tables {name} {square}"),
                    tables[role][square as usize],
                )?;
            }
        }
        for term in TERMS.iter().filter(|term| term.len > 0) {
            for offset in 0..term.len {
                check_tapered(
                    format!("{} {offset}", term.name),
                    terms[term.first + offset],
                )?;
            }
        }
        check("tempo".to_string(), tempo)?;
        Ok(ClassicWeights::build(material, tables, terms, tempo))
    }

    /// [`ClassicWeights::new`] without the checks, at compile time for [`DEFAULT_WEIGHTS`].
    const fn build(
        material: [Tapered; 6],
        tables: [[Tapered; 64]; 6],
        terms: [Tapered; COUNT],
        tempo: i32,
    ) -> ClassicWeights {
        let zero = Tapered {
            middlegame: 0,
            endgame: 0,
        };
        let mut placed = [[[zero; 64]; 6]; 2];
        let mut role = 0;
        while role < 6 {
            let mut square = 0;
            while square < 64 {
                let value = Tapered {
                    middlegame: material[role].middlegame + tables[role][square].middlegame,
                    endgame: material[role].endgame + tables[role][square].endgame,
                };
                placed[Color::White as usize][role][square] = value;
                // Black's piece on the mirrored square is worth the same to Black.
                placed[Color::Black as usize][role][square ^ 56] = value;
                square += 1;
            }
            role += 1;
        }
        ClassicWeights {
            material,
            tables,
            terms,
            tempo,
            placed,
        }
    }

    /// Material per role (Pawn..King).
    pub fn material(&self) -> &[Tapered; 6] {
        &self.material
    }

    /// The piece-square tables per role (Pawn..King), by square from White's side (a1 = 0).
    pub fn tables(&self) -> &[[Tapered; 64]; 6] {
        &self.tables
    }

    /// The positional terms' weights, indexed as [`TERMS`].
    pub fn terms(&self) -> &[Tapered; COUNT] {
        &self.terms
    }

    /// The bonus of the side to move.
    pub fn tempo(&self) -> i32 {
        self.tempo
    }

    /// Material plus table of a piece of `color` and `role` on `square`, from its owner's point of
    /// view.
    #[inline]
    pub fn placed(&self, color: Color, role: Role, square: Square) -> Tapered {
        self.placed[color as usize][role as usize - 1][square as usize]
    }

    /// `"classic"` for [`DEFAULT_WEIGHTS`], else `classic-` and 12 hex digits of a hash of every
    /// value (the same on every platform), so two sets of weights are told apart by name.
    pub fn name(&self) -> String {
        if *self == DEFAULT_WEIGHTS {
            return "classic".to_string();
        }
        let mut bytes = Vec::with_capacity(4 * (2 * (6 + 6 * 64 + COUNT) + 1));
        let all = self
            .material
            .iter()
            .chain(self.tables.iter().flatten())
            .chain(self.terms.iter());
        for value in all {
            bytes.extend_from_slice(&value.middlegame.to_le_bytes());
            bytes.extend_from_slice(&value.endgame.to_le_bytes());
        }
        bytes.extend_from_slice(&self.tempo.to_le_bytes());
        format!("classic-{:012x}", crate::hash::fnv1a(&bytes) >> 16)
    }
}

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

    #[test]
    fn default_weights_place_pieces_as_the_published_tables() {
        for color in Color::ALL {
            for role in Role::ALL {
                for square in Square::ALL {
                    let placed = DEFAULT_WEIGHTS.placed(color, role, square);
                    assert_eq!(placed.middlegame, pst::middlegame(color, role, square));
                    assert_eq!(placed.endgame, pst::endgame(color, role, square));
                }
            }
        }
        assert_eq!(DEFAULT_WEIGHTS.terms(), &WEIGHTS);
        assert_eq!(DEFAULT_WEIGHTS.tempo(), TEMPO_CP);
        assert_eq!(DEFAULT_WEIGHTS.name(), "classic");
    }

    #[test]
    fn new_checks_every_value_and_names_the_bad_one() {
        let base = ClassicWeights::default();
        let rebuilt = ClassicWeights::new(
            *base.material(),
            *base.tables(),
            *base.terms(),
            base.tempo(),
        )
        .unwrap();
        assert_eq!(rebuilt, base);
        let mut tables = *base.tables();
        tables[1][Square::E4 as usize].endgame = MAX_WEIGHT + 1;
        let error = ClassicWeights::new(*base.material(), tables, *base.terms(), 0).unwrap_err();
        assert!(
            error.to_string().contains("tables knight e4 endgame"),
            "{error}"
        );
        let mut terms = *base.terms();
        terms[PASSED_PAWN + 6].middlegame = -MAX_WEIGHT - 1;
        let error = ClassicWeights::new(*base.material(), *base.tables(), terms, 0).unwrap_err();
        assert!(
            error.to_string().contains("passed pawn 6 middlegame"),
            "{error}"
        );
        let error = ClassicWeights::new(*base.material(), *base.tables(), *base.terms(), i32::MIN)
            .unwrap_err();
        assert!(error.to_string().contains("tempo"), "{error}");
    }

    #[test]
    fn names_tell_weights_apart() {
        let mut material = *DEFAULT_WEIGHTS.material();
        material[1].middlegame = 100;
        let changed =
            ClassicWeights::new(material, *DEFAULT_WEIGHTS.tables(), WEIGHTS, TEMPO_CP).unwrap();
        let name = changed.name();
        assert!(name.starts_with("classic-") && name.len() == 20, "{name}");
        assert_eq!(name, changed.clone().name());
        let other = ClassicWeights::new(material, *DEFAULT_WEIGHTS.tables(), WEIGHTS, TEMPO_CP + 1)
            .unwrap();
        assert_ne!(other.name(), name);
    }
}
