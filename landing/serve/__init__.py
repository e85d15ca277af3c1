"""The matching service: `scrapy serve` answers over HTTP (http.py) and from Redis Streams (stream.py)."""
