"""Communities of the entity graph: Leiden over the anchored edges, a strict hierarchy,
fingerprints, summaries whose every sentence cites facts that hit, and global answers."""
