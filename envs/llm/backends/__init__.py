"""How a request reaches a model: litellm, the lean OpenAI-compatible client, llama.cpp in-process."""
