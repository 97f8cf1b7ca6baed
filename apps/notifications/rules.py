"""What a notification says, and who hears of what. Pure functions over loaded attributes."""

SUBJECT_MAX_LENGTH = 200
EXCERPT_LENGTH = 140
# The digest gathers the unread notifications not mailed yet of at most this many days.
DIGEST_WINDOW_DAYS = 7

SENTENCES = {
    "like": "{actor} liked your Thing “{subject}”.",
    "comment": "{actor} commented on “{subject}”.",
    "reply": "{actor} replied to your comment on “{subject}”.",
    "make": "{actor} posted a make of your Thing “{subject}”.",
    "remix": "{actor} published a remix of your Thing: “{subject}”.",
    "new_thing": "{actor} published a new Thing: “{subject}”.",
    "moderation": "A notice from the moderators about “{subject}”.",
}


def notification_sentence(notification) -> str:
    """One plain sentence for the list, the bell's page and the e-mails."""
    actor = notification.actor.username if notification.actor_id and notification.actor else "Someone"
    template = SENTENCES.get(notification.kind, "{subject}")
    return template.format(actor=actor, subject=notification.subject or "something")


def notification_is_wanted(*, recipient, actor) -> bool:
    """Never about one's own action, and never to an account that cannot read it."""
    if recipient is None or not recipient.is_active:
        return False
    return actor is None or actor.pk != recipient.pk


def excerpt(text: str, length: int = EXCERPT_LENGTH) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= length else text[: length - 1].rstrip() + "…"


def subject_of(text: str) -> str:
    return excerpt(text, SUBJECT_MAX_LENGTH)
