from django.apps import AppConfig


class BenchConfig(AppConfig):
    """The benchmarks' app (bench/__init__.py): management commands only, no models."""

    name = "bench"
    verbose_name = "Benchmarks"
