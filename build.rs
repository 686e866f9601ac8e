//! Records the git commit the binary was built from, for `--version` and
//! every manifest: a result should say exactly which code produced it.

use std::process::Command;

/// What the binary is built from. Only these can make it differ from the
/// commit it names, so only their changes mark it `-modified`, and only
/// they (with HEAD) rerun this script: a restored `results/` file or a
/// `git add` must not rebuild the binary.
const CODE: [&str; 4] = ["src", "build.rs", "Cargo.toml", "Cargo.lock"];

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
            let mut status = vec!["status", "--porcelain", "--untracked-files=no", "--"];
            status.extend(CODE);
            let dirty = git(&status).is_some_and(|s| !s.is_empty());
            if dirty { format!("{c}-modified") } else { c }
        }
        // A source tarball or `cargo install` from a registry has no git.
        None => "unknown".into(),
    };
    println!("cargo:rustc-env=RUNNER_GIT_COMMIT={commit}");
    // A commit or checkout moves HEAD or the branch it names; an edit to the
    // code changes the files themselves (a directory is watched whole).
    let mut watched: Vec<String> = [".git/HEAD", ".git/packed-refs"]
        .iter()
        .chain(CODE.iter())
        .map(|p| p.to_string())
        .collect();
    if let Some(head) = std::fs::read_to_string(".git/HEAD").ok()
        && let Some(r) = head.strip_prefix("ref: ")
    {
        watched.push(format!(".git/{}", r.trim()));
    }
    for path in watched {
        if std::path::Path::new(&path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}
