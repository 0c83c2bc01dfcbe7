"""The recorder on its own: the log, live in-flight peaks, gap analysis, waiting on requests."""

from __future__ import annotations

import threading

from crawler.demo.recorder import Recorder, RequestRecord, min_start_gap, peak_overlap


def answer(recorder: Recorder, host: int, path: str, status: int = 200) -> RequestRecord:
    start = recorder.begin(host)
    record = RequestRecord(host, f"127.0.0.1:{8000 + host}", "GET", path, status, start, start + 0.01)
    recorder.end(record)
    return record


def test_peak_overlap_counts_open_intervals_and_frees_a_slot_at_a_shared_instant() -> None:
    assert peak_overlap([]) == 0
    assert peak_overlap([(0, 1), (0.5, 2), (0.7, 0.8)]) == 3
    assert peak_overlap([(0, 1), (1, 2), (2, 3)]) == 1  # back to back, as a polite crawler goes
    assert peak_overlap([(0, 1), (0.999, 2)]) == 2


def test_min_start_gap_is_over_sorted_starts() -> None:
    assert min_start_gap([]) == min_start_gap([5.0]) == float("inf")
    assert min_start_gap([3.0, 1.0, 1.5, 4.0]) == 0.5


def test_log_counts_and_urls() -> None:
    recorder = Recorder(2)
    answer(recorder, 0, "/robots.txt")
    answer(recorder, 0, "/")
    answer(recorder, 0, "/")
    answer(recorder, 1, "/a?b=1", status=404)
    assert [r.path for r in recorder.requests] == ["/robots.txt", "/", "/", "/a?b=1"]
    assert recorder.fetch_counts() == {"http://127.0.0.1:8000/": 2, "http://127.0.0.1:8001/a?b=1": 1}
    assert recorder.fetch_counts(include_robots=True)["http://127.0.0.1:8000/robots.txt"] == 1
    assert recorder.fetched_urls() == {"http://127.0.0.1:8000/", "http://127.0.0.1:8001/a?b=1"}


def test_peaks_are_tracked_live_and_survive_a_reset_of_what_is_in_flight() -> None:
    recorder = Recorder(2)
    starts = [recorder.begin(0) for _ in range(3)]
    assert recorder.peak_inflight() == [3, 0]
    recorder.end(RequestRecord(0, "h:1", "GET", "/", 200, starts[0], starts[0]))
    recorder.reset()
    assert recorder.requests == [] and recorder.peak_inflight() == [2, 0]  # two still in flight
    for start in starts[1:]:
        recorder.end(RequestRecord(0, "h:1", "GET", "/x", 200, start, start))
    assert recorder.peak_inflight() == [2, 0] and len(recorder.requests) == 2


def test_min_gaps_per_host_include_robots() -> None:
    recorder = Recorder(3)
    for host, start in ((0, 1.0), (0, 1.25), (0, 2.0), (1, 5.0)):
        recorder.begin(host)
        recorder.end(RequestRecord(host, "h:1", "GET", "/robots.txt" if start == 1.0 else "/", 200, start, start))
    assert recorder.min_gaps() == [0.25, float("inf"), float("inf")]


def test_wait_for_wakes_when_a_request_ends_in_another_thread() -> None:
    recorder = Recorder(1)
    seen: list[RequestRecord] = []
    recorder_with_hook = Recorder(1, on_record=seen.append)
    release = threading.Event()

    def serve() -> None:
        release.wait(5)
        answer(recorder, 0, "/1")
        answer(recorder_with_hook, 0, "/1")

    worker = threading.Thread(target=serve)
    worker.start()
    assert not recorder.wait_fetched(1, timeout=0.05)
    release.set()
    assert recorder.wait_fetched(1, timeout=5)
    assert recorder.wait_for(lambda: recorder.fetch_counts() == {"http://127.0.0.1:8000/1": 1}, timeout=5)
    worker.join()
    assert [r.path for r in seen] == ["/1"]
