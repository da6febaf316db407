#!/usr/bin/env python3
"""A console tab left open for a long time must not grow the node's memory (issue 23).

Starts the browser test's `weir standalone` (a DatagenConnector source at a steady
trickle and a FileStreamSink reading it back, a bearer token, the real broker),
opens the console in headless Chromium through ChromeDriver, gives it the token,
and leaves the tab on the Pipelines view, which polls the connector list and the
actor tree once a second. Every 30 s it reads weir's resident memory (VmRSS in
/proc/PID/status) and checks that the page is still updating. At the end it writes
a markdown report: RSS minute by minute, and the growth from the end of the warm-up
(the first quarter of the run, at most 10 minutes) to the end.

    WEIR_KAFKA_BOOTSTRAP=127.0.0.1:9092 bench/console_soak.py [--minutes 60]
        [--out bench/results/console_soak.md] [--limit-mb 8] [--bin build/weir]

Exit 1 when the RSS grew by more than --limit-mb after the warm-up, or when the page
stopped updating; 77 without chromium and chromedriver. scripts/test.sh runs a one-minute
smoke of it (the harness works; one minute says nothing about a leak).
"""
import argparse
import datetime
import os
import shutil
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "integration"))


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=60)
    parser.add_argument("--out", default=os.path.join(REPO, "bench", "results", "console_soak.md"))
    parser.add_argument("--limit-mb", type=float, default=8.0,
                        help="largest RSS growth after the warm-up that passes, in MB (default 8)")
    parser.add_argument("--bin", default=os.environ.get("WEIR_BIN") or os.path.join(REPO, "build", "weir"))
    args = parser.parse_args()

    os.environ["WEIR_BIN"] = args.bin
    import console_browser as cb  # reads WEIR_BIN and WEIR_KAFKA_BOOTSTRAP at import
    chromium, chromedriver = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not chromedriver:
        print("skipped: chromium and chromium-driver are not installed (scripts/test.sh installs them)")
        return 77
    if not cb.BOOTSTRAP:
        print("WEIR_KAFKA_BOOTSTRAP must be set (scripts/kafka.sh start prints it)")
        return 1

    work = tempfile.mkdtemp(prefix="weir-console-soak-")
    weir, port = cb.start_weir(work)
    base = f"http://127.0.0.1:{port}"
    browser = None
    samples = []  # (seconds since start, RSS in kB, the page's "Updated" text)
    started = time.time()
    try:
        browser = cb.Browser(chromium, chromedriver, work)
        browser.go(f"{base}/ui")
        cb.wait_for("the page to ask for the token",
                    lambda: browser.js("return !document.querySelector('#token-form').hidden"))
        browser.type("#token-input", cb.TOKEN)
        browser.click("#token-form button[type=submit]")
        cb.wait_for("console-sink RUNNING in the list", lambda: cb.row_state(browser, "console-sink") == "RUNNING")
        browser.go(f"{base}/ui#/pipeline")
        cb.wait_for("the pipelines view to draw console-sink's stages", lambda: browser.js(
            "return document.querySelectorAll('[data-task=\"console-sink-0\"] article.stage').length") >= 3)
        print(f"soak: weir pid {weir.pid}, console {base}/ui#/pipeline, {args.minutes:g} min")
        end = started + args.minutes * 60
        while True:
            if weir.poll() is not None:
                raise AssertionError(f"weir ended with {weir.returncode}")
            updated = browser.text('#live') or ""
            samples.append((time.time() - started, rss_kb(weir.pid), updated))
            print(f"soak: {samples[-1][0] / 60:5.1f} min  RSS {samples[-1][1] / 1024:7.1f} MB  {updated}", flush=True)
            if time.time() >= end:
                break
            time.sleep(min(30, max(0.0, end - time.time())))
        distinct = len({s[2] for s in samples})
        if len(samples) > 2 and distinct < len(samples) // 2:  # 30 s apart, each should differ
            raise AssertionError(f"the page stopped updating: {distinct} different texts in {len(samples)} samples")
    except AssertionError as error:
        print(f"FAILED: {error}")
        return 1
    finally:
        cb.stop_all(browser, weir, work)

    warmup = min(600.0, args.minutes * 60 / 4)
    after = [kb for t, kb, _ in samples if t >= warmup]
    base_kb, last_kb, peak_kb = after[0], after[-1], max(after)
    growth_mb = (max(after[-4:]) - base_kb) / 1024  # the last two minutes' highest against the warm-up's end
    ok = growth_mb <= args.limit_mb
    lines = [
        "# The console left open: weir's memory over time",
        "",
        f"`bench/console_soak.py --minutes {args.minutes:g}` on "
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, `{os.path.relpath(args.bin, REPO)}`: "
        "`weir standalone` (a DatagenConnector source at a steady trickle, a FileStreamSink reading it back, "
        "a bearer token) with one headless Chromium tab on the console's Pipelines view, polling "
        "the connector list and the actor tree once a second for the whole run.",
        "",
        f"- RSS after the warm-up ({warmup / 60:.0f} min): {base_kb / 1024:.1f} MB; at the end: {last_kb / 1024:.1f} MB; "
        f"highest after the warm-up: {peak_kb / 1024:.1f} MB.",
        f"- Growth after the warm-up: {growth_mb:+.1f} MB (limit {args.limit_mb:g} MB): **{'flat' if ok else 'GROWING'}**.",
        "",
        "| minute | RSS (MB) |",
        "|---:|---:|",
    ]
    minute = -1
    for t, kb, _ in samples:
        if int(t // 60) != minute:
            minute = int(t // 60)
            lines.append(f"| {minute} | {kb / 1024:.1f} |")
    report = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(report)
    print(report)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
