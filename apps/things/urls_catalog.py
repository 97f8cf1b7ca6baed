"""Categories, tags, discovery lists and the Thing site page (spec §4.7)."""
urlpatterns: list = []
