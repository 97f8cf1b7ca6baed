"""Helpers the tests of every app share (they import pytest, so they live here, never in
the product's packages).
"""
