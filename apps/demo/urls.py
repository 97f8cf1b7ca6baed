from django.urls import path

from apps.demo import pages

urlpatterns = [path("demo/callback", pages.demo_callback, name="demo-callback")]
