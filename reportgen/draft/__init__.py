"""Drafting facts and relations with a model, under the anchor rule: the model reads a
document's pages and emits records; a record is kept only when its vocabulary is
declared, its quote is found on its page by the verifier, and its values stand in its
quote. What is kept is written as a report file with `draft: true` on every record."""
