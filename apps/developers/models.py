from django.conf import settings
from django.db import models


class ReviewRequest(models.Model):
    """The owner's request to publish an app (spec §3: private → published by owner publication + approval).

    An application is *private* while pending without a review request, *in review* while pending with
    one, *published* once approved. A rejected app goes back to pending when its owner submits again.
    """

    application = models.OneToOneField(
        settings.OAUTH2_PROVIDER_APPLICATION_MODEL, on_delete=models.CASCADE, related_name="review_request"
    )
    submitted_at = models.DateTimeField()
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    def __str__(self):
        return f"Review request for {self.application}"
