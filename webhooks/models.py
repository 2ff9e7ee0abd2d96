"""Webhook models arrive with the events work (issue 4); the app is installed so its
migrations have a home from the first day."""
