//! A toolbox's tools by name: one hash lookup per call.

/// Names and the index of each one's tool; a table of slots, hashed by name, finds a name with
/// one hash and (almost always) one comparison. Tools are registered once and called often:
/// the table is rebuilt whenever the names change.
#[derive(Clone, Default)]
pub(super) struct Names {
    /// `(name, index into the toolbox's tools)`, in registration order.
    entries: Vec<(Box<str>, usize)>,
    /// Open addressing: an index into `entries` per slot, `EMPTY` where there is none. At least
    /// twice as many slots as names, a power of two.
    slots: Box<[u32]>,
}

const EMPTY: u32 = u32::MAX;

impl Names {
    /// The index of the tool named `name`.
    #[inline]
    pub(super) fn get(&self, name: &str) -> Option<usize> {
        let mask = self.slots.len().checked_sub(1)?;
        let mut slot = hash(name) & mask;
        loop {
            let entry = *self.slots.get(slot)?;
            // An empty slot ends the probe: the name is not there.
            if entry == EMPTY {
                return None;
            }
            let (key, index) = self.entries.get(usize::try_from(entry).ok()?)?;
            if key.len() == name.len() && **key == *name {
                return Some(*index);
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Adds `name` for the tool at `index`; `false` (and nothing added) when it is taken.
    pub(super) fn insert(&mut self, name: &str, index: usize) -> bool {
        if self.get(name).is_some() {
            return false;
        }
        self.entries.push((name.into(), index));
        self.rebuild();
        true
    }

    /// Removes `name`: the index of its tool. `shift`: the tools after it move down one (it was
    /// removed from among them), so their indices do too.
    pub(super) fn remove(&mut self, name: &str, shift: bool) -> Option<usize> {
        let at = self.entries.iter().position(|(key, _)| **key == *name)?;
        let (_, index) = self.entries.remove(at);
        if shift {
            for (_, i) in &mut self.entries {
                if *i > index {
                    *i -= 1;
                }
            }
        }
        self.rebuild();
        Some(index)
    }

    fn rebuild(&mut self) {
        let size = (self.entries.len() * 2).next_power_of_two().max(4);
        let mut slots = vec![EMPTY; size].into_boxed_slice();
        let mask = size - 1;
        for (at, (key, _)) in self.entries.iter().enumerate() {
            let mut slot = hash(key) & mask;
            while slots[slot] != EMPTY {
                slot = (slot + 1) & mask;
            }
            // Toolboxes hold far fewer than 2^32 tools.
            slots[slot] = u32::try_from(at).unwrap_or(EMPTY);
        }
        self.slots = slots;
    }
}

/// A name's slot before the mask: its length and three of its bytes (first, middle, last),
/// multiplied out. Constant time, whatever the name's length; names that share all four only
/// probe one slot further.
#[inline]
fn hash(name: &str) -> usize {
    let bytes = name.as_bytes();
    let byte = |at: usize| bytes.get(at).map_or(0, |b| u64::from(*b));
    let len = bytes.len();
    let mixed =
        (len as u64) ^ (byte(0) << 16) ^ (byte(len / 2) << 24) ^ (byte(len.wrapping_sub(1)) << 32);
    // The high bits of the product mix every input bit; shifted down to fit any table.
    (mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_name_and_no_other_through_inserts_and_removals() {
        let mut names = Names::default();
        assert_eq!(names.get("add"), None);
        // Names that share length, first, middle and last bytes collide on purpose.
        let all = [
            "add", "axd", "ayd", "search", "register", "get_user", "get_uxer", "", "a",
        ];
        for (index, name) in all.iter().enumerate() {
            assert!(names.insert(name, index), "{name}");
            assert!(!names.insert(name, 99), "{name} twice");
        }
        for (index, name) in all.iter().enumerate() {
            assert_eq!(names.get(name), Some(index), "{name}");
        }
        for missing in ["ad", "addd", "azd", "get_uyer", "b"] {
            assert_eq!(names.get(missing), None, "{missing}");
        }
        assert_eq!(names.remove("axd", true), Some(1));
        assert_eq!(names.get("axd"), None);
        assert_eq!(names.get("add"), Some(0));
        assert_eq!(names.get("ayd"), Some(1));
        assert_eq!(names.get("a"), Some(7));
        assert_eq!(names.remove("a", false), Some(7));
        assert_eq!(names.remove("a", false), None);
        assert_eq!(names.get("get_uxer"), Some(5));
    }
}
