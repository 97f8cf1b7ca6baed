from django.apps import AppConfig


class OrdersConfig(AppConfig):
    name = "apps.orders"
    label = "orders"
    verbose_name = "Orders"

    def ready(self):
        from django.core import checks

        from apps.orders.checks import payment_backend_check

        # "startup": config/wsgi.py runs these before the web process serves anything.
        checks.register(payment_backend_check, checks.Tags.security, "startup")
