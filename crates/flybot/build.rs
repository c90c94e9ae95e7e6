//! Stamps the build into the binary for the About block (#374):
//! `FLYBOT_BUILD_BRANCH`, `FLYBOT_BUILD_COMMIT` and `FLYBOT_BUILD_PINNED`,
//! read by `serve` with `option_env!`. The packager's environment wins;
//! otherwise git is asked; without git (a source tarball) the stamp is
//! empty and the build goes on — it never fails for want of git.

#[path = "src/build_stamp.rs"]
#[allow(dead_code)]
mod build_stamp;

use std::process::Command;

/// One line git answers in this crate's folder, or `None`.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(std::env::var_os("CARGO_MANIFEST_DIR")?)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn main() {
    for key in ["FLYBOT_BUILD_BRANCH", "FLYBOT_BUILD_COMMIT"] {
        println!("cargo:rerun-if-env-changed={key}");
    }
    // Rebuild the stamp when HEAD moves: the HEAD file and the ref it names.
    for path in [
        git(&["rev-parse", "--git-path", "HEAD"]),
        git(&["symbolic-ref", "-q", "HEAD"]).and_then(|r| git(&["rev-parse", "--git-path", &r])),
    ]
    .into_iter()
    .flatten()
    {
        let path = std::path::Path::new(&path);
        let path = if path.is_absolute() {
            path.to_path_buf()
        } else {
            std::path::Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default())
                .join(path)
        };
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    let env = |key: &str| std::env::var(key).ok();
    let stamp = build_stamp::stamp(
        env("FLYBOT_BUILD_BRANCH").as_deref(),
        env("FLYBOT_BUILD_COMMIT").as_deref(),
        git(&["rev-parse", "--abbrev-ref", "HEAD"]).as_deref(),
        git(&["rev-parse", "HEAD"]).as_deref(),
    );
    println!("cargo:rustc-env=FLYBOT_BUILD_BRANCH={}", stamp.branch);
    println!("cargo:rustc-env=FLYBOT_BUILD_COMMIT={}", stamp.commit);
    println!(
        "cargo:rustc-env=FLYBOT_BUILD_PINNED={}",
        u8::from(stamp.pinned)
    );
}
