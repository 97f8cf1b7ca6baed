"""The site's conventions: what every app's pages module shares, the page-section registry, the
static files of npm packages.
"""
