"""PostgreSQL storage: the schema, its migrations, the named SQL queries and the store that runs them."""
