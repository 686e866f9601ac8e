//! The one error type that lower layers use to say "the input is wrong",
//! as opposed to a fault: the top layer turns a [`Refused`] into exit
//! status 2 and anything else into 3. Beside it, the few text helpers that
//! every refusal and printed command share: one line
//! ([`on_one_line`]), a path as a shell word ([`shell_word`]) and the
//! name a misspelling meant ([`did_you_mean`]).

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

/// Refuses `path` if something other than a regular file (or a link to
/// one) is there: a device, a FIFO, a socket or a directory. Writing by
/// rename would replace it (run as root, `runner compare --out /dev/null`
/// once turned the machine's /dev/null into a file), and reading a FIFO
/// waits forever for a writer. `role` says what the path was to be; a path
/// the runner writes gets the advice to choose another, one it reads (a
/// result file, whose name the run fixed) does not.
pub fn refuse_unless_file_or_absent(path: &std::path::Path, role: Role) -> anyhow::Result<()> {
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => {
            let advice = match role {
                Role::Written(_) => "; choose another path",
                Role::Read(_) => "",
            };
            Err(refuse(format!(
                "{}: exists and is not a regular file, so it cannot be {}{advice}",
                path.display(),
                role.what()
            )))
        }
        _ => Ok(()),
    }
}

/// What a path checked by [`refuse_unless_file_or_absent`] was to be.
#[derive(Clone, Copy, Debug)]
pub enum Role {
    /// Written by the runner, as this ("written", "the checkpoint").
    Written(&'static str),
    /// Read by the runner, as this ("read as a result file").
    Read(&'static str),
}

impl Role {
    fn what(self) -> &'static str {
        match self {
            Role::Written(what) | Role::Read(what) => what,
        }
    }
}

/// Was this error, or anything it wraps, a [`Refused`]?
pub fn is_refused(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| cause.is::<Refused>())
}

/// `text` with its control characters escaped (a line break as `\n`),
/// everything else as it is: for a message or output line that quotes
/// what the user typed (a path with a line break in it), which a script
/// reading it, or a person, expects on one line.
pub fn on_one_line(text: &str) -> String {
    let mut line = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            line.extend(c.escape_default());
        } else {
            line.push(c);
        }
    }
    line
}

/// Writes `message` to stderr as one line ([`on_one_line`]): every note and
/// status line the runner prints that may quote a path or a name the user
/// chose, so that a script reading stderr line by line, or a person, sees
/// each as one line.
pub fn say(message: impl std::fmt::Display) {
    eprintln!("{}", on_one_line(&message.to_string()));
}

/// `path` as one shell word ([`shell_word`]), for a command printed for
/// pasting.
pub fn path_word(path: &std::path::Path) -> String {
    shell_word(&path.display().to_string())
}

/// `text` as one shell word, single-quoted unless every character is one
/// no shell treats specially: for a path in a command the runner prints
/// for pasting, so that it runs as printed from a directory with spaces or
/// `;` in its name.
pub fn shell_word(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// The one name of `known` within two edits (letters inserted, removed
/// or changed) of `typed`, ignoring case, if exactly one is nearest: a
/// misspelt key, value, study or column gets a suggestion ("did you mean"),
/// as clap gives for flags, instead of only the list of every name. A
/// name of two letters or fewer is two edits from many (`` from `c1`):
/// a guess there would be noise.
pub fn did_you_mean<'a, S>(typed: &str, known: impl IntoIterator<Item = &'a S>) -> Option<&'a str>
where
    S: AsRef<str> + ?Sized + 'a,
{
    let typed = typed.to_lowercase();
    let mut best: Option<(usize, &str, bool)> = None;
    for candidate in known.into_iter().map(AsRef::as_ref) {
        let d = edit_distance(&typed, &candidate.to_lowercase());
        best = match best {
            Some((b, _, _)) if d > b => best,
            Some((b, c, _)) if d == b => Some((b, c, true)),
            _ => Some((d, candidate, false)),
        };
    }
    best.filter(|&(d, _, tied)| d <= 2 && d < typed.chars().count() && !tied)
        .map(|(_, c, _)| c)
}

/// The fewest single-letter insertions, removals and changes that turn
/// `a` into `b` (Levenshtein's distance), by the usual one-row table.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substituted = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substituted.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line break or escape in a message is shown escaped, so the error
    /// stays one line; other text, μ and quotes included, is kept.
    #[test]
    fn an_error_message_is_kept_on_one_line() {
        assert_eq!(on_one_line("a/x\nb: no such file"), "a/x\\nb: no such file");
        assert_eq!(on_one_line("p\r\t\u{1b}[31m"), "p\\r\\t\\u{1b}[31m");
        assert_eq!(on_one_line("μ(X, Y) `a` \"b\" é"), "μ(X, Y) `a` \"b\" é");
    }

    /// A word bash reads back as the text it was made from, whatever the
    /// text holds (the single quote included).
    #[test]
    fn a_shell_word_is_read_back_by_bash_as_the_text() {
        for text in [
            "scripts/slurm/deal8",
            "odd dir; touch PWNED & (x)/submit.sh",
            "it's $HOME `x` \\ \"q\"",
            "",
            "*",
        ] {
            let word = shell_word(text);
            let o = std::process::Command::new("bash")
                .args(["-c", &format!("printf %s {word}")])
                .output()
                .unwrap();
            assert_eq!(String::from_utf8(o.stdout).unwrap(), text, "{word}");
        }
        assert_eq!(shell_word("a/b-c_d.e"), "a/b-c_d.e");
    }

    /// A near misspelling gets its word; a tie, or nothing near, none.
    #[test]
    fn a_misspelt_word_is_matched_to_the_nearest_known_one() {
        let keys = ["name", "study", "mode", "seed", "deals"];
        assert_eq!(did_you_mean("dealz", &keys), Some("deals"));
        assert_eq!(did_you_mean("Seeds", &keys), Some("seed"));
        assert_eq!(did_you_mean("studdy", &keys), Some("study"));
        assert_eq!(did_you_mean("x", &keys), None);
        assert_eq!(did_you_mean("colour", &keys), None);
        assert_eq!(did_you_mean("mede", &keys), Some("mode"));
        // One edit from both: no guess.
        assert_eq!(did_you_mean("cat", &["bat", "hat"]), None);
        let studies = ["tanhinmin", "rates", "variant", "score", "strategy"];
        assert_eq!(did_you_mean("variantt", &studies), Some("variant"));
        assert_eq!(did_you_mean("stratgy", &studies), Some("strategy"));
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("field", "field"), 0);
        assert_eq!(edit_distance("feild", "field"), 2);
        assert_eq!(edit_distance("secnd", "second"), 1);
        let columns = ["mu0", "mu1", "first"];
        assert_eq!(did_you_mean("mu2", &columns), None, "as near mu0 as mu1");
        assert_eq!(did_you_mean("FIRST", &columns), Some("first"));
        assert_eq!(did_you_mean("turn", &columns), None);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("μ0", "μ1"), 1);
    }
}
