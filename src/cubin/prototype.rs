//! Codec for the prototype section (in progress).
