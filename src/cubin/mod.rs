//! The CUDA ELF format: the typed model of a cubin, its reader and writer,
//! the CUDA-specific constants and catalogs, the codecs for the .nv.* sections,
//! and the containers cubins travel in (fatbins, host objects, archives).

pub mod archive;
pub mod build;
pub mod callgraph;
pub mod capsule;
pub mod catalog;
pub mod compat;
pub mod consts;
pub mod error;
pub mod fatbin;
pub mod host;
pub mod input;
pub mod model;
pub mod nvinfo;
pub mod prototype;
pub mod read;
pub mod rel_action;
pub mod shared;
pub mod tables;
pub mod write;

pub use error::FormatError;
pub use model::{Cubin, Header, Reloc, Section, Segment, Symbol};
pub use shared::SharedCubin;
