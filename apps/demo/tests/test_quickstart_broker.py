"""The quick start's embedded broker under concurrent use (issue 23).

kombu's file broker, the quick start's broker until issue 23, wrote a message file and let a consumer read
it without a shared lock: a consumer that listed the file while a producer was still writing it read
half a message and died (`Unrecoverable error: JSONDecodeError` in .run/celery.log). This runs what the
quick start runs, in separate processes on the local settings' broker (kombu's SQLAlchemy transport on a
SQLite file, config/settings/local.py): several producers publish at once while one consumer takes and
acknowledges messages. Every message must arrive exactly once, whole, and no process may fail.

It also caught a race of kombu's SQLAlchemy transport itself: producers that declare a new queue at the
same moment (`IntegrityError` on the queue's row), which apps/core/broker/quickbroker.py handles.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PRODUCERS = 4
MESSAGES = 120  # per producer
PAD = "x" * 4000  # a message of a few KB, like a task with its headers: writes take a while

PRODUCER = """
import sys
import django
django.setup()
from config.celery import app
number, count, pad = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
with app.connection_for_write() as connection:
    queue = connection.SimpleQueue("broker-stress")
    for n in range(count):
        queue.put({"producer": number, "n": n, "pad": pad})
    queue.close()
"""

CONSUMER = """
import json, sys, time
from queue import Empty
import django
django.setup()
from config.celery import app
expected, pad = int(sys.argv[1]), sys.argv[2]
received, broken = [], 0
deadline = time.monotonic() + 240
with app.connection_for_read() as connection:
    queue = connection.SimpleQueue("broker-stress")
    while len(received) < expected and time.monotonic() < deadline:
        try:
            message = queue.get(block=True, timeout=1)
        except Empty:
            continue
        body = message.payload
        if body.get("pad") != pad:
            broken += 1
        received.append([body["producer"], body["n"]])
        message.ack()
    queue.close()
print(json.dumps({"received": received, "broken": broken}))
"""


def test_concurrent_producers_and_a_consumer_lose_corrupt_and_duplicate_no_message(tmp_path):
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))},
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "THINGYARD_RUN_DIR": str(tmp_path),
        "DATABASE_URL": "",
        "REDIS_URL": "",  # the embedded broker, as `make run`
    }
    consumer = subprocess.Popen(
        [sys.executable, "-c", CONSUMER, str(PRODUCERS * MESSAGES), PAD], cwd=ROOT, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    producers = [
        subprocess.Popen([sys.executable, "-c", PRODUCER, str(number), str(MESSAGES), PAD], cwd=ROOT, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for number in range(PRODUCERS)
    ]
    for producer in producers:
        out, err = producer.communicate(timeout=240)
        assert producer.returncode == 0, err[-3000:]
    out, err = consumer.communicate(timeout=300)
    assert consumer.returncode == 0, err[-3000:]
    assert (tmp_path / "broker.sqlite3").exists()  # the broker of the local settings, not another one

    result = json.loads(out.strip().splitlines()[-1])
    received = [tuple(pair) for pair in result["received"]]
    expected = {(number, n) for number in range(PRODUCERS) for n in range(MESSAGES)}
    assert result["broken"] == 0
    assert len(received) == len(set(received))  # none twice
    assert set(received) == expected  # none lost
    # Each producer's messages arrive in the order it sent them (one queue, first in, first out).
    for number in range(PRODUCERS):
        sequence = [n for p, n in received if p == number]
        assert sequence == sorted(sequence)
