//! host container reading (in progress).
