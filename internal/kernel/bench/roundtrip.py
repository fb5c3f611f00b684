#!/usr/bin/python3
"""Round trip of a trivial execute_request (send -> status idle) and kernel start time
(start -> first kernel_info_reply), gosbi against Debian's ipykernel, in one run.

Run with Debian's Python and jupyter_client (apt-get install python3-jupyter-client
python3-ipykernel):

    go build -o /tmp/gosbi . && /usr/bin/python3 internal/kernel/bench/roundtrip.py --gosbi /tmp/gosbi

--gosbi installs the kernelspec of that binary into a temporary directory; without it the
installed "gosbi" kernelspec is used.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from queue import Empty

CODE = {"gosbi": "x := 1", "python3": "x = 1"}


def start(name):
    from jupyter_client.manager import KernelManager

    km = KernelManager(kernel_name=name)
    t0 = time.perf_counter()
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    # Time to the first kernel_info_reply, asking again every 100 ms as a front-end would.
    # (wait_for_ready adds 200 ms of waiting for iopub silence, the same for every kernel.)
    while True:
        msg_id = kc.kernel_info()
        try:
            reply = kc.get_shell_msg(timeout=0.1)
        except Empty:
            continue
        if reply["parent_header"].get("msg_id") == msg_id or reply["msg_type"] == "kernel_info_reply":
            break
    elapsed = time.perf_counter() - t0
    kc.wait_for_ready(timeout=60)
    return km, kc, elapsed


def roundtrip(kc, code, timeout=30):
    t0 = time.perf_counter()
    msg_id = kc.execute(code, store_history=False)
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if (msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "status"
                and msg["content"]["execution_state"] == "idle"):
            break
    dt = time.perf_counter() - t0
    reply = kc.get_shell_msg(timeout=timeout)
    if reply["content"]["status"] != "ok":
        raise RuntimeError("%s failed: %s" % (code, reply["content"]))
    return dt


def measure(name, n, starts):
    times = []
    for _ in range(starts):
        km, kc, t = start(name)
        times.append(t)
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    km, kc, _ = start(name)
    try:
        for _ in range(20):  # warm up
            roundtrip(kc, CODE[name])
        rts = [roundtrip(kc, CODE[name]) for _ in range(n)]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return statistics.median(rts), sorted(rts)[int(0.9 * len(rts))], statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gosbi", help="gosbi binary whose kernelspec to use")
    ap.add_argument("-n", type=int, default=200, help="round trips per kernel (default 200)")
    ap.add_argument("--starts", type=int, default=5, help="kernel starts per kernel (default 5)")
    args = ap.parse_args()
    if args.gosbi:
        prefix = tempfile.mkdtemp(prefix="gosbi-bench-")
        subprocess.run([os.path.abspath(args.gosbi), "install", "--prefix", prefix], check=True,
                       stdout=subprocess.DEVNULL)
        os.environ["JUPYTER_PATH"] = os.path.join(prefix, "share", "jupyter")
    rows = {name: measure(name, args.n, args.starts) for name in ("gosbi", "python3")}
    print("%-10s %14s %14s %16s" % ("kernel", "median rt ms", "p90 rt ms", "start->info ms"))
    for name, (med, p90, st) in rows.items():
        print("%-10s %14.3f %14.3f %16.1f" % (name, med * 1e3, p90 * 1e3, st * 1e3))
    g, p = rows["gosbi"], rows["python3"]
    print("ratio gosbi/ipykernel: round trip %.2f, start %.2f" % (g[0] / p[0], g[2] / p[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
