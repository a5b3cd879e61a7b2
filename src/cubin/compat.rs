//! Codec for the compat section (in progress).
