//! The results committed under `results/` must come from the configs that
//! name them. A quick check run written into a results directory (say 1x1
//! to 3x3 instead of 1x1 to 8x8) once replaced two studies' full tables
//! unnoticed; every manifest records the config it ran, so compare.

use serde_json::Value;
use std::path::Path;

/// The parts of a config that decide what a run computes. Memory, move
/// order and the output directory only change how fast or where.
fn what_it_computes(config: &Value) -> Value {
    let mut v = config.clone();
    if let Some(map) = v.as_object_mut() {
        map.remove("output");
        map.remove("solver");
    }
    v
}

#[test]
fn every_committed_result_matches_its_config() {
    let mut checked = 0;
    for entry in std::fs::read_dir("configs").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let config = runner::studies::load_config(&path).unwrap();
        let dir = config.output_dir();
        let manifest = Path::new(&dir).join("manifest.json");
        if !dir.starts_with("results") || !manifest.exists() {
            continue;
        }
        let recorded: Value =
            serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
        let expected = serde_json::to_value(&config).unwrap();
        assert_eq!(
            what_it_computes(&recorded["config"]),
            what_it_computes(&expected),
            "{} was not produced by {}: rerun it",
            manifest.display(),
            path.display()
        );
        // Older manifests record an exit code; newer ones the check.
        if let Some(code) = recorded.get("exit_code") {
            assert_eq!(code, 0, "{} records a failed run", manifest.display());
        }
        if let Some(check) = recorded.get("check") {
            assert_eq!(
                check,
                "passed",
                "{} records a failed run",
                manifest.display()
            );
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} results directories found");
}
