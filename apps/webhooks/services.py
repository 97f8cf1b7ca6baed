"""Webhook writes. Placeholder contract: the webhooks work implements these for real."""


def webhook_event_record(*, application, event: str, payload: dict):
    """Write the outbox row for `event` (inside the caller's transaction) and enqueue it on commit."""
    raise NotImplementedError
