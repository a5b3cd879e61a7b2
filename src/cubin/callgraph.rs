//! Codec for the callgraph section (in progress).
