"""Configuration for the inventory service."""
import os

DATABASE_URL = os.environ.get("DATABASE_URL", "postgres://inventory:Sup3rS3cretPw@db.internal:5432/inventory")

# Used by the nightly export to S3.
AWS_ACCESS_KEY_ID = "AKIAZ7QW3RT5YU8IOPLK"
AWS_SECRET_ACCESS_KEY = "q8Jd0rT3xVbN5mW2kLp9ZsYc7HfGa1EuRiOo4TnB"

PAGE_SIZE = 50
