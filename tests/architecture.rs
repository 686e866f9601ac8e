//! Keeps the shape of `src/` from decaying: every `crate::` path a file
//! names must lead to a layer no higher than its own, a study never names a
//! sibling study or the registry, only the top layer names `exit`, and no
//! files form an import cycle. ARCHITECTURE.md describes the layers.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layer of a source file (path relative to `src/`), lowest first.
fn layer(file: &str) -> u32 {
    let top = file.split('/').next().unwrap_or("");
    match top {
        "error.rs" | "stats.rs" | "random.rs" | "export" => 1,
        "engine" => 2,
        "games" => 3,
        "config" => 4,
        "study.rs" => 5,
        "claims.rs" => 6,
        "studies" if file.starts_with("studies/deal_study/") => 6,
        "studies" if file == "studies/mod.rs" => 9,
        "studies" => 7,
        "driver" => 8,
        "cli.rs" | "exit.rs" => 10,
        "app.rs" | "solve" | "slurm.rs" | "plan.rs" | "diff.rs" | "compare.rs" | "main.rs"
        | "lib.rs" => 11,
        _ => panic!("{file}: no layer; add it to tests/architecture.rs and ARCHITECTURE.md"),
    }
}

/// The study folder a file belongs to, if it is in one.
fn study_of(file: &str) -> Option<&str> {
    let rest = file.strip_prefix("studies/")?;
    let (name, _) = rest.split_once('/')?;
    (name != "deal_study").then_some(name)
}

/// The module path of a file: `games/tanhinmin/mod.rs` is games::tanhinmin.
fn module_of(file: &str) -> Vec<String> {
    let trimmed = file.trim_end_matches(".rs");
    let mut parts: Vec<String> = trimmed.split('/').map(String::from).collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The file that defines the longest prefix of `path` among `files`.
fn file_of(path: &[String], files: &BTreeSet<String>) -> Option<String> {
    (1..=path.len()).rev().find_map(|n| {
        let base = path[..n].join("/");
        [format!("{base}.rs"), format!("{base}/mod.rs")]
            .into_iter()
            .find(|f| files.contains(f))
    })
}

/// The modules a file declares (`mod journal;`, `pub mod memo_file;`).
fn child_modules(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let code = line.split("//").next().unwrap_or("").trim();
            let rest = code.strip_prefix("pub ").unwrap_or(code);
            let rest = rest.strip_prefix("pub(crate) ").unwrap_or(rest);
            let name = rest.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(name.trim().to_string())
        })
        .collect()
}

/// Every module path a file's code names through `crate::`, `super::`, or
/// a module it declares itself (`journal::Journal` in `engine/mod.rs`),
/// comments left out. Grouped imports (`crate::{a, b::c}`) give each member.
fn named_paths(file: &str, text: &str) -> Vec<Vec<String>> {
    let module = module_of(file);
    let mut anchors: Vec<(String, Vec<String>)> = vec![
        ("crate::".to_string(), Vec::new()),
        ("super::".to_string(), module.clone()),
    ];
    // A module's own child, named without an anchor: the parent depends on
    // it as much as on a sibling named through `super::`. (`lib.rs` is
    // left out: its modules are the layers themselves.)
    if file != "lib.rs" {
        for child in child_modules(text) {
            let mut base = module.clone();
            base.push(child.clone());
            // The base keeps one element for the anchor's own name, popped
            // below like `super::`'s.
            base.push(String::new());
            anchors.push((format!("{child}::"), base));
        }
    }
    let mut out = Vec::new();
    // Inside an inline module (`mod tests { use super::f; }`, at the end of
    // a file), `super::` is the file's own module, not its parent.
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let head = code.trim();
        if (head.starts_with("mod ") || head.starts_with("pub mod ")) && head.ends_with('{') {
            anchors[1].1 = module.iter().cloned().chain([String::new()]).collect();
        }
        // A re-export (`pub use table::Markdown;`) is the module's public
        // face, not a use of the child by the parent's own code.
        let re_export = code.trim_start().starts_with("pub use ");
        for (anchor, base) in &anchors {
            let (anchor, base) = (anchor.as_str(), base.clone());
            if re_export && !matches!(anchor, "crate::" | "super::") {
                continue;
            }
            let mut rest = code;
            while let Some(at) = rest.find(anchor) {
                let before = &rest[..at];
                rest = &rest[at + anchor.len()..];
                // `runner::crate::` cannot occur; skip identifiers ending in
                // the anchor, such as `mysuper::`, and paths that only end
                // in a child's name (`crate::engine::journal::`).
                if before.ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                let mut prefix = base.clone();
                if anchor != "crate::" {
                    prefix.pop();
                }
                let mut stem = rest;
                let mut extra_super = 0;
                while let Some(r) = stem.strip_prefix("super::") {
                    stem = r;
                    extra_super += 1;
                }
                for _ in 0..extra_super {
                    prefix.pop();
                }
                let segments = path_segments(stem);
                for group in segments {
                    let mut p = prefix.clone();
                    p.extend(group);
                    if !p.is_empty() {
                        out.push(p);
                    }
                }
            }
        }
    }
    out
}

/// The paths an import names after its anchor: `a::b::{c, d::e}` gives
/// a::b::c and a::b::d::e (one level of braces, which is all `src/` uses
/// after `crate::` on one line).
fn path_segments(text: &str) -> Vec<Vec<String>> {
    let mut head = Vec::new();
    let mut rest = text;
    loop {
        if let Some(group) = rest.strip_prefix('{') {
            let inner = group.split('}').next().unwrap_or("");
            return inner
                .split(',')
                .map(str::trim)
                .filter(|m| !m.is_empty() && *m != "self")
                .flat_map(path_segments)
                .map(|tail| head.iter().cloned().chain(tail).collect())
                .collect();
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            break;
        }
        rest = &rest[name.len()..];
        head.push(name);
        match rest.strip_prefix("::") {
            Some(r) => rest = r,
            None => break,
        }
    }
    if head.is_empty() {
        Vec::new()
    } else {
        vec![head]
    }
}

/// The problems in a set of (file, text): imports up a layer, a study
/// naming a sibling or the registry, `exit` below the top, and cycles.
fn problems(sources: &BTreeMap<String, String>) -> Vec<String> {
    let files: BTreeSet<String> = sources.keys().cloned().collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut found = Vec::new();
    for (file, text) in sources {
        if file == "lib.rs" {
            continue;
        }
        for path in named_paths(file, text) {
            let Some(target) = file_of(&path, &files) else {
                continue;
            };
            if &target == file || target == "lib.rs" {
                continue;
            }
            let (from, to) = (layer(file), layer(&target));
            if to > from {
                found.push(format!(
                    "{file} (layer {from}) imports {target} (layer {to}) through {}",
                    path.join("::")
                ));
            }
            if let Some(study) = study_of(file) {
                if target == "studies/mod.rs" {
                    found.push(format!("{file} imports the registry"));
                }
                if let Some(other) = study_of(&target)
                    && other != study
                {
                    found.push(format!("{file} imports the sibling study {target}"));
                }
            }
            if target == "exit.rs" && from < 11 {
                found.push(format!(
                    "{file} names an exit status; only the top layer may"
                ));
            }
            edges.entry(file.clone()).or_default().insert(target);
        }
    }
    found.extend(cycles(&edges));
    found
}

/// One message per import cycle found by depth-first search.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
        found: &mut Vec<String>,
    ) {
        state.insert(node.to_string(), 1);
        stack.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            match state.get(next.as_str()).copied().unwrap_or(0) {
                0 => visit(next, edges, state, stack, found),
                1 => {
                    let start = stack.iter().position(|s| s == next).unwrap_or(0);
                    let mut cycle = stack[start..].to_vec();
                    cycle.push(next.clone());
                    found.push(format!("import cycle: {}", cycle.join(" -> ")));
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(node.to_string(), 2);
    }
    let mut state = BTreeMap::new();
    let mut found = Vec::new();
    for node in edges.keys() {
        if state.get(node.as_str()).copied().unwrap_or(0) == 0 {
            visit(node, edges, &mut state, &mut Vec::new(), &mut found);
        }
    }
    found
}

fn read_tree(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            read_tree(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.insert(rel, std::fs::read_to_string(&path).unwrap());
        }
    }
}

#[test]
fn src_imports_only_downward_and_has_no_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut sources = BTreeMap::new();
    read_tree(&root, &root, &mut sources);
    assert!(sources.len() > 40, "read {} files", sources.len());
    let found = problems(&sources);
    assert!(found.is_empty(), "layering broken:\n{}", found.join("\n"));
}

fn tree(files: &[(&str, &str)]) -> BTreeMap<String, String> {
    files
        .iter()
        .map(|(f, t)| (f.to_string(), t.to_string()))
        .collect()
}

#[test]
fn the_checker_catches_each_kind_of_breach() {
    let base = [
        ("lib.rs", "pub mod games; pub mod studies;"),
        ("games/mod.rs", "pub mod cards;"),
        ("games/cards.rs", "use crate::stats::binomial;"),
        ("stats.rs", ""),
        ("config/mod.rs", "use crate::games::cards::Deck;"),
        ("studies/mod.rs", "pub mod a; pub mod b;"),
        ("studies/a/mod.rs", "use crate::games::cards::{Deck, Hand};"),
        ("studies/b/mod.rs", "use crate::config::Config;"),
        ("exit.rs", ""),
        ("app.rs", "use crate::exit;\nuse crate::studies;"),
    ];
    assert_eq!(problems(&tree(&base)), Vec::<String>::new());

    let with = |file: &str, text: &str| {
        let mut t = tree(&base);
        t.insert(file.to_string(), text.to_string());
        problems(&t)
    };
    // A game naming a study: up a layer.
    let up = with("games/cards.rs", "fn f() { crate::studies::a::g(); }");
    assert!(
        up.iter()
            .any(|p| p.contains("layer 3) imports studies/a/mod.rs")),
        "{up:?}"
    );
    // Config naming the registry through a group.
    let grouped = with("config/mod.rs", "use crate::{games::cards::Deck, studies};");
    assert!(
        grouped.iter().any(|p| p.starts_with("config/mod.rs")),
        "{grouped:?}"
    );
    // A study naming a sibling, and one naming the registry.
    let sibling = with("studies/a/mod.rs", "use crate::studies::b::Thing;");
    assert!(
        sibling.iter().any(|p| p.contains("sibling study")),
        "{sibling:?}"
    );
    let registry = with("studies/b/mod.rs", "use super::REGISTRY;");
    assert!(
        registry.iter().any(|p| p.contains("the registry")),
        "{registry:?}"
    );
    // An exit status chosen below the top.
    let exit = with("studies/b/mod.rs", "fn f() -> i32 { crate::exit::OK }");
    assert!(exit.iter().any(|p| p.contains("exit status")), "{exit:?}");
    // A cycle within one layer.
    let cycle = with("stats.rs", "use crate::random::x;");
    let mut t = tree(&base);
    t.insert("stats.rs".into(), "use crate::random::x;".into());
    t.insert("random.rs".into(), "use crate::stats::y;".into());
    let cyc = problems(&t);
    assert!(cycle.is_empty(), "no random.rs yet: {cycle:?}");
    assert!(cyc.iter().any(|p| p.starts_with("import cycle")), "{cyc:?}");
    // Comments do not count.
    assert!(with("games/cards.rs", "// see crate::studies::a").is_empty());
    // A parent that uses its child's code, named without an anchor, while
    // the child uses the parent's: a cycle between two files of a folder.
    let family = |parent: &str, child: &str| {
        let mut t = tree(&base);
        t.insert("games/mod.rs".into(), parent.into());
        t.insert("games/rules.rs".into(), child.into());
        problems(&t)
    };
    let mutual = family(
        "pub mod cards;\nmod rules;\nfn f() { rules::apply(); }\npub struct Deck;",
        "use super::Deck;\npub fn apply() {}",
    );
    assert!(
        mutual
            .iter()
            .any(|p| p.contains("games/mod.rs -> games/rules.rs -> games/mod.rs")),
        "{mutual:?}"
    );
    // The same child re-exported (`pub use`), or a child whose own tests
    // name it through `super::`, is no cycle.
    let facade = family(
        "pub mod cards;\nmod rules;\npub use rules::apply;\npub struct Deck;",
        "use super::Deck;\npub fn apply() {}",
    );
    assert!(facade.is_empty(), "{facade:?}");
    let tests = family(
        "pub mod cards;\nmod rules;\nfn f() { rules::apply(); }",
        "pub fn apply() {}\n#[cfg(test)]\nmod tests {\n    use super::apply;\n}",
    );
    assert!(tests.is_empty(), "{tests:?}");
}
