"""A domain as a definition (``Domain``), its tools (``ToolSet``) and the registry that finds domains."""

from envs.domain.definition import PROJECT_ROOT, Domain, data_root
from envs.domain.registry import _GYM_IDS, discover, domain_names, get_domain, register_domain

__all__ = ["PROJECT_ROOT", "Domain", "data_root", "discover", "domain_names", "get_domain", "register_domain", "_GYM_IDS"]
