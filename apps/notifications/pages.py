"""The notifications page (/notifications) and its two writes, for the signed-in member (session, CSRF).
Marking read is a POST form that works without JavaScript; the site's scripts send the same POST with
`Accept: application/json` (apps.core.site)."""
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_POST

from apps.core.domain.exceptions import NotFound
from apps.core.site.pages import done, login_required_page, paginate
from apps.notifications import rules, selectors, services

LIST_URL = "/notifications"


@login_required
def notification_list_page(request):
    page = paginate(request, selectors.notification_list_for(user=request.user))
    for notification in page.object_list:
        notification.sentence = rules.notification_sentence(notification)  # type: ignore[attr-defined]
    return render(request, "notifications/list.html", {"page": page})


@login_required_page
@require_POST
def notification_read(request, notification_id: int):
    try:
        notification = selectors.notification_get_own(notification_id, user=request.user)
    except NotFound:
        raise Http404 from None
    services.notification_mark_read(notification=notification)
    request.user.refresh_from_db(fields=["notifications_unread"])
    return done(request, message="Marked as read.", data={"unread": request.user.notifications_unread},
                next_url=LIST_URL)


@login_required_page
@require_POST
def notifications_read_all(request):
    services.notifications_mark_all_read(user=request.user)
    return done(request, message="All notifications are marked as read.", data={"unread": 0}, next_url=LIST_URL)
