"""A person plays the user in the terminal."""

from __future__ import annotations

from envs.actors.protocols import STOP_TOKEN, UserReply, UserTurn


class HumanUser:
    """A person plays the user in the terminal (type /stop to end, /tool NAME {json} for a user tool)."""

    name = "human"

    async def reply(self, turn: UserTurn) -> UserReply:
        import json

        from rich.console import Console

        console = Console()
        if turn.agent_message is None:
            console.print(f"[bold]Your goal:[/bold] {turn.task.scenario.goal}")
            for f in turn.task.scenario.known_facts:
                console.print(f"  known: {f}")
            for h in turn.task.scenario.hidden_facts:
                console.print(f"  reveal only if asked: {h.fact}")
        else:
            console.print(f"[cyan]agent:[/cyan] {turn.agent_message}")
        if turn.situation:
            console.print(f"[dim]situation to play: {turn.situation.id}: {turn.situation.how_to_play}[/dim]")
        while True:
            try:
                text = console.input("[green]you:[/green] ").strip()
            except EOFError:  # input closed (Ctrl-D): the person is done
                return UserReply(STOP_TOKEN, stop=True)
            if text.startswith("/tool "):
                name, _, args = text[6:].partition(" ")
                try:
                    payload = json.loads(args or "{}")
                except json.JSONDecodeError as e:
                    console.print(f"bad JSON: {e}")
                    continue
                console.print(turn.call_tool(name, payload))
                continue
            if text == "/stop":
                return UserReply(STOP_TOKEN, stop=True)
            if text:
                return UserReply(text)
