"""The models' database handle: a peewee proxy, bound to SQLite or PostgreSQL by
`open_database` (peewee's proxy idiom: the models are declared once, the database is
chosen at run time from the configuration). Its own module, so that the models and the
prepared queries both read it without importing each other.
"""

from peewee import DatabaseProxy

database = DatabaseProxy()
