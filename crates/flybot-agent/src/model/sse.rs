//! A small server-sent-events parser: bytes in, whole events' `data` out. It
//! keeps the unfinished tail between chunks, so a network read may split a
//! line anywhere (even inside a UTF-8 character). Only what chat-completions
//! streams use is read: `data:` lines joined by newlines, an empty line ending
//! the event; `event:`, `id:`, `retry:` and `:` comments are skipped.
//!
//! Lines end in `\n` or `\r\n`. A lone `\r` line end (allowed by the SSE
//! standard, sent by none of the providers we talk to) is not split on.

/// The incremental parser.
#[derive(Debug, Default)]
pub struct SseParser {
    /// The unfinished last line of what was fed so far.
    buffer: Vec<u8>,
    /// The `data` of the event being read.
    data: Vec<u8>,
    has_data: bool,
}

/// The largest event this parser holds before refusing the stream: a
/// provider that never ends a line must not grow memory without bound.
pub const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// An event whose data is over `MAX_EVENT_BYTES`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventTooLarge;

impl SseParser {
    pub fn new() -> Self {
        SseParser::default()
    }

    /// Feeds one chunk; pushes the `data` of each event it completes to `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<String>) -> Result<(), EventTooLarge> {
        if self.buffer.is_empty() {
            // The common case: parse the chunk in place, keep only its tail.
            let rest = self.lines(chunk, out);
            self.buffer.extend_from_slice(&chunk[rest..]);
        } else {
            // A line was split across reads: join it, then parse once, so a
            // chunk of many lines is not shifted once per line.
            let mut buffer = std::mem::take(&mut self.buffer);
            buffer.extend_from_slice(chunk);
            let rest = self.lines(&buffer, out);
            buffer.drain(..rest);
            self.buffer = buffer;
        }
        if self.buffer.len() + self.data.len() > MAX_EVENT_BYTES {
            return Err(EventTooLarge);
        }
        Ok(())
    }

    /// Parses the complete lines of `bytes`; answers where the tail begins.
    fn lines(&mut self, bytes: &[u8], out: &mut Vec<String>) -> usize {
        let mut at = 0;
        while let Some(offset) = bytes[at..].iter().position(|b| *b == b'\n') {
            let mut line = &bytes[at..at + offset];
            if let [head @ .., b'\r'] = line {
                line = head;
            }
            self.line(line, out);
            at += offset + 1;
        }
        at
    }

    fn line(&mut self, line: &[u8], out: &mut Vec<String>) {
        if line.is_empty() {
            if self.has_data {
                out.push(String::from_utf8_lossy(&self.data).into_owned());
                self.data.clear();
                self.has_data = false;
            }
            return;
        }
        let Some(value) = line.strip_prefix(b"data") else {
            // `event:`, `id:`, `retry:`, comments: nothing a chat stream needs.
            return;
        };
        let value = match value {
            [] => value,
            [b':', b' ', rest @ ..] => rest,
            [b':', rest @ ..] => rest,
            // `dataX: ...` is another field's name, not `data`.
            _ => return,
        };
        if self.has_data {
            self.data.push(b'\n');
        }
        self.data.extend_from_slice(value);
        self.has_data = true;
    }

    /// The data of an event the stream ended inside (no closing empty line).
    pub fn finish(&mut self) -> Option<String> {
        let tail = std::mem::take(&mut self.buffer);
        let mut out = Vec::new();
        self.line(trim_cr(&tail), &mut out);
        self.line(b"", &mut out);
        out.pop()
    }
}

fn trim_cr(line: &[u8]) -> &[u8] {
    match line {
        [head @ .., b'\r'] => head,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `input` split at every `step` bytes; answers the events and the
    /// data of an unfinished last event.
    fn check(input: &str, step: usize, expect: &[&str], tail: Option<&str>) {
        let mut parser = SseParser::new();
        let mut out = Vec::new();
        for chunk in input.as_bytes().chunks(step) {
            parser.feed(chunk, &mut out).unwrap();
        }
        assert_eq!(out, expect, "split every {step} bytes");
        assert_eq!(parser.finish().as_deref(), tail);
    }

    #[test]
    fn events_survive_any_split() {
        let input =
            "data: {\"a\":1}\n\n: comment\nevent: x\ndata:b\ndata: c\r\n\r\ndata: [DONE]\n\n";
        for step in 1..input.len() {
            check(input, step, &["{\"a\":1}", "b\nc", "[DONE]"], None);
        }
    }

    #[test]
    fn a_split_utf8_character_is_whole_in_the_event() {
        check("data: héllo 你好\n\n", 1, &["héllo 你好"], None);
    }

    #[test]
    fn an_unfinished_event_is_answered_by_finish() {
        check("data: one\n\ndata: two", 3, &["one"], Some("two"));
        check("data: one\n\n", 4, &["one"], None);
    }

    #[test]
    fn other_fields_are_not_data() {
        check("datum: x\nid: 1\nretry: 5\n\ndata\n\n", 2, &[""], None);
    }
}
