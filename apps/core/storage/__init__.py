"""The object store's addresses: where browsers reach it and the signed GET URLs every stored image and
file is shown by. Everything that talks to the store (apps.uploads.store) stays in apps.uploads; this is
only the arithmetic of its URLs, which every app that shows a stored picture needs (an avatar, a cover,
an app's logo, a group's image, a Thing's images and files)."""
