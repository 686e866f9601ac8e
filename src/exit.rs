//! The process's exit statuses, and the error line that goes with them.
//! Only the top layer (`app`, `solve`, `slurm`) chooses a status or says
//! an error; everything below returns outcomes and errors, so that what a
//! status means is decided in one place.

use std::fmt::Display;

/// Everything checked held, or the run's work was done (a shard, a
/// measurement with no claim to check).
pub const OK: i32 = 0;
/// A check failed: minimax and the claim disagreed on some deal.
pub const CHECK_FAILED: i32 = 1;
/// The input was refused (config, flags, shard files) before any work.
pub const USAGE: i32 = 2;
/// Work started but could not finish: I/O errors and other faults.
pub const RUNTIME: i32 = 3;
/// Stopped by a signal; finished chunks are checkpointed for `--resume`.
pub const INTERRUPTED: i32 = 4;

/// The status of an error: [`USAGE`] when it is the user's input refused
/// ([`crate::error::Refused`] anywhere in its chain), else [`RUNTIME`].
pub fn of_error(e: &anyhow::Error) -> i32 {
    if crate::error::is_refused(e) {
        USAGE
    } else {
        RUNTIME
    }
}

/// Says `message` on stderr as the one line `error: …`. Control
/// characters in it are escaped: a message quotes what the user typed (a
/// path with a line break in it), and a script reading the error, or a
/// person, expects one line.
pub fn say_error(message: impl Display) {
    eprintln!("error: {}", crate::error::on_one_line(&message.to_string()));
}

/// `result`'s value, or `None` once its error is said. Every check of the
/// user's input before work starts takes this shape, and its caller then
/// returns [`USAGE`].
pub fn or_say<T>(result: Result<T, impl Display>) -> Option<T> {
    result.map_err(say_error).ok()
}
