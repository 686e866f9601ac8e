//! Seeded random streams shared by the studies. A stream depends only on
//! (seed, stream index), never on which thread or shard draws from it.

use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

/// The random stream for one chunk: Xoshiro256++ seeded from (seed, chunk
/// index) through SplitMix64, so a chunk's deals depend on nothing else.
pub fn chunk_rng(seed: u64, chunk: u64) -> Xoshiro256PlusPlus {
    fn splitmix(mut z: u64) -> u64 {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    let base = splitmix(seed) ^ splitmix(chunk.wrapping_add(0x5851_F42D_4C95_7F2D));
    let mut bytes = [0u8; 32];
    for (i, word) in bytes.chunks_exact_mut(8).enumerate() {
        word.copy_from_slice(&splitmix(base.wrapping_add(i as u64)).to_le_bytes());
    }
    Xoshiro256PlusPlus::from_seed(bytes)
}

/// Uniform integer in `0..n` without modulo bias (Lemire's method).
pub fn uniform_below(rng: &mut impl Rng, n: u64) -> u64 {
    let threshold = n.wrapping_neg() % n;
    loop {
        let wide = rng.next_u64() as u128 * n as u128;
        if (wide as u64) >= threshold {
            return (wide >> 64) as u64;
        }
    }
}
