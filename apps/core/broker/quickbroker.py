"""The quick start's Celery broker (config/settings/local.py): kombu's SQLAlchemy transport on a SQLite
file, made safe for its first use by several processes at once (issue 23).

kombu's transport creates its tables and each queue's row on first use, and recovers from neither
race between processes: two processes creating the same queue row at once get `IntegrityError`
(kombu only catches `OperationalError` there), and two creating the tables at once may see `table already
exists`. `make run` starts the web process, the worker and beat together on a fresh file, so both happen.
Here the loser of either race reads what the winner wrote. Messages themselves need nothing more: a
publish is one INSERT in a transaction, and a consumer takes a message under BEGIN IMMEDIATE.
(apps/demo/tests/test_quickstart_broker.py shows both, with several producers and a consumer.)
"""
import time

from kombu.transport import sqlalchemy as kombu_sqlalchemy
from sqlalchemy.exc import IntegrityError, OperationalError

TABLE_RACE_RETRIES = 5


class Channel(kombu_sqlalchemy.Channel):
    def _open(self):
        for attempt in range(TABLE_RACE_RETRIES):
            try:
                return super()._open()
            except OperationalError:  # `table … already exists`, or locked: another process is creating them
                if attempt == TABLE_RACE_RETRIES - 1:
                    raise
                time.sleep(0.2 * (attempt + 1))

    def _get_or_create(self, queue):
        try:
            return super()._get_or_create(queue)
        except IntegrityError:  # another process created the queue's row between our lookup and insert
            self.session.rollback()
            return self.session.query(self.queue_cls).filter(self.queue_cls.name == queue).one()


class Transport(kombu_sqlalchemy.Transport):
    Channel = Channel
