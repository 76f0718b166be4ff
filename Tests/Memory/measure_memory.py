#!/usr/bin/env python3
"""Measures what clients can make observatoryd hold, on its defaults.

The four cases of docs/protocol.md "Memory" at full size, against the release
daemon in a new data directory (fsync everysec, the default), each on a fresh
daemon stopped by its pid:

  sets       4,000 sets of different 400 KB values on one key: growth
  keys       creating 400 KB keys: where limit_exceeded comes, growth then,
             and whether reads still work
  input      1,000 connections each holding a 1 MB unfinished line: peak
             growth, and the growth 3 s after they closed
  observers  100 observers of a key that never read, while one writer sets
             400 KB values: the writer's rate against its rate alone

Growth is the daemon's resident memory (VmRSS) above where it started.

    swift build -c release
    python3 Tests/Memory/measure_memory.py .build/release/observatoryd [case ...]

Needs an open-file limit above 1,100 for the input case (ulimit -n 4096).
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

MIB = 1 << 20


def resident(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


class Daemon:
    def __init__(self, binary):
        self.directory = tempfile.mkdtemp(prefix="observatory-memory-")
        self.process = subprocess.Popen(
            [binary, "--port", "0", "--data", self.directory],
            stderr=subprocess.PIPE, text=True)
        self.port = None
        deadline = time.time() + 20
        for line in self.process.stderr:
            if "listening on" in line:
                self.port = int(line.rsplit(":", 1)[1].split()[0])
                break
            if time.time() > deadline:
                break
        if self.port is None:
            self.stop()
            raise RuntimeError("observatoryd did not start")
        # Keep reading its log, so that a full pipe never stops the daemon.
        threading.Thread(target=lambda: [None for _ in self.process.stderr], daemon=True).start()
        time.sleep(0.3)
        self.start = resident(self.process.pid)

    def growth(self):
        return (resident(self.process.pid) - self.start) / MIB

    def stop(self):
        self.process.kill()
        self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)


class Client:
    def __init__(self, port):
        self.socket = socket.create_connection(("127.0.0.1", port))
        self.lines = self.socket.makefile("rb")

    def send(self, frame):
        self.socket.sendall(frame)
        return json.loads(self.lines.readline())


def set_frame(key, seed):
    stamp = str(seed)
    return ('{"op":"set","key":"%s","value":"%s"}\n' % (key, stamp + "x" * (400_000 - len(stamp)))).encode()


def case_sets(binary):
    daemon = Daemon(binary)
    try:
        client = Client(daemon.port)
        for seed in range(4000):
            assert client.send(set_frame("big", seed))["ok"]
        return f"4,000 sets of 400 KB on one key: growth {daemon.growth():.0f} MiB (target <= 512)"
    finally:
        daemon.stop()


def case_keys(binary):
    daemon = Daemon(binary)
    try:
        client = Client(daemon.port)
        for seed in range(10_000):
            reply = client.send(set_frame(f"k{seed}", seed))
            if not reply["ok"]:
                growth = daemon.growth()
                readable = client.send(b'{"op":"get","key":"k1"}\n')["ok"]
                return (f"400 KB keys: key {seed} refused with {reply['error']['code']} at growth {growth:.0f} MiB "
                        f"(target < 1,536); reads work: {readable}")
        return "400 KB keys: 10,000 accepted, none refused"
    finally:
        daemon.stop()


def case_input(binary):
    daemon = Daemon(binary)
    try:
        line = b'{"op":"set","key":"x","value":"' + b"y" * MIB
        senders = []
        for _ in range(1000):
            connection = socket.create_connection(("127.0.0.1", daemon.port))
            connection.setblocking(False)
            senders.append([connection, 0])
        peak, idle, deadline = 0.0, 0, time.time() + 60
        while idle < 20 and time.time() < deadline and any(sent < len(line) for _, sent in senders):
            progressed = False
            for sender in senders:
                if sender[1] < len(line):
                    try:
                        sender[1] += sender[0].send(line[sender[1]:sender[1] + 65536])
                        progressed = True
                    except BlockingIOError:
                        pass
            peak = max(peak, daemon.growth())
            idle = 0 if progressed else idle + 1
            if not progressed:
                time.sleep(0.05)
        for _ in range(60):
            peak = max(peak, daemon.growth())
            time.sleep(0.05)
        for connection, _ in senders:
            connection.close()
        time.sleep(3)
        return (f"1,000 unfinished 1 MB lines: peak growth {peak:.0f} MiB (target <= 256); "
                f"3 s after they closed {daemon.growth():.0f} MiB (target <= 64)")
    finally:
        daemon.stop()


def writer_rate(port, seconds=5.0):
    client = Client(port)
    frames = [set_frame("big", seed) for seed in range(2)]
    started, count = time.time(), 0
    while time.time() - started < seconds:
        assert client.send(frames[count % 2])["ok"]
        count += 1
    return count / (time.time() - started)


def case_observers(binary):
    rates = {}
    for observers in (0, 100):
        daemon = Daemon(binary)
        try:
            idle = []
            for _ in range(observers):
                observer = socket.create_connection(("127.0.0.1", daemon.port))
                observer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                observer.sendall(b'{"op":"observe","key":"big"}\n')
                idle.append(observer)
            time.sleep(0.5)
            rates[observers] = writer_rate(daemon.port)
            for observer in idle:
                observer.close()
        finally:
            daemon.stop()
    return (f"writer with 100 non-reading observers: {rates[100]:.0f} sets/s against {rates[0]:.0f} alone "
            f"({100 * rates[100] / rates[0]:.0f} %, target >= 50 %)")


CASES = {"sets": case_sets, "keys": case_keys, "input": case_input, "observers": case_observers}


def main():
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        sys.exit(__doc__)
    for name in sys.argv[2:] or CASES:
        print(CASES[name](sys.argv[1]), flush=True)


if __name__ == "__main__":
    main()
