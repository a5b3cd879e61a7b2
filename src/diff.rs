//! Equivalence comparison (in progress).
