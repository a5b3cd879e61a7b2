//! Listing cubins (in progress).
