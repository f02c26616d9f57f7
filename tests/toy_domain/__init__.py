"""A tiny domain used only by the engine's tests: one table of accounts, three tools.

It lets the engine be tested independently of the real domains' data.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import Field
from sqlalchemy import String, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from envs.actors.protocols import AgentView
from envs.domain import Domain, register_domain
from envs.records import AgentAction
from envs.domain.tools import ToolError, ToolSet, tool


class Base(DeclarativeBase):
    pass


class Account(Base):
    __tablename__ = "accounts"
    id: Mapped[str] = mapped_column(String, primary_key=True)
    owner: Mapped[str]
    balance: Mapped[int]
    note: Mapped[str] = mapped_column(default="")


def seed(session: Session, seed: int) -> None:
    import random

    rng = random.Random(seed)
    for i in range(200):
        session.add(Account(id=f"A{i:03d}", owner=f"owner{i}", balance=rng.randrange(0, 10_000)))


@tool
def get_account(db: Session, account_id: Annotated[str, Field(pattern=r"^A\d{3}$")]) -> dict:
    """Read one account.

    Args:
        account_id: The account id, like A001.
    """
    acc = db.get(Account, account_id)
    if acc is None:
        raise ToolError(f"no account {account_id}")
    return {"id": acc.id, "owner": acc.owner, "balance": acc.balance}


@tool(mutates=True)
def deposit(db: Session, account_id: str, amount: Annotated[int, Field(gt=0, le=1_000_000)], note: str = "") -> dict:
    """Deposit money into an account.

    Args:
        account_id: The account id.
        amount: Amount in cents, positive.
        note: Free text, stored with the account.
    """
    acc = db.get(Account, account_id)
    if acc is None:
        raise ToolError(f"no account {account_id}")
    acc.balance += amount
    acc.note = note
    return {"id": acc.id, "balance": acc.balance}


@tool(terminal=True)
def transfer_to_human(db: Session, summary: str) -> str:
    """Hand the conversation to a human."""
    return "Transferred."


@tool(side="user")
def check_balance_app(db: Session, account_id: str) -> str:
    """What the account holder's banking app shows."""
    acc = db.get(Account, account_id)
    return f"balance {acc.balance}" if acc else "no such account"


class DepositAgent:
    """Deposits what the user asks for, then says done."""

    name = "scripted:depositor"

    def __init__(self):
        self.done = False

    async def act(self, view: AgentView) -> AgentAction:
        import re

        if self.done:
            return AgentAction.say("Done: deposit made.")
        text = view.last_user_message()
        acc = re.search(r"\bA\d{3}\b", text)
        amount = re.search(r"\b(\d+)\b(?! *\w*\d)", re.sub(r"\bA\d{3}\b", "", text))
        if not acc or not amount:
            return AgentAction.say("Which account, and how much?")
        self.done = True
        return AgentAction.call("deposit", account_id=acc.group(0), amount=int(amount.group(1)))


class IdleAgent:
    name = "scripted:idle"

    async def act(self, view: AgentView) -> AgentAction:
        return AgentAction.say("Hello, how can I help?")


class LowBalanceTopUp:
    """A toy task family: top up each account whose balance is below 1,000 to exactly 1,000."""

    name = "top_up"
    description = "one deposit that brings a low account to 1,000 (the amount worked out from its balance)"

    def generate(self, domain: Domain, count: int, seed: int) -> list:
        import random

        from envs.errors import SpecError
        from envs.spec.schema import Task
        from envs.state.database import EpisodeState

        state = EpisodeState(domain.base, domain.template())
        low = sorted((a.id, a.balance) for a in state.session.scalars(select(Account)) if a.balance < 1000)
        state.close()
        if count > len(low):
            raise SpecError(f"family {self.name}: the data holds {len(low)} instances, asked for {count}")
        picked = sorted(random.Random(seed).sample(low, count))
        return [
            Task.model_validate({
                "id": f"top_up_{acc}", "domain": "toy", "tags": ["hard"],
                "description": f"Top {acc} up to 1000.",
                "scenario": {"goal": f"{acc} holds 1000.", "request": f"Please deposit {1000 - bal} into {acc}.",
                             "max_turns": 4, "done_when": ["Done"]},
                "expected_actions": [{"name": "deposit", "arguments": {"account_id": acc, "amount": 1000 - bal}}],
                "ignore_columns": ["accounts.note"],
            })
            for acc, bal in picked
        ]


def make() -> Domain:
    return Domain(
        name="toy",
        gym_id="Toy-v0",
        base=Base,
        seed_fn=seed,
        agent_tools=ToolSet.of("agent", [get_account, deposit, transfer_to_human]),
        user_tools=ToolSet.of("user", [check_balance_app]),
        package_dir=Path(__file__).parent,
        scripted_agents={"depositor": DepositAgent, "idle": IdleAgent},
        default_agent="depositor",
        seed=7,
        tasks_path=Path(__file__).parent / "tasks" / "toy",
        families=lambda: {"top_up": LowBalanceTopUp()},
    )


register_domain("toy", make, gym_id="Toy-v0")
