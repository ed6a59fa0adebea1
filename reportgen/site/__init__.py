"""Write a verified ledger as a static site: plan, render, bundle, publish."""
