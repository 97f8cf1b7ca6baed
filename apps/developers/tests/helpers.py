"""Data shared by the developer portal tests."""


def valid_registration(**overrides) -> dict:
    data = {
        "name": "Printer Buddy",
        "description": "Sends Things to your printer.",
        "app_type": "web",
        "info_url": "https://buddy.example.com/about",
        "application_url": "https://buddy.example.com",
        "callback_url": "https://buddy.example.com/oauth/callback",
        "client_type": "confidential",
    }
    data.update(overrides)
    return data
