"""One path() per spec path (spec §4.2 files/images, §4.3, §4.1 avatar/cover/downloads)."""
urlpatterns: list = []
