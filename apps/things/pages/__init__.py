"""Site pages of Things (session login): browsing, the Thing page, creating and editing.

- browse.py: the front page, the discovery lists, categories and tags;
- thing.py: the Thing page and its writes (like, watch, publish, delete);
- edit.py: the new-Thing form and the edit page (its file manager is a section of apps.uploads).

Other apps add sections to the Thing page and the edit page through apps.core.site.sections.
"""
