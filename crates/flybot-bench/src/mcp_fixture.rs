//! `flybot-bench mcp-fixture`: a 50-tool MCP server over stdio, the
//! connector benchmark's fixture (the reference servers have fewer tools).
//! It speaks the protocol's JSON-RPC lines by hand: `initialize`,
//! `tools/list`, `tools/call` (answering `ok <tool>` at once) and `ping`;
//! a notification gets no answer. Half its tools are GitHub-shaped reads
//! (`list_`, `get_`, `search_`), half writes, so a room turn's share shows.

use serde_json::{Value, json};
use std::io::{BufRead, Write};

/// How many tools the fixture serves.
pub const TOOLS: usize = 50;

/// The fixture's tool names: reads first, then writes.
pub fn tool_names() -> Vec<String> {
    let reads = ["list", "get", "search"];
    let writes = ["create", "update", "delete", "merge", "push"];
    (0..TOOLS)
        .map(|i| {
            if i < TOOLS / 2 {
                format!("{}_thing_{i}", reads[i % reads.len()])
            } else {
                format!("{}_thing_{i}", writes[i % writes.len()])
            }
        })
        .collect()
}

fn tool(name: &str) -> Value {
    json!({
        "name": name,
        "description": format!("The fixture's {name}: does one thing to a repository's item and answers what it did."),
        "inputSchema": {
            "type": "object",
            "properties": {
                "owner": {"type": "string", "description": "The repository's owner."},
                "repo": {"type": "string", "description": "The repository's name."},
                "number": {"type": "integer", "description": "The item's number."}
            },
            "required": ["owner", "repo"]
        }
    })
}

fn answer(request: &Value) -> Option<Value> {
    let id = request.get("id")?.clone();
    let result = match request["method"].as_str().unwrap_or("") {
        "initialize" => json!({
            "protocolVersion": request["params"]["protocolVersion"].clone(),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "flybot-bench-fixture", "version": "1"}
        }),
        "tools/list" => json!({"tools": tool_names().iter().map(|n| tool(n)).collect::<Vec<_>>()}),
        "tools/call" => json!({
            "content": [{"type": "text", "text": format!("ok {}", request["params"]["name"].as_str().unwrap_or(""))}]
        }),
        "ping" => json!({}),
        other => {
            return Some(json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": format!("no method {other}")}}));
        }
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

/// Serves stdin to stdout until stdin closes.
pub fn serve() -> anyhow::Result<()> {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line?;
        let Ok(request) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if let Some(reply) = answer(&request) {
            writeln!(stdout, "{reply}")?;
            stdout.flush()?;
        }
    }
    Ok(())
}
