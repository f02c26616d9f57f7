"""A person plays either side, driven through a real pseudo-terminal (the ``pty`` module).

The run is a subprocess whose stdin, stdout and stderr are the slave end of a pty, so rich
and ``input()`` behave as they do for a person at a terminal (a progress bar would draw).
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from envs.actors.human_user import is_goodbye

ROOT = Path(__file__).resolve().parents[1]
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\r")


class Terminal:
    """A subprocess on a pty: ``expect`` text in what it printed, ``send`` a typed line."""

    def __init__(self, argv: list[str], cols: int = 120, rows: int = 40):
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "tests"), str(ROOT)])
        env["SITGYM_DOMAINS"] = "toy_domain"
        env["TERM"] = "xterm-256color"
        env.pop("COLUMNS", None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "envs.run", *argv], stdin=slave, stdout=slave, stderr=slave,
            cwd=ROOT, env=env, close_fds=True, start_new_session=True,
        )
        os.close(slave)
        self.master, self.raw, self.pos = master, "", 0

    @property
    def text(self) -> str:
        return ANSI.sub("", self.raw)

    def _read(self, timeout: float) -> bool:
        r, _, _ = select.select([self.master], [], [], timeout)
        if not r:
            return False
        try:
            data = os.read(self.master, 65536)
        except OSError:  # the child closed the pty
            return False
        self.raw += data.decode("utf-8", "replace")
        return bool(data)

    # generous limits: a cold start on a busy machine; only a broken prompt waits them out
    def expect(self, fragment: str, timeout: float = 180) -> str:
        end = time.monotonic() + timeout
        while fragment not in self.text[self.pos:]:
            if time.monotonic() > end or (not self._read(0.2) and self.proc.poll() is not None):
                raise AssertionError(f"{fragment!r} not printed; got:\n{self.text[self.pos:][-3000:]}")
        self.pos = self.text.index(fragment, self.pos) + len(fragment)
        return self.text

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def finish(self, timeout: float = 180) -> int:
        end = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < end:
            self._read(0.2)
        while self._read(0.1):
            pass
        if self.proc.poll() is None:
            self.proc.kill()
            raise AssertionError("the run did not end:\n" + self.text[-3000:])
        os.close(self.master)
        return self.proc.returncode


def _records(out: Path) -> list[dict]:
    return [json.loads(l) for l in (out / "episodes.jsonl").read_text().splitlines() if l.strip()]


def test_a_person_plays_the_agent(tmp_path):
    out = tmp_path / "agent"
    t = Terminal(["--domain", "toy", "--agent", "human", "--out", str(out)])
    t.expect("you are the agent")
    t.expect("deposit(account_id: string, amount: integer, note?: string)")  # the tools, with their arguments
    t.expect("/help lists the commands")
    t.expect("user: Please deposit 500 into A001.")
    t.expect("agent> ")
    t.send("/help")
    t.expect("/tool NAME {json}")
    t.expect("agent> ")
    t.send('/tool deposit {"account_id": "A001", "amount": ')  # a typo: explained, asked again, not sent
    t.expect("not JSON")
    t.expect("agent> ")
    t.send("/tool no_such_tool {}")
    t.expect("no tool 'no_such_tool'")
    t.send('/tool deposit {"account_id": "A001", "amount": 500}')
    t.expect("tool deposit (ok)")
    t.expect("agent> ")
    t.send("Done: 500 deposited into A001.")
    assert t.finish() == 0, t.text[-3000:]
    assert "ETA" not in t.text  # no progress bar drawn while a person plays
    (rec,) = _records(out)
    assert rec["status"] == "ok" and rec["reward"] == 1.0 and rec["termination"] == "user_stop"
    assert [e["kind"] for e in rec["transcript"]] == ["user", "tool", "agent", "user"]
    assert rec["agent_errors"] == 0 and rec["actors"]["agent"] == "human"
    # the user's last words, said after the person's last step, are shown, and the end is said
    assert f"user: {rec['transcript'][-1]['content']}" in t.text
    assert "the conversation has ended (user_stop)" in t.text


def test_a_person_playing_the_agent_can_quit(tmp_path):
    out = tmp_path / "quit"
    t = Terminal(["--domain", "toy", "--agent", "human", "--out", str(out)])
    t.expect("agent> ")
    t.send("/quit")
    assert t.finish() == 0
    (rec,) = _records(out)
    assert rec["status"] == "error" and rec["error_role"] == "agent" and rec["error_kind"] == "person_quit"


def test_a_person_plays_the_user_and_says_goodbye(tmp_path):
    out = tmp_path / "user"
    t = Terminal(["--domain", "toy", "--user", "human", "--out", str(out)])  # no --quiet: the bar must stay away
    t.expect("Your goal: Put 500 into account A001.")
    t.expect("/stop or a plain goodbye")
    t.expect("you: ")
    t.send("/help")
    t.expect("/tool NAME {json}")
    t.expect("you: ")
    t.send('/tool check_balance_app {"account_id": "A001"}')
    t.expect("balance 2471")
    t.expect("you: ")
    t.send("Please deposit 500 into A001.")
    t.expect("agent: ")
    t.expect("you: ")
    t.send("that's all, thanks")
    t.expect("(conversation ended)")
    assert t.finish() == 0, t.text[-3000:]
    assert "ETA" not in t.text
    (rec,) = _records(out)
    assert rec["reward"] == 1.0 and rec["termination"] == "user_stop"
    last = rec["transcript"][-1]
    assert last["kind"] == "user" and last["stop"] is True and last["content"] == "that's all, thanks"


@pytest.mark.parametrize(
    "text, ends",
    [
        ("that's all, thanks", True),
        ("Bye!", True),
        ("Nothing else, thank you.", True),
        ("thank you so much, have a nice day", True),
        ("Thanks!", False),  # thanks alone is said mid-conversation
        ("That's all I know about the order", False),
        ("that's all I have, but where is my refund?", False),
        ("I am done waiting, cancel it", False),
    ],
)
def test_goodbye_detection(text, ends):
    assert is_goodbye(text) is ends
