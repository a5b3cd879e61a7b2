//! archive container reading (in progress).
