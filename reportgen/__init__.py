"""reportgen: compile a hand-written claim ledger into verified, cited reports."""

__version__ = "0.1.0"
