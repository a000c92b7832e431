"""What an operator watches and wires other systems to: the store's figures a metrics scrape reads (`figures.py`)
and signed webhooks (`webhooks.py`: the hooks, the events they are sent, delivery from the change log)."""
