"""Run a ledger against its PDFs: every fact, calc and inference gets its verdict."""
