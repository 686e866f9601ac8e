//! SIGINT and SIGTERM as a stop request, for the commands that keep a
//! checkpoint (a run, a batch of positions): the first signal sets a flag
//! the work looks at, so what is finished is kept; the second is for a user
//! who will not wait.

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// On a thread of its own: on the first SIGINT or SIGTERM sets `stop` and
/// calls `first` with the signal's name; on any later one calls `again`
/// (which ends the process: the caller picks the exit status).
pub fn stop_on_signals(
    stop: Arc<AtomicBool>,
    first: impl Fn(&str) + Send + 'static,
    again: impl Fn(&str) + Send + 'static,
) -> std::io::Result<()> {
    let mut signals = Signals::new([SIGINT, SIGTERM])?;
    std::thread::spawn(move || {
        for signal in signals.forever() {
            let name = if signal == SIGINT {
                "SIGINT"
            } else {
                "SIGTERM"
            };
            if stop.swap(true, Ordering::SeqCst) {
                again(name);
            } else {
                first(name);
            }
        }
    });
    Ok(())
}
