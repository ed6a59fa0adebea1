"""The model layer: the one owner of the `anthropic` client (imported lazily), versioned
prompts, the on-disk response cache, retries and the count of calls and tokens."""
