//! `flybot-bench goals` (issue 38): every speed goal of the issue printed
//! in one run, each measured here, a peer's too: the host time per member
//! turn beside AutoGen's, 32 changes at once against one and the state
//! view at 10,000 tasks, the time to first token the host adds over the
//! llama.cpp server, and the page's read of a 10,000-line room.

pub fn run() -> anyhow::Result<()> {
    println!(
        "== 1. host time per member turn, durable, beside AutoGen in this run (goal: below AutoGen)"
    );
    crate::turn_sync::run()?;
    println!(
        "== 2 and 3. 32 changes at once against one (goal <= 2x); the state view at 10,000 tasks (goal < 2 ms)"
    );
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(crate::store::one_size(10_000))?;
    println!(
        "== 4. time to first token the host adds over the llama.cpp server (goal median < 3 ms)"
    );
    runtime.block_on(crate::ttft::run())?;
    println!("== 5. the page's messages read of a 10,000-line room, from the end (goal < 2 ms)");
    let read = runtime.block_on(crate::room_read::measure())?;
    crate::room_read::print(&read);
    Ok(())
}
