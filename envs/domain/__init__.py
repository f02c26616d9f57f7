"""A domain as a definition (``Domain``), its tools (``ToolSet``) and the registry that finds domains."""
