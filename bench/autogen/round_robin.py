"""AutoGen's six-agent round robin, in memory, on a replay model (issue 38).

The peer figure `flybot-bench turn-sync` prints beside FlyBot's member turn:
AutoGen 0.7.5's `RoundRobinGroupChat` of six `AssistantAgent`s, each on a
`ReplayChatCompletionClient` (no model, no network), run for 6, 60 and 300
member turns after one warm-up run. Prints one JSON object: for each turn
count, the milliseconds per member turn of each run (the bench takes the
median). Run it with the venv bench/setup makes:

    .tools/autogen/bin/python bench/autogen/round_robin.py [--runs 5]
"""
import argparse
import asyncio
import json
import time

import autogen_agentchat
from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.conditions import MaxMessageTermination
from autogen_agentchat.teams import RoundRobinGroupChat
from autogen_ext.models.replay import ReplayChatCompletionClient

AGENTS = 6
TURN_COUNTS = (6, 60, 300)


def team(turns):
    """Six agents, each with enough replies for its share of the turns."""
    each = turns // AGENTS + 1
    agents = [
        AssistantAgent(
            f"bot{i}",
            model_client=ReplayChatCompletionClient(["One line."] * each),
        )
        for i in range(AGENTS)
    ]
    # The task message counts as one message, then one per member turn.
    stop = MaxMessageTermination(turns + 1)
    return RoundRobinGroupChat(agents, termination_condition=stop)


async def per_turn_ms(turns):
    """One run of `turns` member turns: milliseconds per member turn."""
    chat = team(turns)
    began = time.perf_counter()
    result = await chat.run(task="@all one line each, please.")
    took = time.perf_counter() - began
    spoke = len(result.messages) - 1
    if spoke != turns:
        raise SystemExit(f"expected {turns} member turns, AutoGen ran {spoke}")
    return took * 1000 / turns


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    await per_turn_ms(60)  # warm-up: imports and first-call caches
    figures = {}
    for turns in TURN_COUNTS:
        figures[str(turns)] = [await per_turn_ms(turns) for _ in range(args.runs)]
    print(json.dumps({"version": autogen_agentchat.__version__, "perTurnMs": figures}))


if __name__ == "__main__":
    asyncio.run(main())
