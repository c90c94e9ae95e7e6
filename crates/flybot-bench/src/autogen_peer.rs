//! The peer figure beside FlyBot's member turn (issue 38): AutoGen's
//! six-agent round robin (`bench/autogen/round_robin.py`) run in the same
//! run on the venv `bench/setup` makes, never printed from a constant.

use crate::figures::median_of;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How many runs of each turn count the script makes; the median is kept.
pub const RUNS: usize = 5;

/// AutoGen's milliseconds per member turn at 6, 60 and 300 turns (the
/// median of its runs), with its version.
pub struct AutoGen {
    pub version: String,
    pub per_turn_ms: Vec<(usize, f64)>,
}

/// Runs the AutoGen script; answers why not when it cannot.
pub fn measure() -> Result<AutoGen, String> {
    let root = repository_root().ok_or("bench/autogen/round_robin.py was not found")?;
    let python = root.join(".tools/autogen/bin/python");
    if !python.is_file() {
        return Err("AutoGen is not set up here; run bench/setup".into());
    }
    let out = Command::new(python)
        .arg(root.join("bench/autogen/round_robin.py"))
        .args(["--runs", &RUNS.to_string()])
        .output()
        .map_err(|e| format!("the AutoGen script could not start: {e}"))?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr);
        return Err(format!("the AutoGen script failed: {}", why.trim()));
    }
    parse(&String::from_utf8_lossy(&out.stdout))
}

fn parse(printed: &str) -> Result<AutoGen, String> {
    let answer: serde_json::Value = serde_json::from_str(printed.trim())
        .map_err(|e| format!("AutoGen printed no figure: {e}"))?;
    let version = answer["version"].as_str().unwrap_or("?").to_owned();
    let mut per_turn_ms = Vec::new();
    for (turns, runs) in answer["perTurnMs"].as_object().into_iter().flatten() {
        let runs: Vec<f64> = runs
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r.as_f64())
            .collect();
        let turns = turns
            .parse()
            .map_err(|_| "AutoGen printed a turn count that is not one")?;
        per_turn_ms.push((turns, median_of(runs)));
    }
    per_turn_ms.sort_by_key(|(turns, _)| *turns);
    Ok(AutoGen {
        version,
        per_turn_ms,
    })
}

/// The folder holding `bench/autogen`: the current folder or one above it.
fn repository_root() -> Option<PathBuf> {
    let here = std::env::current_dir().ok()?;
    here.ancestors()
        .map(Path::to_path_buf)
        .find(|dir| dir.join("bench/autogen/round_robin.py").is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_of_each_turn_count_is_taken_in_count_order_38() {
        let printed = r#"{"version": "0.7.5", "perTurnMs": {"60": [3.0, 1.0, 2.0], "6": [5.0]}}"#;
        let autogen = parse(printed).unwrap();
        assert_eq!(autogen.version, "0.7.5");
        assert_eq!(autogen.per_turn_ms, vec![(6, 5.0), (60, 2.0)]);
    }
}
