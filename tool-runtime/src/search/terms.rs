//! Terms and their numbers: the maps a build spends most of its time in, made cheap.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

/// `FxHash` (rustc's): the index's keys are short strings it made itself, so a keyed hash buys
/// nothing but time.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Fast;

impl BuildHasher for Fast {
    type Hasher = FxHasher;

    fn build_hasher(&self) -> FxHasher {
        FxHasher(0)
    }
}

pub(super) struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
            self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
        }
        for &byte in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(byte)).wrapping_mul(SEED);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Terms numbered as one reading pass (a thread's) meets them.
#[derive(Default)]
pub(super) struct Dictionary(pub(super) Terms);

/// Terms and their numbers. A term of up to 16 bytes (most words) is its own key, packed in a
/// `u128`: no pointer to follow and no `memcmp` to call per word, which is most of a build.
#[derive(Debug, Clone, Default)]
pub(super) struct Terms {
    short: HashMap<u128, u32, Fast>,
    long: HashMap<Box<str>, u32, Fast>,
}

impl Terms {
    /// `term`'s bytes as a key; terms hold no NUL (they are letters and digits), so the zeros
    /// after them end them.
    fn pack(term: &str) -> Option<u128> {
        let bytes = term.as_bytes();
        if bytes.len() > 16 || bytes.contains(&0) {
            return None;
        }
        let mut key = [0u8; 16];
        key[..bytes.len()].copy_from_slice(bytes);
        Some(u128::from_le_bytes(key))
    }

    pub(super) fn get(&self, term: &str) -> Option<u32> {
        match Terms::pack(term) {
            Some(key) => self.short.get(&key).copied(),
            None => self.long.get(term).copied(),
        }
    }

    pub(super) fn insert(&mut self, term: &str, id: u32) {
        match Terms::pack(term) {
            Some(key) => self.short.insert(key, id),
            None => self.long.insert(term.into(), id),
        };
    }

    pub(super) fn len(&self) -> usize {
        self.short.len() + self.long.len()
    }

    /// Every term with its number.
    pub(super) fn each(&self, mut each: impl FnMut(&str, u32)) {
        for (&key, &id) in &self.short {
            let bytes = key.to_le_bytes();
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(16);
            each(std::str::from_utf8(&bytes[..end]).unwrap_or_default(), id);
        }
        for (term, &id) in &self.long {
            each(term, id);
        }
    }
}

impl Dictionary {
    /// The number of `term`, given it when first met.
    pub(super) fn number(&mut self, term: &str) -> u32 {
        if let Some(id) = self.0.get(term) {
            return id;
        }
        let id = u32::try_from(self.0.len()).unwrap_or(u32::MAX);
        self.0.insert(term, id);
        id
    }
}
