//! The one error type that lower layers use to say "the input is wrong",
//! as opposed to a fault: the top layer turns a [`Refused`] into exit
//! status 2 and anything else into 3.

use std::fmt;

/// A problem the user must fix (a file, flag or directory that cannot be
/// used), already phrased as the one line they see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused(pub String);

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// An [`anyhow::Error`] that is a [`Refused`].
pub fn refuse(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Refused(message.into()))
}

/// Was this error, or anything it wraps, a [`Refused`]?
pub fn is_refused(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| cause.is::<Refused>())
}
