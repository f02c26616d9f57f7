"""The episode database: template bytes, task patches, the per-episode in-memory copy."""
