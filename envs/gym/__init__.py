"""The gymnasium environments and their registration (``sitgym/<Domain>-v0``)."""
