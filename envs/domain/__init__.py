"""A domain as a definition (``Domain``), its tools (``ToolSet``) and the registry that finds domains."""

from envs.domain.definition import PROJECT_ROOT, Domain, DomainCache, NoOptions, data_root, parse_options
from envs.domain.registry import _GYM_IDS, discover, domain_names, get_domain, register_domain

__all__ = ["PROJECT_ROOT", "Domain", "DomainCache", "NoOptions", "data_root", "parse_options", "discover", "domain_names", "get_domain", "register_domain", "_GYM_IDS"]
