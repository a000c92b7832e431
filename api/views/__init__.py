"""Thin views: parse, check the token, call the domain, answer. Split by area."""
