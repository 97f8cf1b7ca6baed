"""License codes (spec §2): input is a code, output the human-readable name."""

THING_LICENSES = {
    "cc": "Creative Commons - Attribution",
    "cc-sa": "Creative Commons - Attribution - Share Alike",
    "cc-nd": "Creative Commons - Attribution - No Derivatives",
    "cc-nc-sa": "Creative Commons - Attribution - Non-Commercial - Share Alike",
    "cc-nc-nd": "Creative Commons - Attribution - Non-Commercial - No Derivatives",
    "pd0": "Creative Commons - Public Domain Dedication",
    "gpl": "GNU - GPL",
    "lgpl": "GNU - LGPL",
    "bsd": "BSD License",
}
# spec §2: a user's default_license accepts the Thing codes plus cc-nc.
USER_LICENSES = {**THING_LICENSES, "cc-nc": "Creative Commons - Attribution - Non-Commercial"}

THING_LICENSE_CHOICES = list(THING_LICENSES.items())
USER_LICENSE_CHOICES = list(USER_LICENSES.items())


def license_name(code: str) -> str:
    return USER_LICENSES.get(code, code)
