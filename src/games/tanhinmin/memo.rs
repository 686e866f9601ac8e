//! A bounded, lock-free memo shared by all threads.
//!
//! Thread-local memos lose at two threads (each thread re-solves what the
//! other knows), and a lock around a hash map serialises the search. Here every
//! entry is one atomic u64 holding the full canonical key and the verdict, so
//! a lookup can never return another position's verdict (no false hits), and a
//! racing writer can at worst overwrite an entry, which only costs time.
//!
//! Entries live in buckets of eight, one cache line each. A full bucket
//! replaces its entry with the fewest cards: those are the cheapest to solve
//! again. Memory is fixed at creation, and pages nobody touched cost nothing.

//!
//! The same bucket scheme, with 16-byte entries and no atomics, is the
//! private memo of one solver for keys too long for 63 bits (positions of
//! more than 28 cards). Its replacement policy matters most there: a memo
//! that is simply cleared when full throws away the large positions that
//! took the longest to solve, and 26-card deals never finished that way.
//!
//! A key's low [`FIELD_BITS`] bits are how many of the mover's cards the
//! field blocks, and the bucket is chosen by the rest (the hands), so the
//! same hands under every field share one cache line. A higher field only
//! takes moves away from the mover and leaves the rest leading to the same
//! positions, so a position lost under some field is lost under every
//! higher one, and one won is won under every lower one: a lookup answers
//! from any entry of the same hands that decides it that way. The same
//! hands recur under many fields (the field is whichever card of the cards
//! played went last), and this answered 28% of the positions a 26x26 run
//! used to search.
//!
//! A probe of a table of gigabytes misses the TLB as well as the cache
//! when its bucket lies on a random page, and a page walk costs about as
//! much again as the miss (a pointer chase here: 187 ns in 768 MiB, 413 ns
//! in 4 GiB, on 2 MiB pages). A table made [`BucketMemo::grouped`] lets a
//! key's strongest cards pick a group of four pages and the whole key a
//! bucket in it: the search below a position mostly plays weaker cards, so
//! its probes stay on the few pages the TLB holds.

use std::cell::Cell;
use std::io::{self, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

const LINE_BYTES: usize = 64;
/// Low bits of a key that hold the field (the mover's blocked cards).
pub const FIELD_BITS: u32 = 6;
const FIELD_MASK: u128 = (1 << FIELD_BITS) - 1;

/// Largest key the shared table can hold: one bit is kept for the verdict.
pub const MAX_KEY: u64 = (1 << 63) - 1;

/// One entry of a bucket table: `key << 1 | verdict`, zero when empty.
pub trait Slot {
    /// Largest key an entry can hold.
    const MAX_KEY: u128;
    /// Can a bucket of these slots give its last slot to its entries'
    /// costs ([`BucketMemo::with_costs`])? Only one thread's own table
    /// can: the costs are written beside the entry, not with it.
    const COSTABLE: bool;
    /// Reads the slot.
    fn load(&self) -> u128;
    /// Writes the slot.
    fn store(&self, entry: u128);
}

impl Slot for AtomicU64 {
    const MAX_KEY: u128 = MAX_KEY as u128;
    const COSTABLE: bool = false;
    #[inline]
    fn load(&self) -> u128 {
        AtomicU64::load(self, Ordering::Relaxed) as u128
    }
    #[inline]
    fn store(&self, entry: u128) {
        AtomicU64::store(self, entry as u64, Ordering::Relaxed)
    }
}

impl Slot for Cell<u128> {
    const MAX_KEY: u128 = u128::MAX >> 1;
    const COSTABLE: bool = true;
    #[inline]
    fn load(&self) -> u128 {
        self.get()
    }
    #[inline]
    fn store(&self, entry: u128) {
        self.set(entry)
    }
}

/// Spreads a key over all 64 bits. Every key bit must reach the bucket
/// index: keys write the weakest cards in their high bits and the strongest
/// in their low bits, and a search that plays weak cards first changes the
/// one while the other stays put. (A plain multiplicative hash read at bits
/// 20 and up ignored a key's top bits; at 26 cards nearly every position of a
/// deal then fell in a few buckets.) Murmur3's finaliser after folding the
/// halves.
#[inline]
fn mix(key: u128) -> u64 {
    let mut x = (key as u64) ^ ((key >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 33;
    x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    x ^= x >> 33;
    x = x.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    x ^ (x >> 33)
}

/// How a [`BucketMemo`]'s buckets are laid out and evicted: one of its
/// named constructors each. No table is both: costs take a slot of each
/// bucket, which only a thread's own table can spare, and grouping reads
/// the strongest cards where the shared table's variant keys hold them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// [`BucketMemo::with_bytes`].
    Plain,
    /// [`BucketMemo::grouped`].
    Grouped,
    /// [`BucketMemo::with_costs`].
    Costed,
}

/// A fixed-size table of verdicts in buckets of one cache line.
///
/// `RANKED_BITS` bits above the field bits hold a second quantity under
/// which verdicts are monotone the same way (the card-count game's score
/// threshold: reaching a higher score implies reaching every lower one),
/// so the bucket is chosen by the hands alone and a lookup answers from
/// an entry that decides it under either order. Zero for the win/lose
/// games.
pub struct BucketMemo<S, const RANKED_BITS: u32 = 0> {
    slots: Box<[S]>,
    /// First slot of the first bucket, chosen so buckets sit on cache lines.
    base: usize,
    buckets: usize,
    /// A table made [`Self::with_costs`]: the last slot of each bucket
    /// holds its other entries' costs, byte `i` for entry `i` (the epoch
    /// in the top two bits, the bit length of the positions its search
    /// took in the low six). The costs share the entries' cache line, so
    /// keeping them costs no miss.
    costed: bool,
    /// The epoch of the costs stored now (see [`Self::next_epoch`]).
    epoch: AtomicU8,
    /// Groups of [`GROUP_LINES`] buckets, 2 MiB-aligned, that a key's
    /// strongest cards choose (see [`Self::bucket_index`]); 0 for a table
    /// too small to need them, where any bucket can hold any key.
    groups: usize,
}

/// Bytes of the huge pages a table asks for ([`advise_huge_pages`]).
const HUGE_PAGE_BYTES: usize = 2 << 20;
/// Buckets of one huge page.
const PAGE_LINES: usize = HUGE_PAGE_BYTES / LINE_BYTES;
/// Buckets a group of pages spans (four pages).
const GROUP_LINES: usize = 4 * PAGE_LINES;
/// Fewest groups a table is split into; a smaller table picks any bucket.
const MIN_GROUPS: usize = 16;
/// The key bits, above the tail, that choose a key's group: 14 bits past
/// the variant key's own 14 tail bits (the special ranks' places, the
/// order and the field card), so the owners of its seven strongest cards.
const STRONGEST_SHIFT: u32 = 14;
/// Key bits of the seven strongest cards (two a card).
const STRONGEST_BITS: u32 = 14;
const STRONGEST_MASK: u128 = (1 << STRONGEST_BITS) - 1;

/// The flag in a written table's entry width ([`BucketMemo::write_entries`])
/// that says each entry is followed by its cost.
const WITH_COSTS: u8 = 0x80;

/// The table all threads share, for keys of up to 63 bits.
pub type SharedMemo = BucketMemo<AtomicU64>;
/// One solver's own table, for keys of up to 127 bits.
pub type PrivateMemo = BucketMemo<Cell<u128>>;

impl<S: Slot, const RANKED_BITS: u32> BucketMemo<S, RANKED_BITS> {
    /// Bits under the hands: the ranked quantity and the field.
    const TAIL_BITS: u32 = RANKED_BITS + FIELD_BITS;

    const SLOTS: usize = LINE_BYTES / std::mem::size_of::<S>();

    /// A table of at most `bytes` bytes (whole buckets, at least one).
    ///
    /// Any number of buckets, not only a power of two: a budget split
    /// between tables is rarely a power of two, and rounding down lost up
    /// to half of it (the 11-back shared table under the automatic 1 GiB
    /// at 13x13 was 512 MiB of its 672).
    pub fn with_bytes(bytes: usize) -> Self {
        Self::with_layout(bytes, Layout::Plain)
    }

    /// A table of at most `bytes` bytes whose buckets, past a few hundred
    /// MiB, lie in groups of four 2 MiB pages: a key's strongest cards
    /// choose its group, so the probes of a search below one position stay
    /// on the few pages the TLB holds (see the module comment).
    pub fn grouped(bytes: usize) -> Self {
        Self::with_layout(bytes, Layout::Grouped)
    }

    /// A table of the same size whose full buckets give up the entry whose
    /// search took the fewest positions (see [`Self::insert_costed`]), with
    /// one slot a bucket fewer, for the costs. Only for slots that are
    /// [`Slot::COSTABLE`].
    ///
    /// Why: a position's cards are a poor guide to its cost under the back
    /// rule, where a large position is often decided by its first move and
    /// a smaller one can take millions. A 26x26 deal whose search is many
    /// times its tables (the hard both-rules deals search billions of
    /// positions beside a few hundred million slots) loses what its costly
    /// positions took by cards alone (BENCHMARKS.md, "Memo eviction by
    /// search cost").
    pub fn with_costs(bytes: usize) -> Self {
        assert!(S::COSTABLE, "only a thread's own table keeps costs");
        Self::with_layout(bytes, Layout::Costed)
    }

    fn with_layout(bytes: usize, layout: Layout) -> Self {
        let mut count = (bytes / LINE_BYTES).max(1);
        let groups = if layout == Layout::Grouped && count / GROUP_LINES >= MIN_GROUPS {
            // One page fewer, for the alignment below.
            (count - PAGE_LINES) / GROUP_LINES
        } else {
            0
        };
        let align = if groups > 0 {
            count = groups * GROUP_LINES;
            HUGE_PAGE_BYTES
        } else {
            LINE_BYTES
        };
        // All-zero is a valid empty table. A zeroed allocation with the
        // default alignment comes from calloc, which maps fresh zero pages
        // lazily: untouched pages are never resident and nothing is cleared
        // up front. (Asking for 64-byte alignment would make the allocator
        // memset the whole table, so buckets are aligned by an offset.)
        let len = count * Self::SLOTS + align / std::mem::size_of::<S>();
        // SAFETY: both slot types are plain integers, for which all-zero
        // bytes are a valid value.
        let slots = unsafe { Box::<[S]>::new_zeroed_slice(len).assume_init() };
        advise_huge_pages(slots.as_ptr() as usize, std::mem::size_of_val(&*slots));
        let misalign = (slots.as_ptr() as usize) % align;
        let base = ((align - misalign) % align) / std::mem::size_of::<S>();
        BucketMemo {
            slots,
            base,
            buckets: count,
            costed: layout == Layout::Costed,
            epoch: AtomicU8::new(0),
            groups,
        }
    }

    /// Entries a bucket holds: every slot, or all but the costs' slot. A
    /// constant for the shared table, whose slots keep no costs.
    #[inline(always)]
    fn entries(&self) -> usize {
        if S::COSTABLE && self.costed {
            Self::SLOTS - 1
        } else {
            Self::SLOTS
        }
    }

    /// Starts a new epoch: from now on the costs stored before count as
    /// nothing when an entry must be evicted, so that the costly positions
    /// of earlier deals, which rarely recur, do not hold the table for
    /// good. Call as each search (each deal) starts: entries read back
    /// are stored in the epoch of the next call, so that they count in the
    /// search that carries on. (Four epochs in turn: an entry four deals
    /// old counts as new again, which only makes an eviction choice
    /// worse, never a verdict.)
    pub fn next_epoch(&self) {
        let next = (self.epoch.load(Ordering::Relaxed) + 1) % 4;
        self.epoch.store(next, Ordering::Relaxed);
    }

    /// Bytes the table occupies.
    pub fn bytes(&self) -> usize {
        self.buckets * LINE_BYTES
    }

    /// `key`'s bucket: its entries, and its costs' slot in a costed table.
    #[inline]
    fn bucket_and_costs(&self, key: u128) -> (&[S], Option<&S>) {
        let index = self.bucket_index(key);
        let start = self.base + index * Self::SLOTS;
        let line = &self.slots[start..start + Self::SLOTS];
        let (entries, costs) = line.split_at(self.entries());
        (entries, costs.first())
    }

    /// The bucket of `key`. In a table of gigabytes, a probe of a random
    /// page also misses the TLB; so a key's strongest cards, which a search
    /// below a position rarely changes, choose a group of four pages, and
    /// the whole key a bucket in it.
    #[inline]
    fn bucket_index(&self, key: u128) -> usize {
        let mixed = mix(key >> Self::TAIL_BITS);
        if self.groups == 0 {
            // The mixed key scaled to the bucket count (Lemire's
            // multiply-shift range reduction): its high bits pick the
            // bucket, so any count works, at the cost of one multiply over
            // a mask.
            return ((u128::from(mixed) * self.buckets as u128) >> 64) as usize;
        }
        let strongest = mix((key >> Self::TAIL_BITS >> STRONGEST_SHIFT) & STRONGEST_MASK);
        let group = ((u128::from(strongest) * self.groups as u128) >> 64) as usize;
        group * GROUP_LINES + (mixed as usize) % GROUP_LINES
    }

    #[inline]
    fn bucket(&self, key: u128) -> &[S] {
        self.bucket_and_costs(key).0
    }

    /// Starts loading `key`'s bucket into cache, so a later `get` or
    /// `insert` does not stall on memory.
    #[inline]
    pub fn prefetch(&self, key: u128) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch is only a hint; the address lies in the table.
        unsafe {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            _mm_prefetch::<_MM_HINT_T0>(self.bucket(key).as_ptr() as *const i8);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The verdict for `key` (a canonical key: nonzero, at most
    /// `S::MAX_KEY`), from its own entry or from the same hands under a
    /// field (and ranked quantity) that decides it: lost under a field no
    /// higher, or won under one no lower.
    #[inline]
    pub fn get(&self, key: u128) -> Option<bool> {
        debug_assert!(key != 0 && key <= S::MAX_KEY);
        let hands = key >> Self::TAIL_BITS;
        let blocked = key & FIELD_MASK;
        let ranked = (key >> FIELD_BITS) & ((1 << RANKED_BITS) - 1);
        for slot in self.bucket(key) {
            let e = slot.load();
            if e == 0 {
                return None;
            }
            let k = e >> 1;
            if k >> Self::TAIL_BITS == hands {
                let win = e & 1 == 1;
                let b = k & FIELD_MASK;
                let r = (k >> FIELD_BITS) & ((1 << RANKED_BITS) - 1);
                if (b == blocked && r == ranked)
                    || (win && b >= blocked && r >= ranked)
                    || (!win && b <= blocked && r <= ranked)
                {
                    return Some(win);
                }
            }
        }
        None
    }

    /// Stores a verdict; returns whether another entry was evicted for it.
    #[inline]
    pub fn insert(&self, key: u128, value: bool) -> bool {
        self.insert_costed(key, value, 0)
    }

    /// Stores a verdict whose search took `positions` positions (kept only
    /// by a table made [`Self::with_costs`]); returns whether another entry
    /// was evicted for it. A full costed bucket gives up the entry whose
    /// search took the fewest positions this epoch, to a power of two, and
    /// among those the one with the fewest cards; any other table, the one
    /// with the fewest cards.
    #[inline]
    pub fn insert_costed(&self, key: u128, value: bool, positions: u64) -> bool {
        debug_assert!(key != 0 && key <= S::MAX_KEY);
        let entry = (key << 1) | value as u128;
        match self.bucket_and_costs(key) {
            (bucket, Some(costs)) if S::COSTABLE => {
                self.place_costed(bucket, costs, entry, positions)
            }
            // No key is u32::MAX bits long, so a full bucket always gives
            // up its entry with the fewest cards.
            _ => self.place(entry, u32::MAX),
        }
    }

    /// [`Self::insert_costed`] in a costed table.
    #[inline]
    fn place_costed(&self, bucket: &[S], costs: &S, entry: u128, positions: u64) -> bool {
        let old_costs = costs.load();
        let epoch = self.epoch.load(Ordering::Relaxed);
        // No entry ranks as high as (u8::MAX, u32::MAX): a victim is found.
        let (victim, evicted) =
            costed_victim(bucket, old_costs, entry, epoch, (u8::MAX, u32::MAX)).expect("a victim");
        let bits = (u64::BITS - positions.leading_zeros()).min(63) as u8;
        store_costed(
            &bucket[victim],
            costs,
            old_costs,
            victim,
            entry,
            epoch << 6 | bits,
        );
        evicted
    }

    /// Stores `entry` in its bucket: in an empty slot or over its own key,
    /// else over the entry with the fewest cards, if that is shorter than
    /// `evicts_below` bits; returns whether an entry was evicted. Keys
    /// carry a leading 1 bit, so a longer key has more cards.
    #[inline(always)]
    fn place(&self, entry: u128, evicts_below: u32) -> bool {
        let key = entry >> 1;
        let bucket = self.bucket(key);
        let mut victim = None;
        let mut victim_len = evicts_below;
        for slot in bucket {
            let e = slot.load();
            if e == 0 || e >> 1 == key {
                slot.store(entry);
                return false;
            }
            let len = 128 - e.leading_zeros();
            if len < victim_len {
                victim = Some(slot);
                victim_len = len;
            }
        }
        match victim {
            Some(slot) => {
                slot.store(entry);
                true
            }
            None => false,
        }
    }

    /// Empties every slot.
    pub fn clear(&self) {
        for slot in self.slots.iter() {
            slot.store(0);
        }
    }

    /// Slots for entries in all buckets.
    pub fn slot_count(&self) -> usize {
        self.buckets * self.entries()
    }

    /// Every entry slot (not the costs), in order.
    fn entry_slots(&self) -> impl Iterator<Item = &S> {
        let entries = self.entries();
        self.slots[self.base..self.base + self.buckets * Self::SLOTS]
            .chunks_exact(Self::SLOTS)
            .flat_map(move |line| &line[..entries])
    }

    /// Every entry in use with its cost this epoch (the bit length of the
    /// positions its search took; 0 in a table without costs, or for an
    /// entry stored in an earlier epoch), bucket by bucket.
    fn entries_with_costs(&self) -> impl Iterator<Item = (u128, u8)> + '_ {
        let entries = self.entries();
        let costed = S::COSTABLE && self.costed;
        let epoch = self.epoch.load(Ordering::Relaxed);
        self.slots[self.base..self.base + self.buckets * Self::SLOTS]
            .chunks_exact(Self::SLOTS)
            .flat_map(move |line| {
                let costs = if costed { line[entries].load() } else { 0 };
                line[..entries]
                    .iter()
                    .enumerate()
                    .filter_map(move |(i, slot)| {
                        let e = slot.load();
                        // An uncosted table's costs word is 0: every cost 0.
                        (e != 0).then_some((e, cost_in_epoch(costs, i, epoch)))
                    })
            })
    }

    /// Entries in use, by scanning (for reports and tests, not hot paths).
    pub fn len(&self) -> usize {
        self.entry_slots().filter(|s| s.load() != 0).count()
    }

    /// No entry stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes every entry, for [`Self::read_entries_into`]: the entry
    /// width in bytes (one byte, its top bit set for a table that
    /// evicts by search cost), their count (u64), then each entry (`key <<
    /// 1 | verdict`), all little-endian, followed in a costed table by its
    /// cost this epoch (one byte). Entries are verdicts proved under the
    /// rules the keys encode, and hold in any deal of them, so a table
    /// written when a run stops can be read into the tables of the run
    /// that resumes it; the costs let the resumed search keep what the
    /// stopped one would have kept.
    pub fn write_entries(&self, out: &mut dyn Write) -> io::Result<u64> {
        let width = std::mem::size_of::<S>();
        let costed = S::COSTABLE && self.costed;
        let count = self.len() as u64;
        out.write_all(&[width as u8 | if costed { WITH_COSTS } else { 0 }])?;
        out.write_all(&count.to_le_bytes())?;
        let mut written = 0;
        for (e, cost) in self.entries_with_costs() {
            out.write_all(&e.to_le_bytes()[..width])?;
            if costed {
                out.write_all(&[cost])?;
            }
            written += 1;
        }
        // Only a table no search is writing to can be written out whole.
        if written != count {
            return Err(io::Error::other("the table changed while it was written"));
        }
        Ok(count)
    }

    /// Reads entries written by [`Self::write_entries`] and offers each to
    /// every table of `into` (see `offer`); returns how many were
    /// read. An entry that no table of this kind could hold (the zero
    /// entry, a key too long) is refused as damage, and nothing read is
    /// allocated by its count: a count past the end is a short file.
    pub fn read_entries_into(into: &[&Self], input: &mut dyn Read) -> io::Result<u64> {
        let width = std::mem::size_of::<S>();
        let damaged = |what: String| io::Error::new(io::ErrorKind::InvalidData, what);
        let mut head = [0u8; 9];
        input.read_exact(&mut head)?;
        let with_costs = head[0] & WITH_COSTS != 0;
        if (head[0] & !WITH_COSTS) as usize != width || (with_costs && !S::COSTABLE) {
            return Err(damaged(format!(
                "a table of {}-byte entries where {width}-byte ones belong",
                head[0]
            )));
        }
        let count = u64::from_le_bytes(head[1..].try_into().expect("8 bytes"));
        let mut bytes = [0u8; 16];
        let mut cost = [0u8; 1];
        for i in 0..count {
            input.read_exact(&mut bytes[..width])?;
            if with_costs {
                input.read_exact(&mut cost)?;
            }
            let entry = u128::from_le_bytes(bytes);
            let key = entry >> 1;
            if key == 0 || key > S::MAX_KEY || cost[0] > 63 {
                return Err(damaged(format!("entry {i} of {count} is no memo entry")));
            }
            for table in into {
                table.offer(entry, cost[0]);
            }
        }
        Ok(count)
    }

    /// Offers every entry to `into` (see `offer`), a table of the same
    /// keys: a search that outgrew this table carries on in a larger one
    /// with what it proved here.
    pub fn offer_entries_to(&self, into: &Self) {
        for (e, cost) in self.entries_with_costs() {
            into.offer(e, cost);
        }
    }

    /// Stores an entry read back from a file or another table, whose search
    /// took `cost` (see [`Self::entries_with_costs`]): in an empty slot or
    /// over its own key, else over the entry of the lowest (cost, cards)
    /// if that is lower than its own. Unlike [`Self::insert`], which evicts
    /// for every new verdict, it never drops a costlier position for a
    /// cheaper one, so tables of two threads read into one keep the
    /// positions that took longest to prove. In a costed table the cost is
    /// kept for the next search (the next epoch: each search starts one),
    /// so that the search carried on evicts what it would have evicted
    /// unstopped, not first of all what it read back.
    fn offer(&self, entry: u128, cost: u8) {
        let cards = 128 - entry.leading_zeros();
        let (bucket, costs) = self.bucket_and_costs(entry >> 1);
        let Some(costs) = costs.filter(|_| S::COSTABLE) else {
            self.place(entry, cards);
            return;
        };
        let epoch = self.epoch_of_next_search();
        let old_costs = costs.load();
        if let Some((i, _)) = costed_victim(bucket, old_costs, entry, epoch, (cost, cards)) {
            store_costed(&bucket[i], costs, old_costs, i, entry, epoch << 6 | cost);
        }
    }

    /// The epoch the next search stores its costs in: each search starts
    /// one with [`Self::next_epoch`].
    fn epoch_of_next_search(&self) -> u8 {
        (self.epoch.load(Ordering::Relaxed) + 1) % 4
    }
}

/// Entry `i`'s cost in a costed bucket whose costs slot holds `costs`:
/// the bit length stored with it in `epoch`, and 0 if it was stored in
/// another epoch.
#[inline(always)]
fn cost_in_epoch(costs: u128, i: usize, epoch: u8) -> u8 {
    let byte = (costs >> (8 * i)) as u8;
    if byte >> 6 == epoch { byte & 63 } else { 0 }
}

/// The slot of a costed `bucket` (costs `costs`) that `entry` goes to, and
/// whether that evicts another entry: an empty slot or its own key's
/// (no eviction), else the entry of the lowest (cost in `epoch`, cards),
/// if that ranks below `evicts_below`; None if nothing does. Keys carry a
/// leading 1 bit, so a longer key has more cards.
#[inline(always)]
fn costed_victim<S: Slot>(
    bucket: &[S],
    costs: u128,
    entry: u128,
    epoch: u8,
    evicts_below: (u8, u32),
) -> Option<(usize, bool)> {
    let key = entry >> 1;
    let mut victim = None;
    let mut victim_rank = evicts_below;
    for (i, slot) in bucket.iter().enumerate() {
        let e = slot.load();
        if e == 0 || e >> 1 == key {
            return Some((i, false));
        }
        let rank = (cost_in_epoch(costs, i, epoch), 128 - e.leading_zeros());
        if rank < victim_rank {
            victim = Some(i);
            victim_rank = rank;
        }
    }
    victim.map(|i| (i, true))
}

/// Stores `entry` in `slot`, entry `i` of its bucket, and its cost byte
/// (epoch and bit length) in the bucket's `costs`, which held `old_costs`.
#[inline(always)]
fn store_costed<S: Slot>(slot: &S, costs: &S, old_costs: u128, i: usize, entry: u128, byte: u8) {
    slot.store(entry);
    let shift = 8 * i as u32;
    costs.store((old_costs & !(0xFF << shift)) | u128::from(byte) << shift);
}

/// Stores a slot of a solver's own table takes, on average, before
/// [`Tables::forget_own_if_turned_over`] empties it. Half a store a slot
/// emptied too soon (8-cut, 40 26x26 deals, the automatic memo: 8.6% more
/// positions, since some plain positions do recur), and eight a slot kept
/// too much (270M positions with `memo_mb = 128`, against 229M with two).
pub const TURNOVER_STORES_PER_SLOT: u64 = 2;

/// Where a solver's verdicts live: the one memory policy of every solver
/// (plain, variant, card-count thresholds). A key below the sharing bound
/// (at most 63 bits, lowered by [`Self::sharing_keys_below`]) goes to the
/// table all threads share, kept across deals, when the solver has one;
/// every other key (positions of more cards, or no shared table) to the
/// solver's own table, whose 16-byte entries hold up to 127 bits.
pub struct Tables<const RANKED_BITS: u32 = 0> {
    shared: Option<Arc<BucketMemo<AtomicU64, RANKED_BITS>>>,
    own: BucketMemo<Cell<u128>, RANKED_BITS>,
    /// Verdicts stored in `own` since it was last emptied (see
    /// [`Self::forget_own_if_turned_over`]); entries read back from a
    /// kept memo are not counted.
    own_stores: Cell<u64>,
    /// Keys from this one up go to the own table even where the shared
    /// one could hold them (see [`Self::sharing_keys_below`]).
    shared_keys_below: u128,
}

impl<const RANKED_BITS: u32> Tables<RANKED_BITS> {
    /// `shared` (if any) for the keys it can hold, and a table of its own
    /// of `own_bytes` for the rest.
    pub fn new(shared: Option<Arc<BucketMemo<AtomicU64, RANKED_BITS>>>, own_bytes: usize) -> Self {
        Self::with_own(shared, BucketMemo::with_bytes(own_bytes))
    }

    fn with_own(
        shared: Option<Arc<BucketMemo<AtomicU64, RANKED_BITS>>>,
        own: BucketMemo<Cell<u128>, RANKED_BITS>,
    ) -> Self {
        Tables {
            shared,
            own,
            own_stores: Cell::new(0),
            shared_keys_below: u128::from(MAX_KEY) + 1,
        }
    }

    /// The same tables, keeping in the own table every key from `bound`
    /// up, which the shared table would otherwise hold: for positions so
    /// large that later deals seldom meet them, which mostly crowd the
    /// shared table (and cost a probe of gigabytes) while a small own
    /// table, which stays in cache, holds them for the deal that needs
    /// them.
    pub fn sharing_keys_below(self, bound: u128) -> Self {
        Tables {
            shared_keys_below: bound.min(self.shared_keys_below),
            ..self
        }
    }

    /// The same, the own table evicting by search cost
    /// ([`BucketMemo::with_costs`]).
    pub fn with_own_costs(
        shared: Option<Arc<BucketMemo<AtomicU64, RANKED_BITS>>>,
        own_bytes: usize,
    ) -> Self {
        Self::with_own(shared, BucketMemo::with_costs(own_bytes))
    }

    /// Starts a new epoch of the own table's costs (see
    /// [`BucketMemo::next_epoch`]); nothing for a table without costs.
    pub fn next_epoch(&self) {
        self.own.next_epoch();
    }

    /// The shared table, if it is the one that holds `key`.
    #[inline]
    fn shared_for(&self, key: u128) -> Option<&BucketMemo<AtomicU64, RANKED_BITS>> {
        self.shared
            .as_deref()
            .filter(|_| key < self.shared_keys_below)
    }

    /// Starts loading `key`'s bucket into cache.
    #[inline]
    pub fn prefetch(&self, key: u128) {
        match self.shared_for(key) {
            Some(shared) => shared.prefetch(key),
            None => self.own.prefetch(key),
        }
    }

    /// The verdict stored for `key`, or one that decides it (see
    /// [`BucketMemo::get`]).
    #[inline]
    pub fn get(&self, key: u128) -> Option<bool> {
        match self.shared_for(key) {
            Some(shared) => shared.get(key),
            None => self.own.get(key),
        }
    }

    /// Stores the verdict of `key`; returns whether an entry of the
    /// solver's own table was evicted to make room (the shared table's
    /// evictions are nobody's to count).
    #[inline]
    pub fn insert(&self, key: u128, win: bool) -> bool {
        self.insert_costed(key, win, 0)
    }

    /// [`Self::insert`] for a verdict whose search took `positions`
    /// positions, which an own table made with costs keeps.
    #[inline]
    pub fn insert_costed(&self, key: u128, win: bool, positions: u64) -> bool {
        match self.shared_for(key) {
            Some(shared) => {
                shared.insert(key, win);
                false
            }
            None => {
                self.own_stores.set(self.own_stores.get() + 1);
                self.own.insert_costed(key, win, positions)
            }
        }
    }

    /// Empties the solver's own table if it has taken more than
    /// [`TURNOVER_STORES_PER_SLOT`] verdicts a slot since it was last
    /// emptied; returns whether it did. Call between two deals whose
    /// positions rarely recur in each other (26x26), never inside a search.
    ///
    /// Why: a full bucket gives up its entry with the fewest cards, which
    /// is right within one deal but has no notion of age. Kept across such
    /// deals, the table comes to hold the largest positions of every
    /// earlier deal, which no later deal meets again, and a new deal keeps
    /// only the slots they leave. Emptying it once it has turned over
    /// costs a pass over memory next to the searches that filled it
    /// (8-cut, 40 26x26 deals, one thread, `memo_mb = 128`: 229M
    /// positions against 330M, 71.5 s against 98.7 s; with the automatic
    /// memo the table never turned over and nothing changed;
    /// BENCHMARKS.md, "Private tables emptied between 26x26 deals").
    pub fn forget_own_if_turned_over(&self) -> bool {
        let limit = self.own.slot_count() as u64 * TURNOVER_STORES_PER_SLOT;
        if self.own_stores.get() <= limit {
            return false;
        }
        self.own.clear();
        self.own_stores.set(0);
        true
    }

    /// The table shared by all threads, if the solver has one.
    pub fn shared(&self) -> Option<&Arc<BucketMemo<AtomicU64, RANKED_BITS>>> {
        self.shared.as_ref()
    }

    /// The solver's own table (a run keeping its memo over a stop writes
    /// it out and reads it back).
    pub fn own(&self) -> &BucketMemo<Cell<u128>, RANKED_BITS> {
        &self.own
    }
}

/// Asks Linux to back the table with 2 MiB pages. Lookups land on random
/// pages, so with 4 KiB pages nearly every one also misses the TLB; measured
/// on 13-card deals, a 4 GiB table ran 3x slower than a 256 MiB one without
/// this. Only a hint: where it is refused nothing changes but speed.
fn advise_huge_pages(start: usize, len: usize) {
    #[cfg(target_os = "linux")]
    {
        let end = start + len;
        let aligned = start.div_ceil(HUGE_PAGE_BYTES) * HUGE_PAGE_BYTES;
        if end > aligned + HUGE_PAGE_BYTES {
            let len = (end - aligned) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
            // SAFETY: the range lies inside memory this table owns, and
            // MADV_HUGEPAGE changes no contents, only how pages are backed.
            unsafe {
                libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, len);
}

/// A private memo of u128 keys with a memory budget: when full it is
/// cleared, which costs time but never changes a result. For solvers whose
/// values do not fit the shared table's verdict bit.
pub struct BoundedMemo<V> {
    map: hashbrown::HashMap<u128, V>,
    capacity: usize,
}

impl<V: Copy> BoundedMemo<V> {
    /// A memo of about `bytes` bytes.
    pub fn with_bytes(bytes: usize) -> Self {
        BoundedMemo {
            map: hashbrown::HashMap::new(),
            // An entry costs about 32 bytes, and a hash table may be twice
            // the size of its contents while it grows.
            capacity: (bytes / 80).max(1 << 16),
        }
    }

    /// The stored value of `key`.
    #[inline]
    pub fn get(&self, key: u128) -> Option<V> {
        self.map.get(&key).copied()
    }

    /// Stores `value`; a full memo is cleared first.
    pub fn insert(&mut self, key: u128, value: V) {
        if self.map.len() >= self.capacity {
            self.map.clear();
        }
        self.map.insert(key, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A budget that is not a power of two of buckets is used whole, and
    /// keys reach every bucket, the last one too.
    #[test]
    fn a_table_of_any_size_uses_every_bucket() {
        for buckets in [1usize, 3, 5, 7, 1000] {
            let memo = SharedMemo::with_bytes(buckets * LINE_BYTES + LINE_BYTES / 2);
            assert_eq!(memo.bytes(), buckets * LINE_BYTES);
            let slot_bytes = std::mem::size_of::<AtomicU64>();
            let mut seen = vec![false; buckets];
            let mut key = 1u128;
            for _ in 0..buckets * 64 {
                key = key.wrapping_mul(0x2545_F491_4F6C_DD1D).wrapping_add(1) & MAX_KEY as u128;
                let offset = (memo.bucket(key).as_ptr() as usize - memo.slots.as_ptr() as usize)
                    / slot_bytes;
                let index = (offset - memo.base) / SharedMemo::SLOTS;
                assert!(index < buckets, "bucket {index} of {buckets}");
                seen[index] = true;
            }
            assert!(seen.iter().all(|&s| s), "{buckets} buckets: {seen:?}");
        }
    }

    /// A table past [`MIN_GROUPS`] groups of pages: its buckets start on
    /// a 2 MiB page, every key's bucket lies in it, keys that differ only
    /// in their weaker cards share a group, the same hands under any field
    /// share a bucket (which [`BucketMemo::get`] relies on), and keys reach
    /// every group. A smaller one is not grouped.
    #[test]
    fn a_grouped_table_keeps_keys_of_the_same_strongest_cards_in_one_group() {
        assert_eq!(SharedMemo::grouped(64 << 20).groups, 0);
        let bytes = (MIN_GROUPS + 1) * GROUP_LINES * LINE_BYTES + 3 * LINE_BYTES;
        let memo = SharedMemo::grouped(bytes);
        assert_eq!(memo.groups, MIN_GROUPS);
        assert_eq!(memo.buckets, MIN_GROUPS * GROUP_LINES);
        let first = memo.slots.as_ptr() as usize + memo.base * std::mem::size_of::<AtomicU64>();
        assert_eq!(first % (PAGE_LINES * LINE_BYTES), 0);
        let index_of = |key: u128| (memo.bucket(key).as_ptr() as usize - first) / LINE_BYTES;
        let weak_cards_from = FIELD_BITS + STRONGEST_SHIFT + STRONGEST_BITS;
        let mut seen = [false; MIN_GROUPS];
        let mut x: u64 = 99;
        for _ in 0..20_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let key = u128::from(x >> 1) | 1 << 62;
            let index = index_of(key);
            assert!(index < memo.buckets, "bucket {index} of {}", memo.buckets);
            seen[index / GROUP_LINES] = true;
            let weaker = key ^ (u128::from(x >> 40) << weak_cards_from) & u128::from(MAX_KEY);
            assert_eq!(index_of(weaker) / GROUP_LINES, index / GROUP_LINES);
            assert_eq!(index_of(key ^ FIELD_MASK), index);
        }
        assert!(seen.iter().all(|&s| s), "groups reached: {seen:?}");
    }

    #[test]
    fn never_returns_a_wrong_verdict_even_when_overfull() {
        let memo = SharedMemo::with_bytes(64 * 16);
        let mut truth = HashMap::new();
        let mut x: u64 = 12345;
        for i in 0..10_000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let key = ((x >> 2) | 1) as u128;
            let v = (x >> 40) & 1 == 1;
            memo.insert(key, v);
            truth.insert(key, v);
            if i % 7 == 0 {
                for (&k, &tv) in truth.iter().take(50) {
                    if let Some(got) = memo.get(k) {
                        assert_eq!(got, tv);
                    }
                }
            }
        }
        assert!(memo.len() <= 16 * SharedMemo::SLOTS);
        assert_eq!(memo.bytes(), 64 * 16);
    }

    #[test]
    fn keeps_what_fits() {
        let memo = SharedMemo::with_bytes(1 << 20);
        for k in 1..1000u128 {
            memo.insert(k * 977, k % 3 == 0);
        }
        for k in 1..1000u128 {
            assert_eq!(memo.get(k * 977), Some(k % 3 == 0));
        }
        assert_eq!(memo.get(5), None);
    }

    #[test]
    fn a_field_decides_higher_fields_when_lost_and_lower_ones_when_won() {
        let memo = SharedMemo::with_bytes(1 << 20);
        let lost = 0b1011_0110 << FIELD_BITS;
        memo.insert(lost | 3, false);
        assert_eq!(memo.get(lost | 2), None);
        assert_eq!(memo.get(lost | 3), Some(false));
        assert_eq!(memo.get(lost | 9), Some(false));
        let won = 0b1110_0101 << FIELD_BITS;
        memo.insert(won | 3, true);
        assert_eq!(memo.get(won), Some(true));
        assert_eq!(memo.get(won | 3), Some(true));
        assert_eq!(memo.get(won | 4), None);
        // Other hands under the same field learn nothing.
        assert_eq!(memo.get((0b1011_0111 << FIELD_BITS) | 5), None);
        let private = PrivateMemo::with_bytes(1 << 16);
        let long = 1u128 << 120;
        private.insert(long | 1, false);
        assert_eq!(private.get(long | 7), Some(false));
        assert_eq!(private.get(long), None);
    }

    #[test]
    fn a_ranked_quantity_decides_like_the_field_and_only_both_ways_together() {
        // Two ranked bits above the field: a win at rank 2, field 3 holds
        // for every rank and field no higher; a loss at rank 1, field 2 for
        // every rank and field no lower. Mixed directions decide nothing.
        let memo = BucketMemo::<AtomicU64, 2>::with_bytes(1 << 16);
        let at = |hands: u128, rank: u128, field: u128| {
            (hands << (2 + FIELD_BITS)) | (rank << FIELD_BITS) | field
        };
        memo.insert(at(0b101, 2, 3), true);
        assert_eq!(memo.get(at(0b101, 2, 3)), Some(true));
        assert_eq!(memo.get(at(0b101, 1, 3)), Some(true));
        assert_eq!(memo.get(at(0b101, 0, 0)), Some(true));
        assert_eq!(memo.get(at(0b101, 3, 3)), None);
        assert_eq!(memo.get(at(0b101, 1, 4)), None);
        memo.insert(at(0b110, 1, 2), false);
        assert_eq!(memo.get(at(0b110, 3, 9)), Some(false));
        assert_eq!(memo.get(at(0b110, 1, 2)), Some(false));
        assert_eq!(memo.get(at(0b110, 0, 2)), None);
        assert_eq!(memo.get(at(0b110, 2, 1)), None);
        // Other hands learn nothing, whatever their rank and field.
        assert_eq!(memo.get(at(0b111, 0, 0)), None);
        assert_eq!(memo.get(at(0b111, 3, 9)), None);
        let private = BucketMemo::<Cell<u128>, 2>::with_bytes(1 << 16);
        let long = 1u128 << 110;
        private.insert(at(long, 2, 0), false);
        assert_eq!(private.get(at(long, 3, 0)), Some(false));
        assert_eq!(private.get(at(long, 1, 0)), None);
    }

    #[test]
    fn prefers_to_evict_small_positions() {
        let memo = SharedMemo::with_bytes(64);
        let big = (1u128 << 60) | 7;
        memo.insert(big, true);
        for k in 1..100u128 {
            memo.insert(k, false);
        }
        assert_eq!(memo.get(big), Some(true));
    }

    /// Keys of 26-card deals use all 128 bits; keys equal in their low half
    /// must stay apart, and an overfull private table must stay exact.
    #[test]
    fn private_table_keeps_long_keys_apart_and_exact() {
        let memo = PrivateMemo::with_bytes(64 * 32);
        let mut truth = HashMap::new();
        let mut x: u64 = 777;
        let mut evicted = false;
        for i in 0..20_000u128 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // Few distinct low halves, so many keys share one.
            let key = (1u128 << 110) | ((x as u128 >> 20) << 64) | (i % 5 + 1);
            let v = (x >> 40) & 1 == 1;
            evicted |= memo.insert(key, v);
            truth.insert(key, v);
            if i % 11 == 0 {
                for (&k, &tv) in truth.iter().take(50) {
                    if let Some(got) = memo.get(k) {
                        assert_eq!(got, tv);
                    }
                }
            }
        }
        assert!(evicted);
        assert!(memo.len() <= 32 * PrivateMemo::SLOTS);
        let (a, b) = ((5u128 << 100) | 9, (6u128 << 100) | 9);
        let memo = PrivateMemo::with_bytes(1 << 16);
        memo.insert(a, true);
        assert_eq!(memo.get(a), Some(true));
        assert_eq!(memo.get(b), None);
        memo.insert(b, false);
        assert_eq!((memo.get(a), memo.get(b)), (Some(true), Some(false)));
    }

    /// Keys that differ only in their top bits (the weakest cards) must
    /// spread over the buckets, or a search that plays weak cards first
    /// keeps evicting its own positions.
    #[test]
    fn keys_differing_only_in_high_bits_spread_over_buckets() {
        let shared = SharedMemo::with_bytes(64 * 1024);
        let private = PrivateMemo::with_bytes(64 * 1024);
        for i in 1..=1000u128 {
            shared.insert((i << 52) | 0x3F, true);
            private.insert((i << 100) | 0x3F, true);
        }
        let kept = |m: &dyn Fn(u128) -> Option<bool>, shift: u32| {
            (1..=1000u128)
                .filter(|&i| m((i << shift) | 0x3F).is_some())
                .count()
        };
        assert!(kept(&|k| shared.get(k), 52) > 990);
        assert!(kept(&|k| private.get(k), 100) > 990);
    }

    /// Random keys of at most `bits` bits, each with a verdict.
    fn random_entries(count: usize, bits: u32, seed: u64) -> Vec<(u128, bool)> {
        let mut x = seed;
        (0..count)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let high = u128::from(x.rotate_left(17)) << 64;
                let key = ((high | u128::from(x)) >> (128 - bits)) | 1;
                (key, (x >> 40) & 1 == 1)
            })
            .collect()
    }

    /// Keys from the bound up stay in the own table, the rest go to the
    /// shared one, and each is found where it was put.
    #[test]
    fn keys_from_the_bound_up_stay_in_the_own_table() {
        let shared = Arc::new(SharedMemo::with_bytes(64 * 64));
        let tables = Tables::new(Some(shared.clone()), 64 * 64).sharing_keys_below(1 << 40);
        for key in [(1 << 40) - 64, 1 << 40, 1 << 50] {
            tables.insert(key, true);
        }
        assert_eq!(shared.len(), 1, "only the key below the bound is shared");
        assert_eq!(tables.own().len(), 2);
        for key in [(1 << 40) - 64, 1 << 40, 1 << 50] {
            assert_eq!(tables.get(key), Some(true), "{key:x}");
        }
        // A bound above what the shared table holds changes nothing.
        let wide = Tables::new(Some(shared.clone()), 64 * 64).sharing_keys_below(u128::MAX);
        wide.insert(u128::from(MAX_KEY), false);
        assert_eq!((shared.len(), wide.own().len()), (2, 0));
    }

    /// Written and read back into a table of the same size, a table answers
    /// every lookup as before, the field-dominance answers too; read into
    /// a smaller one, it gives no wrong verdict and keeps the larger keys.
    #[test]
    fn entries_written_and_read_back_answer_as_before() {
        fn round_trip<S: Slot>(bits: u32, make: fn(usize) -> BucketMemo<S>) {
            let original = make(64 * 64);
            let mut truth = HashMap::new();
            for (key, verdict) in random_entries(3_000, bits, 7) {
                original.insert(key, verdict);
                truth.insert(key, verdict);
            }
            let mut file = Vec::new();
            let written = original.write_entries(&mut file).unwrap();
            assert_eq!(written as usize, original.len());
            let same = make(64 * 64);
            let small = make(64 * 4);
            let read = BucketMemo::read_entries_into(&[&same, &small], &mut file.as_slice());
            assert_eq!(read.unwrap(), written);
            let probes = random_entries(3_000, bits, 7)
                .into_iter()
                .chain(random_entries(3_000, bits, 8))
                .map(|(k, _)| k);
            for key in probes {
                assert_eq!(same.get(key), original.get(key), "{key:x}");
                if let (Some(v), Some(&t)) = (small.get(key), truth.get(&key)) {
                    assert_eq!(v, t, "{key:x}");
                }
            }
            assert_eq!(small.len(), small.slot_count(), "the small table is full");
            // Offering never drops a longer key for a shorter one.
            let tiny = make(64);
            let long = (1u128 << (bits - 1)) | 2;
            tiny.offer(long << 1 | 1, 0);
            for short in 1..40u128 {
                tiny.offer((short << 8) << 1, 0);
            }
            assert_eq!(tiny.get(long), Some(true));
        }
        round_trip::<AtomicU64>(63, SharedMemo::with_bytes);
        round_trip::<Cell<u128>>(127, PrivateMemo::with_bytes);
        // A costed table writes its entries, never its costs' slots.
        round_trip::<Cell<u128>>(127, PrivateMemo::with_costs);
    }

    /// A key of `cards` cards (its leading bit) for tests of eviction,
    /// distinct for each `n`.
    fn key_of_cards(cards: u32, n: u128) -> u128 {
        (1u128 << (2 * cards + 20)) | (n << FIELD_BITS)
    }

    #[test]
    fn a_costed_table_evicts_the_cheapest_search_before_the_fewest_cards() {
        let memo = PrivateMemo::with_costs(64 * 5);
        assert_eq!(memo.slot_count(), 5 * 3, "one slot a bucket holds costs");
        // A small position whose search was costly outlives many cheap
        // large ones; by cards alone it is the first to go.
        let costly = key_of_cards(22, 9);
        memo.insert_costed(costly, true, 1 << 20);
        let plain = PrivateMemo::with_bytes(64 * 5);
        plain.insert(costly, true);
        for n in 1..2_000 {
            memo.insert_costed(key_of_cards(40, n), false, 1);
            plain.insert(key_of_cards(40, n), false);
        }
        assert_eq!(memo.get(costly), Some(true));
        assert_eq!(plain.get(costly), None);
        // Equal costs: the fewest cards go first.
        let one = PrivateMemo::with_costs(64);
        for (cards, n) in [(30, 1), (25, 2), (35, 3)] {
            one.insert_costed(key_of_cards(cards, n), true, 100);
        }
        one.insert_costed(key_of_cards(33, 4), true, 100);
        assert_eq!(one.get(key_of_cards(25, 2)), None);
        for (cards, n) in [(30, 1), (35, 3), (33, 4)] {
            assert_eq!(one.get(key_of_cards(cards, n)), Some(true));
        }
        // The cost slot never answers a lookup, nor is counted or written.
        assert_eq!(one.len(), 3);
    }

    #[test]
    fn costs_of_an_earlier_epoch_count_as_nothing() {
        let memo = PrivateMemo::with_costs(64);
        let old = key_of_cards(22, 5);
        memo.insert_costed(old, true, 1 << 30);
        // Within the epoch the costly entry outlives cheap newcomers with
        // more cards.
        for n in 1..10 {
            memo.insert_costed(key_of_cards(40, n), false, 1);
        }
        assert_eq!(memo.get(old), Some(true));
        // In the next epoch it is the first to go: it has the fewest cards
        // of the entries that cost nothing now.
        memo.next_epoch();
        memo.insert_costed(key_of_cards(40, 99), false, 1);
        assert_eq!(memo.get(old), None);
    }

    /// A costed table written out and read back keeps its entries' costs
    /// for the search that comes next (the next epoch): the costly entry
    /// read back outlives cheap newcomers with more cards, as it would
    /// have in the search that proved it, while the cheap one read back
    /// goes first. Read into a table without costs, both are kept.
    #[test]
    fn costs_are_kept_over_a_stop() {
        let memo = PrivateMemo::with_costs(64);
        let (costly, cheap) = (key_of_cards(22, 5), key_of_cards(22, 6));
        memo.insert_costed(costly, true, 1 << 30);
        memo.insert_costed(cheap, false, 1);
        let mut bytes = Vec::new();
        memo.write_entries(&mut bytes).unwrap();
        let resumed = PrivateMemo::with_costs(64);
        PrivateMemo::read_entries_into(&[&resumed], &mut &bytes[..]).unwrap();
        resumed.next_epoch();
        for n in 1..10 {
            resumed.insert_costed(key_of_cards(40, n), false, 1);
        }
        assert_eq!(resumed.get(costly), Some(true));
        assert_eq!(resumed.get(cheap), None);
        let uncosted = PrivateMemo::with_bytes(64);
        PrivateMemo::read_entries_into(&[&uncosted], &mut &bytes[..]).unwrap();
        assert_eq!(uncosted.get(costly), Some(true));
        assert_eq!(uncosted.get(cheap), Some(false));
    }

    /// An overfull costed table, with a bucket count that is no power of
    /// two, never answers with another key's verdict.
    #[test]
    fn an_overfull_costed_table_stays_exact() {
        let memo = PrivateMemo::with_costs(64 * 37);
        let mut truth = HashMap::new();
        let mut evicted = false;
        for (i, (key, verdict)) in random_entries(20_000, 127, 4242).into_iter().enumerate() {
            evicted |= memo.insert_costed(key, verdict, key as u64 >> 40);
            truth.insert(key, verdict);
            if i % 1_000 == 0 {
                memo.next_epoch();
            }
            if i % 13 == 0 {
                for (&k, &t) in truth.iter().take(50) {
                    if let Some(got) = memo.get(k) {
                        assert_eq!(got, t, "{k:x}");
                    }
                }
            }
        }
        assert!(evicted);
        let kept = truth.keys().filter(|&&k| memo.get(k).is_some()).count();
        assert!(kept > 0 && kept <= memo.slot_count());
    }

    /// A damaged table is refused: a zero entry, the other kind's width, a
    /// count past the end of the file.
    #[test]
    fn damaged_entries_are_refused() {
        let memo = SharedMemo::with_bytes(64 * 8);
        memo.insert(0x1234, true);
        let mut file = Vec::new();
        memo.write_entries(&mut file).unwrap();
        let read = |bytes: &[u8]| SharedMemo::read_entries_into(&[&memo], &mut &bytes[..]);
        assert!(read(&file).is_ok());
        let damaged = |edit: &dyn Fn(&mut Vec<u8>)| {
            let mut bytes = file.clone();
            edit(&mut bytes);
            read(&bytes).unwrap_err()
        };
        let zero = damaged(&|b| b[9..17].fill(0));
        assert!(zero.to_string().contains("no memo entry"), "{zero}");
        let wide = damaged(&|b| b[0] = 16);
        assert!(wide.to_string().contains("16-byte entries"), "{wide}");
        let long = damaged(&|b| b[1..9].copy_from_slice(&u64::MAX.to_le_bytes()));
        assert_eq!(long.kind(), io::ErrorKind::UnexpectedEof);
        let private = PrivateMemo::with_bytes(64 * 8);
        assert!(PrivateMemo::read_entries_into(&[&private], &mut file.as_slice()).is_err());
    }

    /// A solver's own table is emptied between deals only once it has
    /// taken more than TURNOVER_STORES_PER_SLOT verdicts a slot since it
    /// was last emptied; keys the shared table holds, and entries read
    /// back from a kept memo (a deal under way at a stop), do not count.
    #[test]
    fn an_own_table_is_emptied_only_once_it_has_turned_over() {
        let slots = 16 * 4;
        let shared = Arc::new(SharedMemo::with_bytes(64 * 1024));
        let tables: Tables = Tables::new(Some(shared), 64 * 16);
        assert_eq!(tables.own().slot_count(), slots);
        let long_key = |i: u64| (1u128 << 100) | u128::from(i) << 8;
        // Short keys go to the shared table and are not the own table's.
        for k in 1..1_000u128 {
            tables.insert(k << 8, k % 2 == 0);
        }
        assert!(!tables.forget_own_if_turned_over());
        let limit = slots as u64 * TURNOVER_STORES_PER_SLOT;
        for i in 0..limit {
            tables.insert(long_key(i), true);
        }
        assert!(
            !tables.forget_own_if_turned_over(),
            "at the limit, not past it"
        );
        assert!(!tables.own().is_empty());
        tables.insert(long_key(limit), false);
        assert!(tables.forget_own_if_turned_over());
        assert!(tables.own().is_empty());
        assert_eq!(tables.get(long_key(limit)), None);
        assert!(tables.get(2 << 8).is_some(), "the shared table is kept");
        assert!(
            !tables.forget_own_if_turned_over(),
            "the count starts again"
        );

        // A full table read back is kept for the deal it carries over.
        let kept: Tables = Tables::new(None, 64 * 16);
        for i in 0..=limit {
            kept.insert(long_key(i), true);
        }
        let mut file = Vec::new();
        kept.own().write_entries(&mut file).unwrap();
        let resumed: Tables = Tables::new(None, 64 * 16);
        PrivateMemo::read_entries_into(&[resumed.own()], &mut file.as_slice()).unwrap();
        let entries = kept.own().len();
        assert!(entries > slots / 2);
        assert_eq!(resumed.own().len(), entries);
        assert!(!resumed.forget_own_if_turned_over());
        assert_eq!(resumed.own().len(), entries);
    }
}
