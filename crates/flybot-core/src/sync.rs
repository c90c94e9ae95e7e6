//! The one poison-ignoring lock: a panic while a lock was held leaves data
//! the host keeps using (every guarded value stays valid between writes), so
//! a poisoned lock is taken as it is rather than spreading the panic.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, ignoring poison.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
