//! The one poison-ignoring lock every crate takes a `std::sync::Mutex`
//! through. It does no I/O and needs no runtime: a std mutex is a pure
//! in-process guard.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, taking the guard even when a thread panicked while holding
/// it. Every value behind these locks is changed in whole steps, so the
/// value a panicking thread left is still a value the rest can use; and no
/// input may make the host panic, which a second panic on a poisoned lock
/// would.
pub fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_poisoned_lock_still_hands_out_its_value() {
        let shared = Arc::new(Mutex::new(1));
        let held = shared.clone();
        let panicked = std::thread::spawn(move || {
            let mut guard = lock(&held);
            *guard = 2;
            panic!("a thread dies holding the lock");
        })
        .join();
        assert!(panicked.is_err());
        assert!(shared.is_poisoned());
        assert_eq!(*lock(&shared), 2);
    }
}
