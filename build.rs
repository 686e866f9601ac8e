//! Records the git commit the binary was built from, for `--version` and
//! every manifest: a result should say exactly which code produced it.

use std::process::Command;

fn main() {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let commit = match git(&["rev-parse", "HEAD"]) {
        Some(c) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty { format!("{c}-modified") } else { c }
        }
        // A source tarball or `cargo install` from a registry has no git.
        None => "unknown".into(),
    };
    println!("cargo:rustc-env=RUNNER_GIT_COMMIT={commit}");
    // Rebuild when HEAD moves or the index changes (a commit or checkout).
    for path in [".git/HEAD", ".git/index"] {
        if std::path::Path::new(path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    if let Some(head) = std::fs::read_to_string(".git/HEAD").ok()
        && let Some(r) = head.strip_prefix("ref: ")
    {
        let r = format!(".git/{}", r.trim());
        if std::path::Path::new(&r).exists() {
            println!("cargo:rerun-if-changed={r}");
        }
    }
}
