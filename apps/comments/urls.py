"""One path() per spec path (spec §4.6, and the comment rows of §4.2, §4.4, §4.8); the core middleware
makes both slash forms answer."""
from django.urls import path

from apps.comments import pages, views

comment = "comments/<int:comment_id>"
thing = "things/<int:thing_id>"
copy = "copies/<int:copy_id>"
topic = "group-topics/<int:topic_id>"

urlpatterns: list = [
    path("comments/", views.CommentCreateView.as_view(), name="comment-create"),
    path(f"{comment}/", views.CommentDetailView.as_view(), name="comment-detail"),
    path("comments/<int:parent_id>/replies", views.CommentRepliesView.as_view(), name="comment-replies"),
    path(f"{comment}/reply", views.CommentReplyView.as_view(), name="comment-reply"),
    path(f"{thing}/threaded-comments", views.ThingThreadedCommentsView.as_view(),
         name="thing-threaded-comments"),
    path(f"{thing}/comments", views.ThingCommentsView.as_view(), name="thing-comments"),
    path(f"{thing}/root-comments", views.ThingRootCommentsView.as_view(), name="thing-root-comments"),
    path(f"{copy}/threaded-comments", views.CopyThreadedCommentsView.as_view(),
         name="copy-threaded-comments"),
    path(f"{copy}/comments", views.CopyCommentsView.as_view(), name="copy-comments"),
    path(f"{copy}/root-comments", views.CopyRootCommentsView.as_view(), name="copy-root-comments"),
    path(f"{topic}/threaded-comments", views.TopicThreadedCommentsView.as_view(),
         name="topic-threaded-comments"),
    path(f"{topic}/comments", views.TopicCommentsView.as_view(), name="topic-comments"),
    path(f"{topic}/root-comments", views.TopicRootCommentsView.as_view(), name="topic-root-comments"),
    # Site pages (session, CSRF): posting from the Thing, make and group topic pages.
    path("thing:<int:thing_id>/comments", pages.thing_comment_post, name="thing-page-comment"),
    path("comment:<int:comment_id>/edit", pages.comment_edit, name="comment-page-edit"),
    path("comment:<int:comment_id>/delete", pages.comment_delete, name="comment-page-delete"),
    path("make:<int:make_id>/comments", pages.make_comment_post, name="make-page-comment"),
    path("groups/<group_slug:slug>/topics/<int:topic_id>/comments", pages.topic_comment_post, name="topic-page-comment"),
]
