//! The store bench runs end to end (its figures are printed by `flybot bench
//! store`; no test here judges a duration).

use flybot_store::bench::store_bench;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_bench_reports_every_figure() {
    let dir = tempfile::tempdir().unwrap();
    let report = store_bench(dir.path(), 20).await.unwrap();
    assert_eq!(report.tasks, 20);
    assert!(report.change_median_us > 0 && report.change_p99_us >= report.change_median_us);
    assert!(report.concurrent32_p99_us >= report.concurrent32_median_us);
    assert!(report.fsync_floor_median_us > 0);
    assert!(!dir.path().join("store-bench-20-tasks").exists());
}

/// `cargo test -p flybot-store --release --test store -- --ignored --nocapture`
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "measures the disk; run by hand"]
#[allow(clippy::print_stderr)]
async fn store_bench_figures() {
    for tasks in [1_000, 10_000] {
        let dir = tempfile::tempdir().unwrap();
        let report = store_bench(dir.path(), tasks).await.unwrap();
        eprintln!("{}", serde_json::to_string(&report).unwrap());
    }
}
