"""`reportgen drift`: a new edition of a document against the claims that cite it."""
