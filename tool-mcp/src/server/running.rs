//! The requests in flight's signals, each at a place of its own: taking a place and giving it
//! back are an index, not a hash of a key (they are made and dropped once per request).

use toolwright_runtime::exec::Cancellation;

/// The signals of the requests in flight, each at the place [`insert`](Self::insert) gave it
/// until [`remove`](Self::remove) gives the place back for the next request.
#[derive(Default)]
pub(super) struct Running {
    places: Vec<Option<Cancellation>>,
    /// The places given back, the last first.
    free: Vec<usize>,
    len: usize,
}

impl Running {
    /// Keeps `signal`; returns its place.
    pub(super) fn insert(&mut self, signal: Cancellation) -> usize {
        self.len += 1;
        if let Some(place) = self.free.pop()
            && let Some(slot) = self.places.get_mut(place)
        {
            *slot = Some(signal);
            return place;
        }
        self.places.push(Some(signal));
        self.places.len() - 1
    }

    /// Gives back `place` (a place given back already, or never given, changes nothing).
    pub(super) fn remove(&mut self, place: usize) {
        if let Some(slot) = self.places.get_mut(place)
            && slot.take().is_some()
        {
            self.len -= 1;
            self.free.push(place);
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every signal kept.
    pub(super) fn signals(&self) -> impl Iterator<Item = &Cancellation> {
        self.places.iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_given_back_and_taken_again() {
        let mut running = Running::default();
        let (a, b) = (Cancellation::new(), Cancellation::new());
        let first = running.insert(a.clone());
        let second = running.insert(b.clone());
        assert_ne!(first, second);
        assert_eq!(running.len(), 2);
        running.remove(first);
        running.remove(first);
        assert_eq!(running.len(), 1);
        running.signals().for_each(Cancellation::cancel);
        assert!(b.is_cancelled() && !a.is_cancelled());
        assert_eq!(running.insert(Cancellation::new()), first);
        running.remove(first);
        running.remove(second);
        running.remove(99);
        assert!(running.is_empty());
        assert_eq!(running.signals().count(), 0);
    }
}
