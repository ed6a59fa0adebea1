"""Claim files in, a validated Ledger out (spec sections 1-4)."""

from reportgen.ledger.load import load_ledger, workspace_of

__all__ = ["load_ledger", "workspace_of"]
