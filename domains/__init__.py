"""Domains: one package per domain, each registering itself with ``envs.domain.definition.register_domain``."""
