//! The architecture profile database (seed 004), checked against nvlink.
