//! The transposition table: a fixed-size array of 16-byte entries addressed by Zobrist key.
//!
//! Each entry keeps the full key (so a hit is a real hit, bar a 64-bit collision) and packs the best
//! move, the score (node-relative for mates, see [`Score::to_tt`]), the depth, the bound, the search
//! generation and the static evaluation into one `u64`. Replacement prefers the current search and deeper results.
//!
//! The table is shared by the threads of one search without locks: each slot is two atomic words,
//! the data and the key XOR the data (Hyatt's lockless hashing), so a slot torn by two threads
//! writing at once reads as a miss, never as another position's entry.

use std::sync::atomic::{AtomicU64, Ordering};

use memmap2::MmapMut;
use shakmaty::{Move, Role};

use crate::error::Error;
use crate::score::Score;

/// Which side of the true score a stored score is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The score is exact (a PV node).
    Exact,
    /// The true score is at least this (a beta cut-off).
    Lower,
    /// The true score is at most this (no move raised alpha).
    Upper,
}

impl Bound {
    /// Whether a stored `score` with this bound settles a node searched within `alpha..beta`
    /// (the true score is then known to lie outside the window, or is known exactly).
    #[inline]
    pub fn settles(self, score: Score, alpha: Score, beta: Score) -> bool {
        match self {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        }
    }
}

/// A move packed in 16 bits: from (6), to (6), promotion role (3). Castling is king-to-rook.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct PackedMove(u16);

impl PackedMove {
    pub const NONE: PackedMove = PackedMove(0);

    pub fn new(m: Move) -> PackedMove {
        let (from, to, promotion) = match m {
            Move::Normal {
                from,
                to,
                promotion,
                ..
            } => (from, to, promotion),
            Move::EnPassant { from, to } => (from, to, None),
            Move::Castle { king, rook } => (king, rook, None),
            Move::Put { to, .. } => (to, to, None),
        };
        let promotion = promotion.map_or(0, |role: Role| role as u16);
        PackedMove(from as u16 | (to as u16) << 6 | promotion << 12)
    }

    pub fn is_none(self) -> bool {
        self == PackedMove::NONE
    }
}

/// What a probe finds.
#[derive(Copy, Clone, Debug)]
pub struct TableEntry {
    pub best_move: PackedMove,
    pub score: Score,
    pub depth: i32,
    pub bound: Bound,
    /// The position's static evaluation as the search computed it (before the 50-move rule's
    /// damping, which depends on the clock the key does not hold), if it was.
    pub eval: Option<i32>,
}

/// The stored evaluation's bits meaning "none": `i16::MIN`, never a stored value.
const NO_EVAL: u16 = i16::MIN as u16;

/// One table slot: the key XOR the data, and the data. All-zero bytes are a valid empty slot (the
/// table is allocated zeroed).
#[derive(Default)]
#[repr(C)]
struct Slot {
    checked_key: AtomicU64,
    data: AtomicU64,
}

impl Slot {
    /// The stored key and data; the key is wrong (a miss) if another thread wrote half the slot.
    #[inline]
    fn load(&self) -> (u64, u64) {
        let data = self.data.load(Ordering::Relaxed);
        (self.checked_key.load(Ordering::Relaxed) ^ data, data)
    }

    #[inline]
    fn save(&self, key: u64, data: u64) {
        self.checked_key.store(key ^ data, Ordering::Relaxed);
        self.data.store(data, Ordering::Relaxed);
    }
}

/// The table. Its size is fixed at creation, in megabytes.
pub struct TranspositionTable {
    slots: Slots,
    generation: u8,
    megabytes: usize,
}

/// Largest table a caller may ask for, in megabytes.
pub const MAX_HASH_MB: usize = 16_384;

/// Validates a table size given by a user, in megabytes: 1 to [`MAX_HASH_MB`].
pub fn check_hash_mb(megabytes: i64) -> Result<usize, Error> {
    crate::error::check_range("hash_mb", megabytes, 1, MAX_HASH_MB)
}

const SLOT_BYTES: usize = std::mem::size_of::<Slot>();

impl TranspositionTable {
    /// A table of `megabytes` MB (1 to [`MAX_HASH_MB`]); an allocation failure is an error, not an abort.
    pub fn new(megabytes: usize) -> Result<TranspositionTable, Error> {
        let megabytes = check_hash_mb(i64::try_from(megabytes).unwrap_or(i64::MAX))?;
        let count = megabytes * 1024 * 1024 / SLOT_BYTES;
        let slots = Slots::new(count).ok_or(Error::OutOfMemory { megabytes })?;
        Ok(TranspositionTable {
            slots,
            generation: 0,
            megabytes,
        })
    }

    pub fn megabytes(&self) -> usize {
        self.megabytes
    }

    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        self.slots.zero();
        self.generation = 0;
    }

    /// Marks the start of a new search, so older entries are replaced first.
    pub fn new_search(&mut self) {
        self.generation = (self.generation + 1) & 0x3f;
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        ((key as u128 * self.slots.len() as u128) >> 64) as usize
    }

    /// The entry stored for `key`, if any. The score is still node-relative.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<TableEntry> {
        let (stored_key, data) = self.slots[self.index(key)].load();
        if stored_key != key || data == 0 {
            return None;
        }
        let bound = match (data >> 40) & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            _ => Bound::Upper,
        };
        Some(TableEntry {
            best_move: PackedMove(data as u16),
            score: Score::from_i16((data >> 16) as u16 as i16),
            depth: ((data >> 32) & 0xff) as i32,
            bound,
            eval: match (data >> 48) as u16 {
                NO_EVAL => None,
                bits => Some(i32::from(bits as i16)),
            },
        })
    }

    /// Stores a result; `score` must already be node-relative. `eval` is the position's static
    /// evaluation when the search computed it (kept only within `i16`, less its minimum); without
    /// it, one already stored for the same position stays.
    #[inline]
    pub fn store(
        &self,
        key: u64,
        best_move: PackedMove,
        score: Score,
        depth: i32,
        bound: Bound,
        eval: Option<i32>,
    ) {
        let index = self.index(key);
        let slot = &self.slots[index];
        let (old_key, old_data) = slot.load();
        let old_depth = ((old_data >> 32) & 0xff) as i32;
        let old_generation = ((old_data >> 42) & 0x3f) as u8;
        let same_position = old_key == key;
        if !same_position
            && old_data != 0
            && old_generation == self.generation
            && depth + 2 < old_depth
            && bound != Bound::Exact
        {
            return;
        }
        // Keep the old best move when the new result has none (an all-node).
        let best_move = if best_move.is_none() && same_position {
            PackedMove(old_data as u16)
        } else {
            best_move
        };
        let eval_bits = match eval.and_then(|value| i16::try_from(value).ok()) {
            Some(value) if value != i16::MIN => value as u16,
            _ if same_position && old_data != 0 => (old_data >> 48) as u16,
            _ => NO_EVAL,
        };
        let bound_bits: u64 = match bound {
            Bound::Exact => 1,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        let data = best_move.0 as u64
            | (score.to_i16() as u16 as u64) << 16
            | (depth.clamp(0, 255) as u64) << 32
            | bound_bits << 40
            | (self.generation as u64) << 42
            | (eval_bits as u64) << 48;
        slot.save(key, data);
    }

    /// Permille of sampled entries written by the current search (UCI's `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let sample = self.slots.len().min(1000);
        let used = self.slots[..sample]
            .iter()
            .map(|slot| slot.data.load(Ordering::Relaxed))
            .filter(|&data| data != 0 && ((data >> 42) & 0x3f) as u8 == self.generation)
            .count();
        (used * 1000 / sample.max(1)) as u32
    }
}

/// The bytes of a transparent huge page on x86-64 Linux, the boundary the slots start on.
const HUGE_PAGE_BYTES: usize = 2 * 1024 * 1024;

/// The table's slots, in memory mapped for them alone: anonymous pages, which the operating system
/// hands out zeroed and only when first touched, so a large table costs nothing until it is used
/// and a failed mapping is `None` instead of an abort. They start on a 2 MB boundary and, on Linux,
/// are marked for transparent huge pages (`madvise(MADV_HUGEPAGE)`, as Stockfish asks where the
/// system leaves it to the program, the usual setting): a 64 MB table is then 32 pages instead of
/// 16,384. On the 2-core machine here (a virtual machine, where page faults are dear) that made
/// searches on a fresh 64 MB table 1.2x as fast in nodes/s with one thread and 1.6x with two,
/// whose page faults had contended, and 1.06x to 1.08x on a table already touched, from fewer
/// misses of the address translation cache (BENCHMARKS.md, "Threads"). The price, as in
/// Stockfish: where the system compacts memory to find huge pages (`defrag` set to `madvise`),
/// the first touch of a new table can stall (a first clear of a new 512 MB table took 1 s once,
/// right after a build, and 57 ms after); a new game (`ucinewgame`, `new_game()`) clears the table,
/// so that cost is paid before a clock runs. Elsewhere the mapping is made the same way (memmap2),
/// without the advice: no gain there, and on Windows memmap2's anonymous mapping is created
/// executable and then made read-write, which a process that forbids code generation refuses
/// (then an `OutOfMemory` error).
struct Slots {
    map: MmapMut,
    /// Bytes from the mapping's start to the first slot (the 2 MB boundary).
    offset: usize,
    count: usize,
}

impl Slots {
    fn new(count: usize) -> Option<Slots> {
        let bytes = count.checked_mul(SLOT_BYTES).filter(|&bytes| bytes > 0)?;
        let map = MmapMut::map_anon(bytes.checked_add(HUGE_PAGE_BYTES)?).ok()?;
        let offset = map.as_ptr().align_offset(HUGE_PAGE_BYTES);
        if offset >= HUGE_PAGE_BYTES {
            return None;
        }
        // Only advice: without huge pages the table works the same, with more, smaller pages.
        #[cfg(target_os = "linux")]
        let _ = map.advise_range(memmap2::Advice::HugePage, offset, bytes);
        Some(Slots { map, offset, count })
    }

    /// Empties every slot at memory speed (a `memset`).
    fn zero(&mut self) {
        let bytes = self.count * SLOT_BYTES;
        // SAFETY: `&mut self` means no slice of the slots is alive; the range lies inside the
        // mapping (see `deref`), and all-zero bytes are a valid, empty `Slot`.
        unsafe {
            std::ptr::write_bytes(self.map.as_mut_ptr().add(self.offset), 0, bytes);
        }
    }
}

impl std::ops::Deref for Slots {
    type Target = [Slot];

    fn deref(&self) -> &[Slot] {
        // SAFETY: the mapping holds `offset + count * SLOT_BYTES` bytes (it was made `bytes + 2 MB`
        // long and `offset` < 2 MB) and lives as long as `self`; its start is page-aligned and
        // `offset` moves it to a 2 MB boundary, so the slots are aligned for `Slot` (8 bytes);
        // anonymous pages start zeroed, and all-zero bytes are a valid `Slot` (two `AtomicU64`s),
        // written only through their atomics while any such slice lives (`zero` takes `&mut self`).
        unsafe {
            std::slice::from_raw_parts(
                self.map.as_ptr().add(self.offset).cast::<Slot>(),
                self.count,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Square;

    #[test]
    fn stores_and_finds_with_mate_scores() {
        let mut table = TranspositionTable::new(1).unwrap();
        table.new_search();
        let m = Move::Normal {
            role: Role::Pawn,
            from: Square::E7,
            capture: None,
            to: Square::E8,
            promotion: Some(Role::Knight),
        };
        let score = Score::mate_in(7).to_tt(4);
        table.store(
            0xdead_beef,
            PackedMove::new(m),
            score,
            9,
            Bound::Lower,
            Some(-123),
        );
        let entry = table.probe(0xdead_beef).unwrap();
        assert_eq!(entry.best_move, PackedMove::new(m));
        assert_eq!(entry.score.from_tt(4), Score::mate_in(7));
        assert_eq!(entry.depth, 9);
        assert_eq!(entry.bound, Bound::Lower);
        assert_eq!(entry.eval, Some(-123));
        // A result without an evaluation keeps the one stored for the same position...
        table.store(0xdead_beef, PackedMove::NONE, score, 10, Bound::Upper, None);
        let entry = table.probe(0xdead_beef).unwrap();
        assert_eq!((entry.eval, entry.depth), (Some(-123), 10));
        // ...but not another position's, and one outside `i16` is not kept.
        for (given, kept) in [
            (None, None),
            (Some(40_000), None),
            (Some(-32_767), Some(-32_767)),
        ] {
            table.store(0xdead_bef0, PackedMove::NONE, score, 1, Bound::Exact, given);
            assert_eq!(table.probe(0xdead_bef0).unwrap().eval, kept, "{given:?}");
        }
        assert!(table.probe(0xdead_bef1).is_none());
        assert!(table.hashfull() <= 1000);
        table.clear();
        assert!(table.probe(0xdead_beef).is_none());
    }

    #[test]
    fn slots_start_on_a_huge_page_boundary_and_empty() {
        for megabytes in [1, 3, 64] {
            let table = TranspositionTable::new(megabytes).unwrap();
            let slots = &table.slots;
            assert_eq!(
                slots.as_ptr() as usize % HUGE_PAGE_BYTES,
                0,
                "{megabytes} MB"
            );
            assert_eq!(slots.len(), megabytes * 1024 * 1024 / SLOT_BYTES);
            let last = slots.last().unwrap();
            assert_eq!(
                (last.data.load(Ordering::Relaxed), slots[0].load().1),
                (0, 0)
            );
            // The last slot is usable, and a new game empties it again.
            last.save(42, 7);
            assert_eq!(last.load(), (42, 7));
        }
        let mut table = TranspositionTable::new(1).unwrap();
        table.slots.last().unwrap().save(42, 7);
        table.clear();
        assert_eq!(table.slots.last().unwrap().load(), (0, 0));
    }

    #[test]
    fn size_is_bounded() {
        assert!(TranspositionTable::new(0).is_err());
        assert!(TranspositionTable::new(MAX_HASH_MB + 1).is_err());
        assert_eq!(
            TranspositionTable::new(2).unwrap().slots.len(),
            2 * 1024 * 1024 / 16
        );
    }
}
