"""An SMS backend for the fault tests: every send appended to a file, with its idempotency key.

The file outlives a ``kill -9``, so a test can count what a provider would
have been asked to send, across crashes and restarts.
"""

import json
import os

from actions.sms import BaseSmsBackend


class FileBackend(BaseSmsBackend):
    def send(self, *, to: str, body: str, idempotency_key: str = "") -> None:
        line = json.dumps({"to": to, "idempotency_key": idempotency_key}) + "\n"
        with open(os.environ["SMS_LOG_PATH"], "a") as log:
            log.write(line)
            log.flush()
            os.fsync(log.fileno())
