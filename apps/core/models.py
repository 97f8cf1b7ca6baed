"""The pending-task outbox: Celery messages that must not be lost when the broker is down.

A row is written in the same transaction as the change that needs the task (apps/core/broker/enqueue.py), so it
exists exactly when that change committed. On commit the message is published and the row deleted; when
the broker did not answer, the row stays and `pending_tasks_redrive` (beat, every few seconds) publishes
it as soon as the broker answers again. A row is also how a task is delayed longer than the broker may
hold a message (a countdown beyond the visibility timeout would be handed out twice): it waits here until
`due`, then is published without a countdown. Tasks are idempotent, so a row published twice (its worker
died between publishing and deleting) costs a second, harmless run.
"""
from django.db import models


class PendingTask(models.Model):
    task = models.CharField(max_length=200, help_text="Celery task name")
    args = models.JSONField(default=list)
    kwargs = models.JSONField(default=dict)
    # When the redrive may publish it: just after the commit (grace for the on-commit publish), at the
    # end of a delay, or after a claim's lease (a redrive that died mid-way) has run out.
    due = models.DateTimeField()
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["due"], name="core_pendingtask_due_idx")]

    def __str__(self) -> str:
        return f"{self.task}{tuple(self.args)!r} due {self.due:%Y-%m-%d %H:%M:%S}"
