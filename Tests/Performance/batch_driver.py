"""Sends COUNT single sets or COUNT batches of ten sets to an observatoryd on
127.0.0.1:PORT over one connection, 64 requests ahead, and checks every reply.

    python3 batch_driver.py PORT single|batch COUNT

Used by callgrind_per_request.sh to compare a key written alone with a key
written in a batch; each value is a small JSON object, keys cycle over 1,000.
"""
import json
import socket
import sys

port, mode, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
window = 64


def requests():
    for i in range(count):
        if mode == "single":
            yield {"op": "set", "id": i, "key": f"k.{i % 1000}", "value": {"seq": i, "pad": "x" * 40}}
        else:
            ops = [
                {"op": "set", "key": f"k.{(i * 10 + j) % 1000}", "value": {"seq": i, "pad": "x" * 40}}
                for j in range(10)
            ]
            yield {"op": "batch", "id": i, "ops": ops}


with socket.create_connection(("127.0.0.1", port)) as connection:
    replies = connection.makefile("rb")
    pending = 0

    def take_reply():
        reply = json.loads(replies.readline())
        if not reply.get("ok"):
            sys.exit(f"batch_driver: refused: {reply}")

    for request in requests():
        connection.sendall((json.dumps(request) + "\n").encode())
        pending += 1
        if pending >= window:
            take_reply()
            pending -= 1
    while pending:
        take_reply()
        pending -= 1
