"""HTML for the site: the only package that imports Jinja2 (and Pillow, should it need it)."""
