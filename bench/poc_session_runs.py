"""The concurrent runs of bench/poc_session.py: N clients on the /livez floor, N readers walking
the evaluation's tabs (each reader its own member session, the tabs in a rotating order), and
the same readers while one writer saves at a given rate."""

from __future__ import annotations

import statistics
import threading
import time
from dataclasses import dataclass, field

from bench.poc_session_data import Session, writer_versions
from bench.poc_session_writer import HttpTransport, Save, Writer, write_at
from bench.scale_measure import Load, drive
from bench.scale_server import Server, fetch, percentile


@dataclass
class Clients:
    """A run of N clients: every answer's time, the failures, and the times per path."""

    load: Load
    by_path: dict[str, list[float]] = field(default_factory=dict)

    def slowest(self, count: int = 3) -> list[tuple[str, float]]:
        """The paths with the highest p95 in this run, slowest first."""
        p95s = {path: percentile(times, 0.95) for path, times in self.by_path.items() if times}
        return sorted(p95s.items(), key=lambda item: -item[1])[:count]


def clients(server: Server, label: str, n: int, seconds: float, request_for) -> Clients:
    """`n` threads, client k sending request_for(k, i) = (path, session) for its i-th request,
    each as soon as the one before is answered, until `seconds` are up."""
    return Clients(*drive(server, label, n, seconds, request_for))


def floor(server: Server, n: int, seconds: float) -> Clients:
    return clients(
        server, f"floor: {n} clients on /livez", n, seconds, lambda k, i: ("/livez", None)
    )


def reader_requests(tabs: list[tuple[str, str]], data: Session):
    """Reader k is the k-th member session and starts its walk at the k-th tab."""
    paths = [path for _name, path in tabs]

    def request_for(k: int, i: int) -> tuple[str, str]:
        return paths[(k + i) % len(paths)], data.readers[k][1]

    return request_for


def warm_up(server: Server, tabs, data: Session, passes: int = 2) -> float:
    """Every reader walks every tab `passes` times, all at once, outside any clock (a tab is
    kept per session and per worker): returns the seconds it took."""
    start = time.perf_counter()
    request_for = reader_requests(tabs, data)

    def walk(k: int) -> None:
        for i in range(passes * len(tabs)):
            fetch(server.port, *request_for(k, i))

    threads = [threading.Thread(target=walk, args=(k,)) for k in range(len(data.readers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - start


@dataclass
class SessionRun:
    label: str
    rate: float | None
    readers: Clients
    saves: list[Save] = field(default_factory=list)
    stored: tuple[int, int] = (0, 0)  # how far the writer's score and answer versions moved

    def saves_of(self, outcome: str) -> list[Save]:
        return [s for s in self.saves if s.outcome == outcome]

    @property
    def save_times(self) -> list[float]:
        return [s.seconds for s in self.saves]

    @property
    def save_p50(self) -> float | None:
        return statistics.median(self.save_times) if self.saves else None

    @property
    def save_p95(self) -> float | None:
        return percentile(self.save_times, 0.95) if self.saves else None

    @property
    def errors(self) -> int:
        return len(self.readers.load.failures) + len(self.saves_of("error"))

    def stored_matches(self) -> bool:
        """Each saved score moved the writer's score versions by one, each saved answer the
        answers' versions by one: what the pages said was saved is in the database."""
        saved = self.saves_of("saved")
        scores = sum(1 for s in saved if s.kind == "score")
        return self.stored == (scores, len(saved) - scores)


def session(server: Server, tabs, data: Session, seconds: float, rate: float | None) -> SessionRun:
    """The readers for `seconds`; with `rate`, one writer saving that many times a second
    during the same time (its pages opened first, as a browser does, outside the clock)."""
    n = len(data.readers)
    label = f"{n} readers" + (f" + writer at {rate:g}/s" if rate else ", no writer")
    writer = None
    if rate:
        transport = HttpTransport(server.port, data.writer_session)
        writer = Writer(transport, data.evaluation_pk, data.group, data.cells, data.answers)
        writer.open()
    before = writer_versions(data.evaluation_pk)
    saves: list[Save] = []
    thread = None
    if writer is not None:
        deadline = time.perf_counter() + seconds

        def write() -> None:
            saves.extend(write_at(writer, rate, deadline))

        thread = threading.Thread(target=write)
        thread.start()
    readers = clients(server, label, n, seconds, reader_requests(tabs, data))
    if thread is not None:
        thread.join()
    after = writer_versions(data.evaluation_pk)
    stored = (after[0] - before[0], after[1] - before[1])
    return SessionRun(label, rate, readers, saves, stored)
