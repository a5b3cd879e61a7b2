//! Codec for the nvinfo section (in progress).
