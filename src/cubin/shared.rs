//! A parsed cubin that borrows its section bytes from the input's shared
//! buffer instead of copying them (a 14 MB NVSHMEM member was copied whole
//! before the merge looked at it).
//!
//! The buffer is an `Arc<Vec<u8>>` that nobody mutates once an input is read
//! (`InputRecord::data`); [`SharedCubin`] holds a clone of that `Arc` beside
//! the cubin, so the bytes live as long as the cubin does, and clones (the
//! debugger's checkpoints) clone both. The cubin is only handed out with the
//! lifetime of a borrow of the wrapper, and changed only through methods that
//! store owned data, so no slice of the buffer outlives it.

use std::sync::Arc;

use super::{Cubin, Reloc};

/// A cubin parsed from shared bytes, borrowing them.
#[derive(Debug, Clone)]
pub struct SharedCubin {
    // Borrows from `bytes`: declared first, so it is dropped first. Shared
    // between clones (the debugger's checkpoints clone the merge of the
    // input in progress: 100,000 symbol names each time).
    cubin: Arc<Cubin<'static>>,
    _bytes: Arc<Vec<u8>>,
}

impl SharedCubin {
    /// Parses `bytes` with `parse`, keeping the bytes alive beside the result.
    pub fn parse<E>(
        bytes: &Arc<Vec<u8>>,
        parse: impl for<'b> FnOnce(&'b [u8]) -> Result<Cubin<'b>, E>,
    ) -> Result<Self, E> {
        let bytes = Arc::clone(bytes);
        let cubin = parse(bytes.as_slice())?;
        // SAFETY: the cubin borrows only from `bytes`' heap buffer, which
        // this struct keeps alive (its own `Arc` clone) and which does not
        // move or change while any `Arc` to it exists (the `Vec` is never
        // mutated through a shared `Arc`). The `'static` lifetime never
        // escapes: `get` shortens it to a borrow of `self`, and the setters
        // only store owned data.
        let cubin = unsafe { std::mem::transmute::<Cubin<'_>, Cubin<'static>>(cubin) };
        Ok(SharedCubin {
            cubin: Arc::new(cubin),
            _bytes: bytes,
        })
    }

    /// The cubin, for as long as `self` is borrowed.
    pub fn get(&self) -> &Cubin<'_> {
        &self.cubin
    }

    /// Replaces section `j`'s bytes with owned ones.
    pub fn set_section_data(&mut self, j: usize, data: Vec<u8>) {
        if let Some(s) = Arc::make_mut(&mut self.cubin).sections.get_mut(j) {
            s.data = data.into();
        }
    }

    /// Section `j`'s parsed relocations, to change in place.
    pub fn relocs_mut(&mut self, j: usize) -> Option<&mut Vec<Reloc>> {
        Arc::make_mut(&mut self.cubin)
            .sections
            .get_mut(j)
            .map(|s| &mut s.relocs)
    }
}
