"""A scripted resolver for the WEBHOOKS_RESOLVER seam (`webhooks.urlguard.resolve`): each host
answers from a list of answers, one per lookup, the last repeating; every lookup is recorded.
The production code path is unchanged: only the function the setting names is this one."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field


@dataclass
class Script:
    answers: dict[str, list[list[str]]] = field(default_factory=dict)
    lookups: list[str] = field(default_factory=list)

    def answer(self, host: str, *answers: list[str]) -> None:
        """`host` answers `answers[0]` to the first lookup, `answers[1]` to the second, …"""
        self.answers[host] = list(answers)


SCRIPT = Script()


def scripted(host: str, port: int) -> list[str]:
    SCRIPT.lookups.append(host)
    queue = SCRIPT.answers.get(host)
    if not queue:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    return queue.pop(0) if len(queue) > 1 else queue[0]
