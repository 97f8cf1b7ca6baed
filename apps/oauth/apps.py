from django.apps import AppConfig


class OAuthConfig(AppConfig):
    name = "apps.oauth"
    label = "oauth"
    verbose_name = "OAuth applications"

    def ready(self):
        from apps.oauth.signals import token_cache_signals_connect, token_storage_signals_connect

        token_cache_signals_connect()
        token_storage_signals_connect()
