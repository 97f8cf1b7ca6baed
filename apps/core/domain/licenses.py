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


# The license texts the site links to (the Thing page's license link).
LICENSE_URLS = {
    "cc": "https://creativecommons.org/licenses/by/4.0/",
    "cc-sa": "https://creativecommons.org/licenses/by-sa/4.0/",
    "cc-nd": "https://creativecommons.org/licenses/by-nd/4.0/",
    "cc-nc": "https://creativecommons.org/licenses/by-nc/4.0/",
    "cc-nc-sa": "https://creativecommons.org/licenses/by-nc-sa/4.0/",
    "cc-nc-nd": "https://creativecommons.org/licenses/by-nc-nd/4.0/",
    "pd0": "https://creativecommons.org/publicdomain/zero/1.0/",
    "gpl": "https://www.gnu.org/licenses/gpl-3.0.html",
    "lgpl": "https://www.gnu.org/licenses/lgpl-3.0.html",
    "bsd": "https://opensource.org/license/bsd-3-clause",
}


def license_url(code: str) -> str:
    return LICENSE_URLS.get(code, "")
