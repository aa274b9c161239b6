"""What became of a player's lines: the commands fill a `Report` for each seat that wrote
(or whose held lines ran), and the policy (pbem.policy.conversation) reads it to decide
whether the writer hears back now, and mail out writes it into the answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Report:
    """The fate of each command line of a player's mail, in order, and notes for them."""
    applied: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    held: list[str] = field(default_factory=list)  # waiting for the others to answer
    dropped: list[str] = field(default_factory=list)  # held, then overtaken by events
    notes: list[str] = field(default_factory=list)
    asked: bool = False  # a command that wants its answer (board, history, games, …) ran
    # Held until the registered address confirms them (pbem.commands.confirm): the
    # mail's outcome in words; the only answer is the request to confirm.
    confirming: str = ""

    def needs_answer(self) -> bool:
        """Whether the writer must hear back now: something failed, waits or was dropped,
        a command has something to say. A move that simply went in is confirmed in the
        writer's next mail ("#12 You: F6"), not by a mail of its own."""
        return bool(self.failed or self.skipped or self.held or self.dropped or self.notes
                    or self.asked or not self.applied)

    def __bool__(self) -> bool:
        return bool(self.applied or self.failed or self.skipped or self.held or self.dropped)

    def extend(self, other: "Report") -> None:
        for name in ("applied", "failed", "skipped", "held", "dropped", "notes"):
            getattr(self, name).extend(getattr(other, name))
        self.asked = self.asked or other.asked
