//! Reading a cubin into the model (in progress).
