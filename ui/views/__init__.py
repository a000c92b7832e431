"""Dashboard views, one module per screen family; ui/urls.py maps them."""
