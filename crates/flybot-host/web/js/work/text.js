// What a stored line may show a person (#130, #1347), as core fences::preview::visible_text reads it: untrusted-message markers removed.

const MARKER = /<\s*\/?\s*untrusted-(?:message|file)(?=[\s/>]|$)[^>]*>?/gi;
const FENCE = /^<untrusted-message from="([^"]*)">([\s\S]*)<\/untrusted-message>$/;

function unwrap(text) {
  const match = text.trim().match(FENCE);
  return match ? match[2].replace(/^\n+|\n+$/g, '') : text;
}

function residue(text) {
  const match = text.match(/^\s*from="[^"]*"\s*>/);
  return match ? text.slice(match[0].length) : text;
}

/** The line's words with its line breaks kept. */
export function readable(text) {
  let current = unwrap(String(text ?? ''));
  for (let i = 0; i < 64; i += 1) {
    const next = residue(current.replace(MARKER, ''));
    if (next === current) break;
    current = next;
  }
  return current;
}

/** The line folded to one line (#130), cut at `max` characters. */
export function preview(text, max = 160) {
  const folded = readable(text).split(/\s+/).filter(Boolean).join(' ');
  return folded.length > max ? `${folded.slice(0, max - 1)}…` : folded;
}
