//! Issue 32's figures: upload and store of a 5 MB image through the
//! channel (median and range), a Bot's `attach_file` of one from its
//! workspace (path checks, read, sniff, store), the host's thumbnail of it, Tesseract's
//! reading of a 1280x800 screenshot in the sandbox, and the size of the
//! image part sent for a 12-megapixel photo after downscaling.

use crate::figures::{ms, percentile};
use base64::Engine;
use flybot_host::attachments::picture::{data_url, thumbnail};
use image::{ImageFormat, Rgb, RgbImage};
use serde_json::json;
use std::io::Cursor;
use std::time::{Duration, Instant};

const RUNS: usize = 7;

/// A noisy picture of about 5 MB as PNG (noise does not compress), different
/// for each `seed` so no upload is a stored object already.
fn noisy_png(seed: u32) -> anyhow::Result<Vec<u8>> {
    let mut state = seed.wrapping_mul(2_654_435_761).max(1);
    let image = RgbImage::from_fn(1300, 1300, |_, _| {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let [a, b, c, _] = state.to_le_bytes();
        Rgb([a, b, c])
    });
    encode(&image, ImageFormat::Png)
}

/// A 4000x3000 "photo": smooth colour with a little grain.
fn photo() -> anyhow::Result<Vec<u8>> {
    let image = RgbImage::from_fn(4000, 3000, |x, y| {
        let grain = ((x * 7 + y * 13) % 17) as u8;
        Rgb([(x / 16) as u8 ^ grain, (y / 12) as u8, ((x + y) / 28) as u8])
    });
    encode(&image, ImageFormat::Jpeg)
}

fn encode(image: &RgbImage, format: ImageFormat) -> anyhow::Result<Vec<u8>> {
    let mut out = Cursor::new(Vec::new());
    image.write_to(&mut out, format)?;
    Ok(out.into_inner())
}

fn range(samples: &mut [Duration]) -> String {
    let median = percentile(samples, 50);
    let (low, high) = (percentile(samples, 0), percentile(samples, 100));
    format!(
        "median {:.1} ms (range {:.1}-{:.1} ms)",
        ms(median),
        ms(low),
        ms(high)
    )
}

pub fn run() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async {
        let kit = flybot_testkit::Kit::new().await;
        let owner = kit.owner("Bench").await;
        let caller = kit.as_member(&owner);
        let mut uploads = Vec::new();
        let mut size = 0;
        let mut last = Vec::new();
        for seed in 1..=RUNS as u32 {
            let bytes = noisy_png(seed)?;
            size = bytes.len();
            let body = json!({"name": "noise.png",
                "data": base64::engine::general_purpose::STANDARD.encode(&bytes)});
            let started = Instant::now();
            caller.ok("attachment-upload", body).await;
            uploads.push(started.elapsed());
            last = bytes;
        }
        println!("attachments (issue 32), {RUNS} runs each:");
        println!(
            "  upload + store of a {:.1} MB PNG (channel, base64 JSON, fsync): {}",
            size as f64 / 1e6,
            range(&mut uploads)
        );
        let mut attached = bot_attach(&kit, &caller).await?;
        println!(
            "  a Bot's attach_file of a {:.1} MB PNG from its workspace (checks, read, sniff, store): {}",
            size as f64 / 1e6,
            range(&mut attached)
        );
        let mut thumbs = Vec::new();
        for _ in 0..RUNS {
            let started = Instant::now();
            thumbnail(&last).ok_or_else(|| anyhow::anyhow!("no thumbnail"))?;
            thumbs.push(started.elapsed());
        }
        println!("  thumbnail of it (256 px PNG): {}", range(&mut thumbs));
        let lines = [
            "FlyBot build 2026.12.05 passed",
            "Tests: 2,114 passed, 0 failed",
            "Deploy to staging at 14:30 UTC",
        ];
        let screenshot = flybot_testkit::picture::words_png(&lines, 1280, 800, 28.0)
            .ok_or_else(|| anyhow::anyhow!("the DejaVu font is not installed"))?;
        let mut readings = Vec::new();
        let mut read = String::new();
        for _ in 0..3 {
            let started = Instant::now();
            read = flybot_host::attachments::reading::tesseract(&screenshot)
                .await
                .ok_or_else(|| anyhow::anyhow!("tesseract did not read (is tesseract-ocr installed?)"))?;
            readings.push(started.elapsed());
        }
        let words = read.split_whitespace().collect::<Vec<_>>().join(" ");
        println!(
            "  OCR of a 1280x800 screenshot (tesseract, sandboxed, 3 runs): {}; read: {words:?}",
            range(&mut readings)
        );
        let photo = photo()?;
        let part = data_url(&photo, 1568).ok_or_else(|| anyhow::anyhow!("no image part"))?;
        println!(
            "  12-megapixel photo (4000x3000 JPEG, {:.2} MB): image part after downscaling to 1568 px = {:.0} KB of request ({} bytes)",
            photo.len() as f64 / 1e6,
            part.len() as f64 / 1e3,
            part.len()
        );
        Ok(())
    })
}

/// The times of `RUNS` `attach_file` calls of a fresh 5 MB PNG each, as the
/// host answers the tool (the file is written before the clock starts).
async fn bot_attach(
    kit: &flybot_testkit::Kit,
    caller: &flybot_testkit::Caller<'_>,
) -> anyhow::Result<Vec<Duration>> {
    let bot = caller.bot("Plotter").await;
    let folder = flybot_store::workspaces::bot_workspace(kit.home(), &bot.id)?;
    let config = &kit.host.config().attachments;
    let mut times = Vec::new();
    for seed in 1..=RUNS as u32 {
        let name = format!("chart-{seed}.png");
        std::fs::write(folder.join(&name), noisy_png(seed + 100)?)?;
        let started = Instant::now();
        flybot_host::attachments::bot_attach::attach_for_bot(
            kit.host.team(),
            kit.home(),
            config,
            &bot.session,
            &bot.id,
            &folder,
            &name,
        )
        .await
        .map_err(|e| anyhow::anyhow!(e))?;
        times.push(started.elapsed());
    }
    Ok(times)
}
