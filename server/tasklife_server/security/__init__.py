"""Authentication: who is calling, from a bearer token, a JWT or a client certificate."""
