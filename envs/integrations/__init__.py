"""Adapters that let other libraries drive sitgym (``verifiers_env``: PrimeIntellect's verifiers)."""
