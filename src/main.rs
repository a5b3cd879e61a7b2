fn main() {
    std::process::exit(culdb::cli::main());
}
