"""Django database backend: the stock sqlite3 backend with sqlite-vec loaded on every connection."""
