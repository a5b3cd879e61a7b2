//! Codec for the rel_action section (in progress).
