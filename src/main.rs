fn main() {
    std::process::exit(runner::app::main());
}
