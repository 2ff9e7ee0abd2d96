"""Object IDs (audit/ids.py, docs/conventions.md): drawn from `secrets`, in the same format
everywhere, never repeated across threads or a fork."""

import os
import re
import threading

from audit.ids import new_id

ID = re.compile(r"^inv_[A-Za-z0-9]{24}$")


def test_ids_have_the_prefix_and_24_base62_characters_and_never_repeat():
    ids = [new_id("inv") for _ in range(5_000)]
    assert all(ID.match(value) for value in ids)
    assert len(set(ids)) == len(ids)


def test_threads_draw_different_ids():
    drawn: dict[int, list[str]] = {}

    def draw(n: int) -> None:
        drawn[n] = [new_id("inv") for _ in range(1_000)]

    threads = [threading.Thread(target=draw, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    everything = [value for values in drawn.values() for value in values]
    assert len(everything) == 4_000
    assert len(set(everything)) == 4_000


def test_a_forked_child_never_makes_the_ids_its_parent_makes_next():
    new_id("inv")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next 300 IDs, then exit at once
        try:
            os.write(write, ",".join(new_id("inv") for _ in range(300)).encode())
        finally:
            os._exit(0)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 65536):
        chunks.append(chunk)
    os.close(read)
    os.waitpid(pid, 0)
    child = b"".join(chunks).decode().split(",")
    parent = [new_id("inv") for _ in range(300)]
    assert len(child) == 300
    assert all(ID.match(value) for value in child)
    assert not set(child) & set(parent)
