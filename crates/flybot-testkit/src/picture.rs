//! Pictures with known words (issue 32): black text drawn on white with
//! DejaVu Sans (Debian's `fonts-dejavu-core`), for the OCR tests and the
//! bench, so what Tesseract reads can be compared with what was drawn.

use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use image::{ImageFormat, Rgb, RgbImage};
use std::io::Cursor;

/// Where Debian installs the font.
pub const FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// A `width` x `height` PNG with `lines` drawn at `size` px from the top
/// left; `None` when the font is not installed.
pub fn words_png(lines: &[&str], width: u32, height: u32, size: f32) -> Option<Vec<u8>> {
    let data = std::fs::read(FONT).ok()?;
    let font = FontRef::try_from_slice(&data).ok()?;
    let scaled = font.as_scaled(PxScale::from(size));
    let mut image = RgbImage::from_pixel(width, height, Rgb([255, 255, 255]));
    let mut baseline = size * 1.5;
    for line in lines {
        let mut x = size;
        for c in line.chars() {
            let glyph = scaled.scaled_glyph(c);
            let advance = scaled.h_advance(glyph.id);
            let glyph = ab_glyph::Glyph {
                position: point(x, baseline),
                ..glyph
            };
            if let Some(outline) = font.outline_glyph(glyph) {
                let bounds = outline.px_bounds();
                outline.draw(|gx, gy, coverage| {
                    let (px, py) = (
                        bounds.min.x as i64 + gx as i64,
                        bounds.min.y as i64 + gy as i64,
                    );
                    if px >= 0 && py >= 0 && (px as u32) < width && (py as u32) < height {
                        let ink = (255.0 * (1.0 - coverage)) as u8;
                        let pixel = image.get_pixel_mut(px as u32, py as u32);
                        let value = pixel[0].min(ink);
                        *pixel = Rgb([value, value, value]);
                    }
                });
            }
            x += advance;
        }
        baseline += size * 1.6;
    }
    let mut out = Cursor::new(Vec::new());
    image.write_to(&mut out, ImageFormat::Png).ok()?;
    Some(out.into_inner())
}
