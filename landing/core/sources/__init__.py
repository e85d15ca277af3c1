"""Registration-agency APIs: request URLs built and responses parsed, with no Scrapy and no I/O."""
