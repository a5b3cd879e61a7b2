//! Writing the model back to ELF bytes (in progress).
