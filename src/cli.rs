//! The command line (in progress).
pub fn main() -> i32 {
    0
}
