"""The two floors the product's load figures are compared with.

Both stream the product's own frames with the mock LLM's token schedule and
do nothing else: ``channels_*`` is a bare Channels consumer served by daphne
exactly as the product is, ``websockets_server`` the same protocol on the
plain ``websockets`` library.
"""
