"""The demo job that `python manage.py seed_demo` loads: data tables and the loader."""
