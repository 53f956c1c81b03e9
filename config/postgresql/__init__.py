"""Django's PostgreSQL backend, with a health check that costs a healthy connection nothing."""
