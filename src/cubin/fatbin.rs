//! fatbin container reading (in progress).
