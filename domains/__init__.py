"""Domains: one package per domain, each registering itself with ``envs.domain.register_domain``."""
