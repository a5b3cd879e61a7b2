//! input container reading (in progress).
