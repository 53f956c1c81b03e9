"""Scenario builders shared by the tests: docs/testing.md lists them and says how to add one.

Test modules import from here, never from one another (tests/test_test_imports.py).
"""
